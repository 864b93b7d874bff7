#include <stdlib.h>
#include "ringbuf.h"

int ringbuf_init(ringbuf *r, size_t cap) {
    r->data = malloc(cap * sizeof *r->data);
    r->cap = cap;
    r->head = r->len = 0;
    return r->data != NULL;
}

void ringbuf_free(ringbuf *r) { free(r->data); r->data = NULL; }

void ringbuf_push(ringbuf *r, int v) {
    r->data[(r->head + r->len) % r->cap] = v;
    if (r->len < r->cap)
        r->len++;
    else
        r->head = (r->head + 1) % r->cap;
}

int ringbuf_pop(ringbuf *r, int *out) {
    if (!r->len) return 0;
    *out = r->data[r->head];
    r->head = (r->head + 1) % r->cap;
    r->len--;
    return 1;
}
