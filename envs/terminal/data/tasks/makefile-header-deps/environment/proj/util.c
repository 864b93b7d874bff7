#include <stdio.h>
#include <ctype.h>
#include "util.h"

void shout(const char *s, int times) {
    for (int t = 0; t < times; t++) {
        for (const char *p = s; *p; p++) putchar(toupper((unsigned char)*p));
        putchar('\n');
    }
}
