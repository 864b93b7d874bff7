#ifndef GREET_H
#define GREET_H
/* Writes "Hello, NAME!" into out (size n). Returns the length written. */
int greet_format(char *out, int n, const char *name);
/* The library's version string, "1.2.0". */
const char *greet_version(void);
#endif
