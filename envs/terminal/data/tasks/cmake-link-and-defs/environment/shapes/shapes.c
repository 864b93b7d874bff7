#include <math.h>
#include "shapes.h"

coord polygon_area(const point *p, int n) {
    coord s = 0;
    for (int i = 0; i < n; i++) {
        const point *a = &p[i], *b = &p[(i + 1) % n];
        s += a->x * b->y - b->x * a->y;
    }
    return fabs(s) / 2;
}

coord polygon_perimeter(const point *p, int n) {
    coord s = 0;
    for (int i = 0; i < n; i++) {
        const point *a = &p[i], *b = &p[(i + 1) % n];
        s += sqrt((b->x - a->x) * (b->x - a->x) + (b->y - a->y) * (b->y - a->y));
    }
    return s;
}
