/* regions: reads a grid from stdin (first line "W H", then H lines of W characters, '#' land, '.' water)
 * and prints the number of land regions (4-connected) and the size of the largest one:
 * "regions N largest M". */
#include <stdio.h>
#include <stdlib.h>

static int w, h;
static char *grid;
static unsigned char *seen;

static long fill(int x, int y) {
    if (x < 0 || y < 0 || x > w || y >= h) return 0;
    long i = (long)y * w + x;
    if (seen[i] || grid[i] != '#') return 0;
    seen[i] = 1;
    return 1 + fill(x + 1, y) + fill(x - 1, y) + fill(x, y + 1) + fill(x, y - 1);
}

int main(void) {
    if (scanf("%d %d", &w, &h) != 2 || w <= 0 || h <= 0) return 2;
    grid = malloc((size_t)w * h);
    seen = malloc((size_t)w * h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int c;
            do c = getchar(); while (c == '\n' || c == '\r');
            if (c == EOF) return 2;
            grid[(long)y * w + x] = (char)c;
        }
    }
    long regions = 0, largest = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            long n = fill(x, y);
            if (n) {
                regions++;
                if (n > largest) largest = n;
            }
        }
    printf("regions %ld largest %ld\n", regions, largest);
    free(grid);
    free(seen);
    return 0;
}
