#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/wordfreq.c"
s = open(p).read()
s = s.replace("for (size_t i = 0; i <= nbuckets; i++)", "for (size_t i = 0; i < nbuckets; i++)")
s = s.replace("e->word = malloc(strlen(w));", "e->word = malloc(strlen(w) + 1);")
s = s.replace("            word[len++] = tolower(c);", "            if (len < sizeof word - 1) word[len++] = tolower(c);")
open(p, "w").write(s)
PY
make -B
