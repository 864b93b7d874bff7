"""Checks /app/failed_by_user.tsv, failed SSH passwords per user."""

import pytest


def read(path: str) -> list[str]:
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


@pytest.fixture(scope="module")
def got():
    return read("/app/failed_by_user.tsv")


@pytest.fixture(scope="module")
def expected():
    return read("/tests/expected.tsv")


def test_tab_separated(got):
    assert got and all(len(line.split("\t")) == 2 for line in got)


def test_users(got, expected):
    assert sorted(line.split("\t")[0] for line in got) == sorted(line.split("\t")[0] for line in expected)


def test_invalid_users_counted(got, expected):
    counts = dict(line.split("\t") for line in got)
    for user in ("oracle", "guest", "pi"):
        assert counts.get(user) == dict(line.split("\t") for line in expected)[user]


def test_counts(got, expected):
    assert dict(line.split("\t") for line in got) == dict(line.split("\t") for line in expected)


def test_order(got, expected):
    assert got == expected
