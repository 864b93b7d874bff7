#!/bin/bash
set -e
cd /app/repo
git checkout -q main
git merge --no-ff --no-edit feature || true
python3 - <<'PY'
import subprocess

def side(ref):
    out = subprocess.run(["git", "show", f"{ref}:requirements.txt"], capture_output=True, text=True, check=True).stdout
    return dict(line.split("==") for line in out.split())

def key(v):
    return tuple(int(p) for p in v.split("."))

a, b = side("main"), side("feature")
merged = {}
for name in sorted(set(a) | set(b)):
    vs = [d[name] for d in (a, b) if name in d]
    merged[name] = max(vs, key=key)
open("requirements.txt", "w").write("".join(f"{n}=={v}\n" for n, v in merged.items()))
open("CHANGELOG.md", "w").write(
    "# Changelog\n\n## Unreleased\n\n- pretty output with rich\n- yaml config support\n- initial import\n")
PY
git add requirements.txt CHANGELOG.md
git commit -q --no-edit
