"""Checks /app/report.txt, the busiest hour of the access log."""

import pytest


def parse(path: str) -> dict[str, str]:
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    return dict(line.split("=", 1) for line in lines)


@pytest.fixture(scope="module")
def report():
    return parse("/app/report.txt")


@pytest.fixture(scope="module")
def expected():
    return parse("/tests/expected.txt")


def test_exact_keys(report):
    assert list(report) == ["busiest_hour", "requests", "unique_ips", "top_path"]


@pytest.mark.parametrize("key", ["busiest_hour", "requests", "unique_ips", "top_path"])
def test_value(report, expected, key):
    assert report[key] == expected[key]
