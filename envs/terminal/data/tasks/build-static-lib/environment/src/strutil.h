#ifndef STRUTIL_H
#define STRUTIL_H
#include <stddef.h>
/* Reverse s in place. */
void su_reverse(char *s);
/* Count occurrences of c in s. */
size_t su_count(const char *s, char c);
#endif
