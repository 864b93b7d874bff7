#include "config.h"
#include "util.h"

int main(void) {
    shout(GREETING, REPEAT);
    return 0;
}
