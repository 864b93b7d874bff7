#!/bin/bash
set -e
cd /app
python3 - <<'PY'
p = "users.py"
s = open(p).read()
s = s.replace("""db.execute(f"SELECT email FROM users WHERE name = '{name}'")""",
              """db.execute("SELECT email FROM users WHERE name = ?", (name,))""")
s = s.replace("""db.execute(f"SELECT salt, hash FROM users WHERE name = '{name}'")""",
              """db.execute("SELECT salt, hash FROM users WHERE name = ?", (name,))""")
s = s.replace("""db.execute(f"SELECT name FROM users WHERE name LIKE '{prefix}%' ORDER BY name")""",
              """db.execute("SELECT name FROM users WHERE substr(name, 1, length(?)) = ? ORDER BY name", (prefix, prefix))""")
open(p, "w").write(s)
PY
