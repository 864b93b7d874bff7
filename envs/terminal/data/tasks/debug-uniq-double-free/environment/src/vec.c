#include <stdlib.h>
#include "vec.h"

void vec_init(vec *v) {
    v->cap = 4;
    v->len = 0;
    v->items = malloc(v->cap * sizeof *v->items);
}

void vec_push(vec *v, char *s) {
    if (v->len == v->cap) {
        v->cap *= 2;
        v->items = realloc(v->items, v->cap);
    }
    v->items[v->len++] = s;
}

void vec_free(vec *v) {
    for (size_t i = 0; i < v->len; i++) free(v->items[i]);
    free(v->items);
}
