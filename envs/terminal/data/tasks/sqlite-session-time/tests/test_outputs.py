"""Checks /app/sessions.csv, per-user session time from the events database."""

import csv

import pytest


def read(path: str) -> list[list[str]]:
    with open(path, newline="") as f:
        return [row for row in csv.reader(f) if row]


@pytest.fixture(scope="module")
def got():
    return read("/app/sessions.csv")


@pytest.fixture(scope="module")
def expected():
    return read("/tests/expected.csv")


def by_handle(rows: list[list[str]]) -> dict[str, list[str]]:
    return {r[0]: r[1:] for r in rows[1:]}


def test_header(got):
    assert got[0] == ["handle", "sessions", "total_seconds", "longest_seconds"]


def test_session_counts(got, expected):
    assert {h: v[0] for h, v in by_handle(got).items()} == {h: v[0] for h, v in by_handle(expected).items()}


def test_total_seconds(got, expected):
    assert {h: v[1] for h, v in by_handle(got).items()} == {h: v[1] for h, v in by_handle(expected).items()}


def test_longest(got, expected):
    assert {h: v[2] for h, v in by_handle(got).items()} == {h: v[2] for h, v in by_handle(expected).items()}


def test_order(got, expected):
    assert got == expected


def test_database_unchanged():
    import sqlite3

    db = sqlite3.connect("file:/app/events.db?mode=ro", uri=True)
    assert db.execute("SELECT COUNT(*), SUM(user_id) FROM events").fetchone() == tuple(
        int(x) for x in open("/tests/events_count.txt").read().split()
    )
