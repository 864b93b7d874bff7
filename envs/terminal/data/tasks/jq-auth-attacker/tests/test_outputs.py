"""Checks /app/answer.json against the known attacker in the auth log."""

import json

import pytest


@pytest.fixture(scope="module")
def answer():
    with open("/app/answer.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def expected():
    with open("/tests/expected.json") as f:
        return json.load(f)


def test_ip(answer, expected):
    assert answer["ip"] == expected["ip"]


def test_failures(answer, expected):
    assert answer["failures"] == expected["failures"]


def test_users_targeted(answer, expected):
    assert answer["users_targeted"] == expected["users_targeted"]


def test_compromised_user(answer, expected):
    assert answer["compromised_user"] == expected["compromised_user"]


def test_first_failure(answer, expected):
    assert answer["first_failure"] == expected["first_failure"]
