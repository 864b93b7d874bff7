#ifndef STATS_H
#define STATS_H
double mean(const double *v, int n);
double variance(const double *v, int n);
#endif
