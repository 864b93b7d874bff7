#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/pgmstat.c"
s = open(p).read()
s = s.replace("""    uint32_t size = w * h;
    unsigned char *px = malloc(size ? size : 1);""", """    if (w > 20000 || h > 20000) {
        fprintf(stderr, "image too large\\n");
        return 1;
    }
    size_t size = (size_t)w * h;
    unsigned char *px = malloc(size ? size : 1);""")
s = s.replace("for (uint32_t i = 0; i < size; i++)", "for (size_t i = 0; i < size; i++)")
open(p, "w").write(s)
PY
make -B
