"""Checks /app/reconcile.json against the known differences between bank.csv and ledger.csv."""

import json

import pytest


@pytest.fixture(scope="module")
def got():
    with open("/app/reconcile.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def expected():
    with open("/tests/expected.json") as f:
        return json.load(f)


def test_keys(got):
    assert set(got) == {"missing_in_ledger", "missing_in_bank", "amount_mismatch"}


def test_missing_in_ledger(got, expected):
    assert got["missing_in_ledger"] == expected["missing_in_ledger"]


def test_missing_in_bank(got, expected):
    assert got["missing_in_bank"] == expected["missing_in_bank"]


def test_mismatched_refs(got, expected):
    assert [m["ref"] for m in got["amount_mismatch"]] == [m["ref"] for m in expected["amount_mismatch"]]


def test_mismatched_amounts(got, expected):
    assert got["amount_mismatch"] == expected["amount_mismatch"]
