#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "src/confnorm.c"
s = open(p).read()
s = s.replace("""    char *end = s + strlen(s) - 1;
    while (isspace((unsigned char)*end)) *end-- = 0;""", """    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = 0;""")
s = s.replace("""        char *eq = strchr(line, '=');
        *eq = 0;""", """        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;""")
open(p, "w").write(s)
PY
make -B
