#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kv.h"

#define MAXN 1024
static char *keys[MAXN], *vals[MAXN];
static int n;

int kv_load(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f) return -1;
    while (n < MAXN && fgets(line, sizeof line, f)) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        line[strcspn(eq + 1, "\n") + (eq + 1 - line)] = 0;
        keys[n] = strdup(line);
        vals[n] = strdup(eq + 1);
        n++;
    }
    fclose(f);
    return n;
}

const char *kv_get(const char *key) {
    for (int i = n - 1; i >= 0; i--)
        if (!strcmp(keys[i], key)) return vals[i];
    return NULL;
}
