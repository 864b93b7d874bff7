"""backup: archives /app/data into /app/backups/NAME.tar.gz.

Usage: python3 backup.py NAME      create the archive (NAME: letters, digits, '.', '_' and '-'; not starting with '.')
       python3 backup.py --list    list the archives, one per line
"""

import os
import sys

BACKUPS = "/app/backups"


def create(name: str) -> int:
    os.makedirs(BACKUPS, exist_ok=True)
    return os.system(f"tar czf {BACKUPS}/{name}.tar.gz -C /app data")


def listing() -> int:
    print(os.popen(f"ls {BACKUPS}").read(), end="")
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
