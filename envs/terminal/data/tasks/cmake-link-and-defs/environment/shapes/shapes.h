#ifndef SHAPES_H
#define SHAPES_H
/* With SHAPES_WIDE the coordinates are doubles, otherwise floats: every user must agree. */
#ifdef SHAPES_WIDE
typedef double coord;
#else
typedef float coord;
#endif

typedef struct { coord x, y; } point;

coord polygon_area(const point *p, int n);
coord polygon_perimeter(const point *p, int n);
#endif
