"""getdoc: prints a document from the docs folder.

Usage: python3 getdoc.py NAME   (NAME is relative to /app/docs, for example guides/install.md)
"""

import os
import sys

DOCS = "/app/docs"


def read_doc(name: str) -> str:
    path = os.path.join(DOCS, name)
    with open(path) as f:
        return f.read()


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: getdoc.py NAME", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(read_doc(sys.argv[1]))
    except FileNotFoundError:
        print("not found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
