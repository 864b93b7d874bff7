#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CALC_ADVANCED
#include <math.h>
#endif

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: calc A OP B\n");
        return 2;
    }
    double a = atof(argv[1]), b = atof(argv[3]);
    const char *op = argv[2];
    double r;
    if (!strcmp(op, "add")) r = a + b;
    else if (!strcmp(op, "sub")) r = a - b;
    else if (!strcmp(op, "mul")) r = a * b;
    else if (!strcmp(op, "div")) {
        assert(b != 0 && "division by zero in a debug build");
        r = a / b;
    }
#ifdef CALC_ADVANCED
    else if (!strcmp(op, "pow")) r = pow(a, b);
    else if (!strcmp(op, "root")) r = pow(a, 1.0 / b);
#endif
    else {
        fprintf(stderr, "unknown operator %s\n", op);
        return 2;
    }
    printf("%g\n", r);
    return 0;
}
