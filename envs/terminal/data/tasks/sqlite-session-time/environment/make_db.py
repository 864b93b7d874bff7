"""Builds /app/events.db: login/logout events of an app, seeded."""

import datetime
import random
import sqlite3

random.seed(4618)
db = sqlite3.connect("/app/events.db")
db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, handle TEXT NOT NULL UNIQUE)")
db.execute(
    "CREATE TABLE events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), "
    "kind TEXT NOT NULL CHECK (kind IN ('login', 'logout', 'heartbeat')), at TEXT NOT NULL)"
)
handles = ["otter", "heron", "lynx", "bison", "crane", "gecko", "ibex", "koala", "llama", "moose", "newt", "orca"]
for i, h in enumerate(handles, 1):
    db.execute("INSERT INTO users VALUES (?, ?)", (i, h))
rows = []
for uid in range(1, len(handles) + 1):
    t = datetime.datetime(2024, 4, 1, 6) + datetime.timedelta(minutes=random.randint(0, 600))
    for _ in range(random.randint(15, 40)):
        rows.append((uid, "login", t))
        dur = random.randint(30, 4 * 3600)
        for k in range(random.randint(0, 3)):
            rows.append((uid, "heartbeat", t + datetime.timedelta(seconds=random.randint(1, dur))))
        if random.random() < 0.1:
            # the client crashed: no logout; the next login starts a new session
            t += datetime.timedelta(seconds=dur + random.randint(60, 20000))
            continue
        rows.append((uid, "logout", t + datetime.timedelta(seconds=dur)))
        if random.random() < 0.05:
            # a duplicate logout sent by a retrying client
            rows.append((uid, "logout", t + datetime.timedelta(seconds=dur + random.randint(1, 30))))
        t += datetime.timedelta(seconds=dur + random.randint(60, 20000))
random.shuffle(rows)
for uid, kind, at in rows:
    db.execute("INSERT INTO events (user_id, kind, at) VALUES (?, ?, ?)", (uid, kind, at.strftime("%Y-%m-%d %H:%M:%S")))
db.commit()
