#include <math.h>
#include "geom.h"

double dist(point a, point b) { return hypot(a.x - b.x, a.y - b.y); }

double polygon_area(const point *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const point *a = &p[i], *b = &p[(i + 1) % n];
        s += a->x * b->y - b->x * a->y;
    }
    return fabs(s) / 2;
}
