#include <stdio.h>
#include "geo.h"

/* Reads "x y" points from stdin, prints the total length of the path through them. */
int main(void) {
    double x, y, px = 0, py = 0, total = 0;
    int first = 1;
    while (scanf("%lf %lf", &x, &y) == 2) {
        if (!first) total += geo_dist(px, py, x, y);
        px = x; py = y; first = 0;
    }
    printf("%.3f\n", total);
    return 0;
}
