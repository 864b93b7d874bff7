#ifndef GEOM_H
#define GEOM_H
typedef struct { double x, y; } point;
double dist(point a, point b);
double polygon_area(const point *p, int n);
#endif
