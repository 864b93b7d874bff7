#include <stdio.h>
#include <string.h>
#include "tj.h"

/* Reads lines from stdin and prints them as a JSON array of strings; --version prints tinyjson's version. */
int main(int argc, char **argv) {
    char line[1024], q[4096];
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("tinyjson %s\n", tj_version());
        return 0;
    }
    putchar('[');
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (!tj_quote(line, q, sizeof q)) return 1;
        printf("%s%s", first ? "" : ",", q);
        first = 0;
    }
    puts("]");
    return 0;
}
