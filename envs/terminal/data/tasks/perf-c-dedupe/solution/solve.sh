#!/bin/bash
set -euo pipefail
cat > /app/src/dedupe.c <<'C'
/* dedupe: copies stdin to stdout, dropping every line that appeared before (keeps first occurrences,
 * in input order). Lines are at most 4095 bytes; the last line may lack its newline.
 * Seen lines live in an open-addressing hash set (FNV-1a), grown at half load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **slots;
static size_t nslots = 1 << 16, used;

static uint64_t hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void grow(void) {
    size_t n = nslots * 2;
    char **fresh = calloc(n, sizeof *fresh);
    if (!fresh) { perror("calloc"); exit(1); }
    for (size_t i = 0; i < nslots; i++) {
        if (!slots[i]) continue;
        size_t j = hash(slots[i], strlen(slots[i])) & (n - 1);
        while (fresh[j]) j = (j + 1) & (n - 1);
        fresh[j] = slots[i];
    }
    free(slots);
    slots = fresh;
    nslots = n;
}

/* 1 if line was new (and is now remembered), 0 if seen before. */
static int insert(const char *line, size_t len) {
    size_t j = hash(line, len) & (nslots - 1);
    while (slots[j]) {
        if (strcmp(slots[j], line) == 0) return 0;
        j = (j + 1) & (nslots - 1);
    }
    slots[j] = strdup(line);
    if (!slots[j]) { perror("strdup"); exit(1); }
    if (++used * 2 > nslots) grow();
    return 1;
}

int main(void) {
    char buf[4097];
    slots = calloc(nslots, sizeof *slots);
    if (!slots) { perror("calloc"); return 1; }
    while (fgets(buf, sizeof buf, stdin)) {
        size_t len = strlen(buf);
        if (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (insert(buf, len)) {
            fwrite(buf, 1, len, stdout);
            putchar('\n');
        }
    }
    return 0;
}
C
make -C /app -B
