"""Writes /app/samples.csv: seeded metric samples (host, ts, value)."""

import datetime
import random

random.seed(4606)
start = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
hosts = [f"web-{i:02d}" for i in range(1, 41)]
with open("/app/samples.csv", "w") as f:
    f.write("host,ts,value\n")
    for i in range(240_000):
        ts = start + datetime.timedelta(seconds=i * 11)
        f.write(f"{random.choice(hosts)},{ts:%Y-%m-%d %H:%M:%S}+00,{random.gauss(50, 12):.3f}\n")
