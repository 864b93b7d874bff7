"""Builds a readings database: make_db.py PATH ROWS SEED (timestamps unique per sensor)."""

import random
import sqlite3
import sys

path, rows, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
db = sqlite3.connect(path)
db.execute(
    "CREATE TABLE readings (id INTEGER PRIMARY KEY, sensor_id INTEGER NOT NULL, ts INTEGER NOT NULL, value REAL NOT NULL)"
)
stamps = rng.sample(range(1_700_000_000, 1_800_000_000), rows)
db.executemany(
    "INSERT INTO readings (sensor_id, ts, value) VALUES (?, ?, ?)",
    ((rng.randint(1, 2000), ts, round(rng.uniform(-40, 60), 2)) for ts in stamps),
)
db.commit()
