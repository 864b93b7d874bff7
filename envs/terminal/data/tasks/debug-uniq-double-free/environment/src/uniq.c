/* uniqc: reads lines from stdin and prints each distinct line once, in order of first appearance,
 * prefixed with how many times it occurred ("COUNT<TAB>LINE"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vec.h"

int main(void) {
    vec all, uniq;
    vec_init(&all);
    vec_init(&uniq);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n') line[n - 1] = 0;
        vec_push(&all, strdup(line));
    }
    free(line);
    int *counts = calloc(all.len, sizeof *counts);
    for (size_t i = 0; i < all.len; i++) {
        size_t j = 0;
        while (j < uniq.len && strcmp(uniq.items[j], all.items[i]) != 0) j++;
        if (j == uniq.len) vec_push(&uniq, all.items[i]);
        counts[j]++;
    }
    for (size_t j = 0; j < uniq.len; j++) printf("%d\t%s\n", counts[j], uniq.items[j]);
    free(counts);
    vec_free(&uniq);
    vec_free(&all);
    return 0;
}
