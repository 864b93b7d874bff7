#include "geom.h"
#include "stats.h"
#include "util.h"

int main(void) {
    point square[] = {{0, 0}, {4, 0}, {4, 3}, {0, 3}};
    double side[4];
    for (int i = 0; i < 4; i++) side[i] = dist(square[i], square[(i + 1) % 4]);
    print_value("area", polygon_area(square, 4));
    print_value("mean", mean(side, 4));
    print_value("variance", variance(side, 4));
    return 0;
}
