"""Checks /app/summary.json, the per-service request summary over the node logs."""

import json

import pytest

SERVICES = ["api", "auth", "billing", "search"]


@pytest.fixture(scope="module")
def got():
    with open("/app/summary.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def expected():
    with open("/tests/expected.json") as f:
        return json.load(f)


def test_services(got):
    assert sorted(got) == SERVICES


@pytest.mark.parametrize("service", SERVICES)
def test_counts(got, expected, service):
    assert got[service]["requests"] == expected[service]["requests"]
    assert got[service]["errors"] == expected[service]["errors"]


@pytest.mark.parametrize("service", SERVICES)
def test_error_rate(got, expected, service):
    assert abs(got[service]["error_rate"] - expected[service]["error_rate"]) < 1e-9


@pytest.mark.parametrize("service", SERVICES)
def test_latency(got, expected, service):
    assert got[service]["p95_latency_ms"] == pytest.approx(expected[service]["p95_latency_ms"])
    assert got[service]["max_latency_ms"] == pytest.approx(expected[service]["max_latency_ms"])
