#include <stdio.h>
#include "tj.h"
#ifndef TJ_VERSION
#define TJ_VERSION "1.4"
#endif

int tj_quote(const char *s, char *out, size_t n) {
    size_t k = 0;
#define PUT(c) do { if (k + 1 >= n) return 0; out[k++] = (c); } while (0)
    PUT('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { PUT('\\'); PUT(c); }
        else if (c == '\n') { PUT('\\'); PUT('n'); }
        else if (c == '\t') { PUT('\\'); PUT('t'); }
        else if (c < 0x20) {
            char esc[7];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            for (char *e = esc; *e; e++) PUT(*e);
        } else PUT(c);
    }
    PUT('"');
    out[k] = 0;
    return 1;
}

const char *tj_version(void) { return TJ_VERSION; }
