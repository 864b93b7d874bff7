/* pgmstat: reads a binary greyscale image ("P5" PGM: "P5\n<width> <height>\n255\n" then width*height
 * bytes) from the file given as argument and prints "WxH mean=M min=A max=B" (mean with 2 decimals).
 * Invalid or truncated files: message on stderr, exit status 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pgmstat FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    unsigned int w, h, maxval;
    if (fscanf(f, "P5 %u %u %u", &w, &h, &maxval) != 3 || maxval != 255 || fgetc(f) == EOF) {
        fprintf(stderr, "not a P5 image\n");
        return 1;
    }
    uint32_t size = w * h;
    unsigned char *px = malloc(size ? size : 1);
    if (!px) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* read row by row */
    for (unsigned int y = 0; y < h; y++) {
        size_t got = fread(px + (size_t)y * w, 1, w, f);
        if (got != w) {
            fprintf(stderr, "truncated image\n");
            free(px);
            return 1;
        }
    }
    fclose(f);
    unsigned long long sum = 0;
    int lo = 255, hi = 0;
    for (uint32_t i = 0; i < size; i++) {
        sum += px[i];
        if (px[i] < lo) lo = px[i];
        if (px[i] > hi) hi = px[i];
    }
    printf("%ux%u mean=%.2f min=%d max=%d\n", w, h, size ? (double)sum / size : 0.0, lo, hi);
    free(px);
    return 0;
}
