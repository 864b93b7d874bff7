#ifndef TJ_H
#define TJ_H
#include <stddef.h>
/* Writes s as a JSON string literal (with quotes) into out (size n). Returns 0 if it did not fit. */
int tj_quote(const char *s, char *out, size_t n);
const char *tj_version(void);
#endif
