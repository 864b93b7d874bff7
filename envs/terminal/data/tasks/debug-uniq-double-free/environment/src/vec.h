#ifndef VEC_H
#define VEC_H
#include <stddef.h>

typedef struct {
    char **items;
    size_t len, cap;
} vec;

void vec_init(vec *v);
void vec_push(vec *v, char *s);  /* takes ownership of s */
void vec_free(vec *v);           /* frees the items and the array */
#endif
