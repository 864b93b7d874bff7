#include <string.h>
#include "strutil.h"

void su_reverse(char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n / 2; i++) {
        char t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
}

size_t su_count(const char *s, char c) {
    size_t k = 0;
    for (; *s; s++)
        if (*s == c) k++;
    return k;
}
