"""Builds /app/shop.db: customers, orders and refunds (amounts in cents), seeded."""

import datetime
import random
import sqlite3

random.seed(4613)
db = sqlite3.connect("/app/shop.db")
db.executescript(
    """
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                         created_at TEXT NOT NULL, total_cents INTEGER NOT NULL, status TEXT NOT NULL);
    CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
                          amount_cents INTEGER NOT NULL, refunded_at TEXT NOT NULL);
    """
)
names = ["Aalto", "Berg", "Cruz", "Dahl", "Eze", "Fox", "Gill", "Holm", "Iqbal", "Juhl", "Kaur", "Lund"]
for i in range(1, 121):
    name = f"{random.choice(names)} {chr(65 + i % 26)}{i:03d}"
    db.execute("INSERT INTO customers VALUES (?, ?, ?)", (i, name, f"c{i}@example.com"))
start = datetime.datetime(2023, 5, 1)
for oid in range(1, 4001):
    created = start + datetime.timedelta(minutes=random.randint(0, 60 * 24 * 200))
    status = random.choices(["complete", "cancelled"], [9, 1])[0]
    cust = random.randint(1, 120) if random.random() < 0.8 else random.randint(1, 12)
    db.execute(
        "INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
        (oid, cust, created.strftime("%Y-%m-%d %H:%M:%S"), random.randint(500, 60000), status),
    )
    if random.random() < 0.12:
        total = db.execute("SELECT total_cents FROM orders WHERE id = ?", (oid,)).fetchone()[0]
        for _ in range(random.randint(1, 2)):
            db.execute(
                "INSERT INTO refunds (order_id, amount_cents, refunded_at) VALUES (?, ?, ?)",
                (oid, random.randint(100, total // 2), (created + datetime.timedelta(days=random.randint(1, 40))).strftime("%Y-%m-%d %H:%M:%S")),
            )
db.commit()
