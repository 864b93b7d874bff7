#include <stdio.h>
#include <string.h>
#include "strutil.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: strtool WORD CHAR\n");
        return 2;
    }
    char buf[256];
    strncpy(buf, argv[1], sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    size_t k = su_count(buf, argv[2][0]);
    su_reverse(buf);
    printf("%s %zu\n", buf, k);
    return 0;
}
