#include <stdio.h>
#include "ringbuf.h"

int main(void) {
    ringbuf r;
    int v;
    if (!ringbuf_init(&r, 3)) return 1;
    for (int i = 1; i <= 5; i++) ringbuf_push(&r, i * 10);
    while (ringbuf_pop(&r, &v)) printf("%d ", v);
    printf("\n");
    ringbuf_free(&r);
    return 0;
}
