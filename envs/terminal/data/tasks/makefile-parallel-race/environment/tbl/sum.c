#include "table.h"

long sum_all(void) {
    long s = 0;
    for (int i = 0; i < TABLE_N; i++) s += TABLE[i];
    return s;
}
