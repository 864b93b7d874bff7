#include <math.h>
#include <stddef.h>

double st_mean(const double *x, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return n ? s / n : 0.0;
}

double st_stddev(const double *x, size_t n) {
    double m = st_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return n ? sqrt(s / n) : 0.0;
}
