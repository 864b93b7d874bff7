/* wordfreq: counts words (runs of letters, lower-cased) on stdin and prints the N most frequent
 * ("count word", by count descending then word ascending). Usage: wordfreq [N] (default 10). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *word;
    int count;
    struct entry *next;
} entry;

static entry **table;
static size_t nbuckets = 8, nentries;

static unsigned long hash(const char *s) {
    unsigned long h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h;
}

static void grow(void) {
    size_t nb = nbuckets * 2;
    entry **t = calloc(nb, sizeof *t);
    for (size_t i = 0; i <= nbuckets; i++) {
        entry *e = table[i];
        while (e) {
            entry *next = e->next;
            size_t b = hash(e->word) % nb;
            e->next = t[b];
            t[b] = e;
            e = next;
        }
    }
    free(table);
    table = t;
    nbuckets = nb;
}

static void add(const char *w) {
    size_t b = hash(w) % nbuckets;
    for (entry *e = table[b]; e; e = e->next)
        if (!strcmp(e->word, w)) {
            e->count++;
            return;
        }
    entry *e = malloc(sizeof *e);
    e->word = malloc(strlen(w));
    strcpy(e->word, w);
    e->count = 1;
    e->next = table[b];
    table[b] = e;
    if (++nentries > nbuckets) grow();
}

static int cmp(const void *a, const void *b) {
    const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->word, y->word);
}

int main(int argc, char **argv) {
    int top = argc > 1 ? atoi(argv[1]) : 10;
    char word[64];
    size_t len = 0;
    int c;
    table = calloc(nbuckets, sizeof *table);
    do {
        c = getchar();
        if (c != EOF && isalpha(c)) {
            word[len++] = tolower(c);
        } else if (len) {
            word[len] = 0;
            add(word);
            len = 0;
        }
    } while (c != EOF);
    entry **all = malloc(nentries * sizeof *all);
    size_t k = 0;
    for (size_t i = 0; i < nbuckets; i++)
        for (entry *e = table[i]; e; e = e->next) all[k++] = e;
    qsort(all, k, sizeof *all, cmp);
    for (size_t i = 0; i < k && (int)i < top; i++) printf("%d %s\n", all[i]->count, all[i]->word);
    for (size_t i = 0; i < k; i++) {
        free(all[i]->word);
        free(all[i]);
    }
    free(all);
    free(table);
    return 0;
}
