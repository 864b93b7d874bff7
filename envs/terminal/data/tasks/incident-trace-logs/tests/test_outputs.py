"""Checks /app/incident.txt against the known incident facts."""

import pytest

KEYS = ["version", "request_id", "user_email", "exception", "errors_after_deploy"]


def parse(path: str) -> dict[str, str]:
    with open(path) as f:
        return dict(line.strip().split("=", 1) for line in f if line.strip())


@pytest.fixture(scope="module")
def got():
    return parse("/app/incident.txt")


@pytest.fixture(scope="module")
def expected():
    return parse("/tests/expected.txt")


def test_keys(got):
    assert list(got) == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_value(got, expected, key):
    assert got[key] == expected[key]
