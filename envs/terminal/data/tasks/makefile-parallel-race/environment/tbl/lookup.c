#include "table.h"

long lookup(int i) { return i >= 0 && i < TABLE_N ? TABLE[i] : -1; }
