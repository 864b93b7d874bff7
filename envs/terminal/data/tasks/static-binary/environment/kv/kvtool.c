#include <stdio.h>
#include "kv.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: kvtool FILE KEY...\n");
        return 2;
    }
    if (kv_load(argv[1]) < 0) {
        perror(argv[1]);
        return 1;
    }
    int missing = 0;
    for (int i = 2; i < argc; i++) {
        const char *v = kv_get(argv[i]);
        if (v) printf("%s\n", v);
        else { printf("(missing)\n"); missing = 1; }
    }
    return missing;
}
