/* confnorm: reads a config file on stdin ("key = value" lines, '#' comments, blank lines) and prints
 * the settings as "key=value", one per line, in input order, with spaces around key and value trimmed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s) - 1;
    while (isspace((unsigned char)*end)) *end-- = 0;
    return s;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, stdin) > 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *eq = strchr(line, '=');
        *eq = 0;
        char *key = trim(line), *val = trim(eq + 1);
        if (!*key) {
            fprintf(stderr, "line %d: empty key\n", lineno);
            continue;
        }
        printf("%s=%s\n", key, val);
    }
    free(line);
    return 0;
}
