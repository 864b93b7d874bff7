/* colstats: reads a CSV file with a header line on stdin (numeric columns, comma separated, empty cells
 * allowed) and prints for each column "NAME count=C min=X max=Y mean=Z" (6 decimals; empty cells are
 * skipped; a column with no numbers prints "NAME count=0"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name;
    long count;
    double min, max, sum;
} column;

static int split(char *line, char **cells, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        if (n < max) cells[n] = p;
        n++;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    char *cells[64];
    if ((len = getline(&line, &cap, stdin)) <= 0) return 1;
    line[strcspn(line, "\r\n")] = 0;
    int ncols = split(line, cells, 64);
    column *cols = malloc(ncols * sizeof *cols);
    for (int i = 0; i < ncols; i++) cols[i].name = strdup(cells[i]);
    while ((len = getline(&line, &cap, stdin)) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        int n = split(line, cells, 64);
        for (int i = 0; i < n && i < ncols; i++) {
            if (!*cells[i]) continue;
            double v = strtod(cells[i], NULL);
            column *c = &cols[i];
            if (v < c->min) c->min = v;
            if (v > c->max) c->max = v;
            c->sum += v;
            c->count++;
        }
    }
    for (int i = 0; i < ncols; i++) {
        column *c = &cols[i];
        if (c->count)
            printf("%s count=%ld min=%.6f max=%.6f mean=%.6f\n", c->name, c->count, c->min, c->max, c->sum / c->count);
        else
            printf("%s count=0\n", c->name);
    }
    free(cols);
    free(line);
    return 0;
}
