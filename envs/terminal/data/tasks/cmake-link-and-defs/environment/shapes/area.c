#include <stdio.h>
#include "shapes.h"

/* Reads "x y" vertices from stdin; prints area and perimeter with 6 decimals. */
int main(void) {
    point p[256];
    int n = 0;
    double x, y;
    while (n < 256 && scanf("%lf %lf", &x, &y) == 2) {
        p[n].x = x; p[n].y = y; n++;
    }
    printf("area %.6f perimeter %.6f\n", (double)polygon_area(p, n), (double)polygon_perimeter(p, n));
    return 0;
}
