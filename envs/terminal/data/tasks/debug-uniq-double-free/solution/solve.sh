#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/vec.c"
s = open(p).read()
s = s.replace("realloc(v->items, v->cap);", "realloc(v->items, v->cap * sizeof *v->items);")
open(p, "w").write(s)
p = "src/uniq.c"
s = open(p).read()
s = s.replace("        if (j == uniq.len) vec_push(&uniq, all.items[i]);",
              "        if (j == uniq.len) vec_push(&uniq, strdup(all.items[i]));")
open(p, "w").write(s)
PY
make -B
