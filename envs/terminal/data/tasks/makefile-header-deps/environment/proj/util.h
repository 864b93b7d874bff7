#ifndef UTIL_H
#define UTIL_H
void shout(const char *s, int times);
#endif
