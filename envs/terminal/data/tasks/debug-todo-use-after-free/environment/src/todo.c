/* todo: a tiny task list driven by commands on stdin, one per line:
 *   add PRIORITY TEXT   add a task (kept sorted by priority ascending, stable for equal priorities)
 *   done TEXT           remove every task with exactly that text
 *   drop PRIORITY       remove every task with priority <= PRIORITY
 *   list                print the tasks, "PRIORITY TEXT" per line, then "--"
 * At end of input the remaining tasks are freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct task {
    int prio;
    char *text;
    struct task *next;
} task;

static task *head;

static void add(int prio, const char *text) {
    task *t = malloc(sizeof *t);
    t->prio = prio;
    t->text = strdup(text);
    task **p = &head;
    while (*p && (*p)->prio <= prio) p = &(*p)->next;
    t->next = *p;
    *p = t;
}

static void destroy(task *t) {
    free(t->text);
    free(t);
}

static void done(const char *text) {
    task *prev = NULL;
    for (task *t = head; t; t = t->next) {
        if (strcmp(t->text, text) == 0) {
            if (prev) prev->next = t->next;
            destroy(t);
        } else {
            prev = t;
        }
    }
}

static void drop(int prio) {
    task *t = head;
    while (t && t->prio <= prio) {
        destroy(t);
        t = t->next;
    }
    head = t;
}

static void list(void) {
    for (task *t = head; t; t = t->next) printf("%d %s\n", t->prio, t->text);
    puts("--");
}

int main(void) {
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        int prio, n = 0;
        if (sscanf(line, "add %d %n", &prio, &n) == 1 && n) add(prio, line + n);
        else if (strncmp(line, "done ", 5) == 0) done(line + 5);
        else if (sscanf(line, "drop %d", &prio) == 1) drop(prio);
        else if (strcmp(line, "list") == 0) list();
    }
    while (head) drop(head->prio);
    return 0;
}
