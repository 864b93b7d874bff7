import hashlib
import random
import sqlite3

rng = random.Random(46)
db = sqlite3.connect("/app/users.db")
db.execute("CREATE TABLE users (name TEXT PRIMARY KEY, email TEXT, salt TEXT, hash TEXT)")
people = [("alice", "alice@example.com", "wonderland"), ("bob", "bob@example.com", "builder"),
          ("O'Brien", "obrien@example.com", "shamrock"), ("admin", "root-ops@internal.example", "Zq9!vX2#mL"),
          ("ali", "ali@example.com", "sesame"), ("50%off", "deals@example.com", "cheap")]
for name, email, pw in people:
    salt = "%08x" % rng.getrandbits(32)
    db.execute("INSERT INTO users VALUES (?, ?, ?, ?)", (name, email, salt, hashlib.sha256((salt + pw).encode()).hexdigest()))
db.commit()
