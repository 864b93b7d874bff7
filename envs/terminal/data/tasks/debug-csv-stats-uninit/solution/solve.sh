#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/colstats.c"
s = open(p).read()
s = s.replace("    int ncols = split(line, cells, 64);\n", "    int ncols = split(line, cells, 64);\n    if (ncols > 64) ncols = 64;\n")
s = s.replace("    for (int i = 0; i < ncols; i++) cols[i].name = strdup(cells[i]);",
              "    for (int i = 0; i < ncols; i++) {\n        cols[i].name = strdup(cells[i]);\n        cols[i].count = 0;\n        cols[i].min = cols[i].max = cols[i].sum = 0;\n    }")
s = s.replace("            if (v < c->min) c->min = v;\n            if (v > c->max) c->max = v;",
              "            if (!c->count || v < c->min) c->min = v;\n            if (!c->count || v > c->max) c->max = v;")
s = s.replace("        int n = split(line, cells, 64);\n", "        int n = split(line, cells, 64);\n        if (n > 64) n = 64;\n")
s = s.replace("    free(cols);", "    for (int i = 0; i < ncols; i++) free(cols[i].name);\n    free(cols);")
open(p, "w").write(s)
PY
make -B
