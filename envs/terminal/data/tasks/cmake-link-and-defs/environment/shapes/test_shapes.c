#include <math.h>
#include <stdio.h>
#include "shapes.h"

int main(void) {
    point sq[4] = {{0, 0}, {1e6, 0}, {1e6, 1e6 + 1}, {0, 1e6 + 1}};
    double a = polygon_area(sq, 4);
    if (a != 1e12 + 1e6) {
        printf("area %.1f\n", a);
        return 1;
    }
    return 0;
}
