/* dedupe: copies stdin to stdout, dropping every line that appeared before (keeps first occurrences,
 * in input order). Lines are at most 4095 bytes; the last line may lack its newline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **seen;
static size_t nseen, capseen;

static int already_seen(const char *line) {
    for (size_t i = 0; i < nseen; i++)
        if (strcmp(seen[i], line) == 0)
            return 1;
    return 0;
}

static void remember(const char *line) {
    if (nseen == capseen) {
        capseen = capseen ? capseen * 2 : 1024;
        seen = realloc(seen, capseen * sizeof *seen);
        if (!seen) { perror("realloc"); exit(1); }
    }
    seen[nseen++] = strdup(line);
}

int main(void) {
    char buf[4097];
    while (fgets(buf, sizeof buf, stdin)) {
        size_t len = strlen(buf);
        if (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (!already_seen(buf)) {
            remember(buf);
            puts(buf);
        }
    }
    return 0;
}
