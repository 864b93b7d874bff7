#include <stdio.h>
#include <string.h>

#ifndef DATADIR
#define DATADIR "/usr/local/share/notes"
#endif

/* notes TEMPLATE: prints the named template from DATADIR/templates.txt ("[name]" headed sections). */
int main(int argc, char **argv) {
    char line[512];
    int on = 0, found = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: notes TEMPLATE\n");
        return 2;
    }
    FILE *f = fopen(DATADIR "/templates.txt", "r");
    if (!f) {
        perror(DATADIR "/templates.txt");
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '[') {
            line[strcspn(line, "]")] = 0;
            on = !strcmp(line + 1, argv[1]);
            found |= on;
            continue;
        }
        if (on) fputs(line, stdout);
    }
    fclose(f);
    return found ? 0 : 1;
}
