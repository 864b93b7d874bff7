#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/todo.c"
s = open(p).read()
s = s.replace("""    task *prev = NULL;
    for (task *t = head; t; t = t->next) {
        if (strcmp(t->text, text) == 0) {
            if (prev) prev->next = t->next;
            destroy(t);
        } else {
            prev = t;
        }
    }""", """    task **p = &head;
    while (*p) {
        task *t = *p;
        if (strcmp(t->text, text) == 0) {
            *p = t->next;
            destroy(t);
        } else {
            p = &t->next;
        }
    }""")
s = s.replace("""    while (t && t->prio <= prio) {
        destroy(t);
        t = t->next;
    }""", """    while (t && t->prio <= prio) {
        task *next = t->next;
        destroy(t);
        t = next;
    }""")
open(p, "w").write(s)
PY
make -B
