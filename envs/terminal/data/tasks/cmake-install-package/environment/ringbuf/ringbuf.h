#ifndef RINGBUF_H
#define RINGBUF_H
#include <stddef.h>

typedef struct {
    int *data;
    size_t cap, head, len;
} ringbuf;

int ringbuf_init(ringbuf *r, size_t cap);
void ringbuf_free(ringbuf *r);
/* Push v; when full the oldest value is dropped. */
void ringbuf_push(ringbuf *r, int v);
/* Pop the oldest value into *out; returns 0 when empty. */
int ringbuf_pop(ringbuf *r, int *out);
#endif
