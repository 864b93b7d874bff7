#include <stdio.h>
#include "greet.h"

int greet_format(char *out, int n, const char *name) {
    return snprintf(out, n, "Hello, %s!", name);
}

const char *greet_version(void) { return "1.2.0"; }
