#!/bin/bash
set -e
cd /app
cat > backup.py <<'PY'
"""backup: archives /app/data into /app/backups/NAME.tar.gz.

Usage: python3 backup.py NAME      create the archive (NAME: letters, digits, '.', '_' and '-'; not starting with '.')
       python3 backup.py --list    list the archives, one per line
"""

import os
import re
import subprocess
import sys

BACKUPS = "/app/backups"
NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


def create(name: str) -> int:
    if not NAME.fullmatch(name):
        print("invalid name", file=sys.stderr)
        return 1
    os.makedirs(BACKUPS, exist_ok=True)
    return subprocess.run(["tar", "czf", os.path.join(BACKUPS, name + ".tar.gz"), "-C", "/app", "data"]).returncode


def listing() -> int:
    for entry in sorted(os.listdir(BACKUPS)):
        print(entry)
    return 0


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "--list":
        return listing()
    return 0 if create(sys.argv[1]) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
PY
