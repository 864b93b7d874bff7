#include <math.h>
#include "geo.h"

double geo_dist(double x1, double y1, double x2, double y2) {
    return hypot(x2 - x1, y2 - y1);
}
