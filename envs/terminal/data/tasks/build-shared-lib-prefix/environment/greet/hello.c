#include <stdio.h>
#include <string.h>
#include "greet.h"

int main(int argc, char **argv) {
    char buf[128];
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", greet_version());
        return 0;
    }
    greet_format(buf, sizeof buf, argc > 1 ? argv[1] : "world");
    puts(buf);
    return 0;
}
