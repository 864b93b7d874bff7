#ifndef UTIL_H
#define UTIL_H
void print_value(const char *label, double v);
#endif
