"""Checks /app/top_customers.csv (top five customers by Q3 2023 net revenue)."""

import csv
import hashlib

import pytest


def read(path: str) -> list[list[str]]:
    with open(path, newline="") as f:
        return [row for row in csv.reader(f) if row]


@pytest.fixture(scope="module")
def got():
    return read("/app/top_customers.csv")


@pytest.fixture(scope="module")
def expected():
    return read("/tests/expected.csv")


def test_header(got):
    assert got[0] == ["name", "net_revenue", "orders"]


def test_five_rows(got):
    assert len(got) == 6


def test_names_in_order(got, expected):
    assert [r[0] for r in got[1:]] == [r[0] for r in expected[1:]]


def test_net_revenue(got, expected):
    assert [r[1] for r in got[1:]] == [r[1] for r in expected[1:]]


def test_order_counts(got, expected):
    assert [r[2] for r in got[1:]] == [r[2] for r in expected[1:]]


def test_database_unchanged():
    import sqlite3

    db = sqlite3.connect("file:/app/shop.db?mode=ro", uri=True)
    digest = hashlib.sha256()
    for table in ("customers", "orders", "refunds"):
        for row in db.execute(f"SELECT * FROM {table} ORDER BY 1"):
            digest.update(repr(row).encode())
    assert digest.hexdigest() == open("/tests/db.sha256").read().strip()
