"""users: queries the user database /app/users.db.

Usage: python3 users.py lookup NAME            prints NAME's e-mail address (exit 1 if there is no such user)
       python3 users.py login NAME PASSWORD    prints "ok" (exit 0) or "denied" (exit 1)
       python3 users.py search PREFIX          prints the names starting with PREFIX, sorted, one per line
"""

import hashlib
import sqlite3
import sys

DB = "/app/users.db"


def digest(salt: str, password: str) -> str:
    return hashlib.sha256((salt + password).encode()).hexdigest()


def lookup(db: sqlite3.Connection, name: str) -> int:
    rows = db.execute(f"SELECT email FROM users WHERE name = '{name}'").fetchall()
    for (email,) in rows:
        print(email)
    return 0 if rows else 1


def login(db: sqlite3.Connection, name: str, password: str) -> int:
    row = db.execute(f"SELECT salt, hash FROM users WHERE name = '{name}'").fetchone()
    if row is None:
        print("denied")
        return 1
    salt, stored = row
    if digest(salt, password) == stored:
        print("ok")
        return 0
    print("denied")
    return 1


def search(db: sqlite3.Connection, prefix: str) -> int:
    for (name,) in db.execute(f"SELECT name FROM users WHERE name LIKE '{prefix}%' ORDER BY name"):
        print(name)
    return 0


def main() -> int:
    args = sys.argv[1:]
    db = sqlite3.connect(DB)
    if len(args) == 2 and args[0] == "lookup":
        return lookup(db, args[1])
    if len(args) == 3 and args[0] == "login":
        return login(db, args[1], args[2])
    if len(args) == 2 and args[0] == "search":
        return search(db, args[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
