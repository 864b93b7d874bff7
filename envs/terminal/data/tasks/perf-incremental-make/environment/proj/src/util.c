#include <stdio.h>
#include "util.h"

void print_value(const char *label, double v) { printf("%-10s %.4f\n", label, v); }
