/* logfmt: reads log lines "LEVEL message" on stdin and prints them as "[LEVEL] message" with a running
 * line number; with -s it prints a one-line summary of the last message of each level instead. The
 * API key used to ship logs is loaded at start-up and must never be printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char api_key[64];
static char last[3][256];
static const char *levels[3] = {"INFO", "WARN", "ERROR"};

static void load_key(void) {
    FILE *f = fopen("/app/apikey.txt", "r");
    if (f) {
        if (fgets(api_key, sizeof api_key, f)) api_key[strcspn(api_key, "\n")] = 0;
        fclose(f);
    }
}

int main(int argc, char **argv) {
    int summary = argc > 1 && strcmp(argv[1], "-s") == 0;
    char line[512];
    int n = 0;
    load_key();
    char *key = api_key;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *msg = strchr(line, ' ');
        if (!msg) continue;
        *msg++ = 0;
        for (int l = 0; l < 3; l++) {
            if (strcmp(line, levels[l]) != 0) continue;
            n++;
            if (summary) {
                snprintf(last[l], sizeof last[l], msg);
            } else {
                printf("%4d [%s] ", n, levels[l]);
                printf(msg);
                printf("\n");
            }
        }
    }
    if (summary)
        for (int l = 0; l < 3; l++)
            if (last[l][0]) printf("%s: %s\n", levels[l], last[l]);
    (void)key;
    return 0;
}
