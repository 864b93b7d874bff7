import hashlib
import subprocess

import pytest


def users(*args):
    return subprocess.run(["python3", "/app/users.py", *args], capture_output=True, text=True, timeout=20)


def test_lookup():
    r = users("lookup", "alice")
    assert (r.returncode, r.stdout) == (0, "alice@example.com\n")
    r = users("lookup", "O'Brien")
    assert (r.returncode, r.stdout) == (0, "obrien@example.com\n")
    assert users("lookup", "nobody").returncode == 1


def test_login():
    assert users("login", "bob", "builder").stdout == "ok\n"
    assert users("login", "O'Brien", "shamrock").stdout == "ok\n"
    r = users("login", "bob", "wrong")
    assert (r.returncode, r.stdout) == (1, "denied\n")


def test_search_literal():
    assert users("search", "ali").stdout == "ali\nalice\n"
    assert users("search", "O'").stdout == "O'Brien\n"
    assert users("search", "50%").stdout == "50%off\n"
    assert users("search", "%").stdout == ""
    assert users("search", "_lice").stdout == ""


@pytest.mark.parametrize("name", [
    "x' OR '1'='1",
    "' OR 1=1 --",
    "' UNION SELECT hash FROM users --",
    "' UNION SELECT group_concat(email) FROM users --",
    "alice' OR name='admin",
])
def test_lookup_injection(name):
    r = users("lookup", name)
    assert r.returncode == 1
    assert "@" not in r.stdout


@pytest.mark.parametrize("name,pw", [
    ("admin' --", "x"),
    ("' UNION SELECT 'a', '%s' --" % hashlib.sha256(b"ab").hexdigest(), "b"),
    ("admin' OR '1'='1", "x"),
])
def test_login_injection(name, pw):
    r = users("login", name, pw)
    assert r.returncode == 1
    assert r.stdout == "denied\n"


@pytest.mark.parametrize("prefix", ["' OR 1=1 --", "%' UNION SELECT email FROM users --", "' OR name LIKE '"])
def test_search_injection(prefix):
    r = users("search", prefix)
    assert "@" not in r.stdout
    assert "admin" not in r.stdout


def test_database_unchanged():
    out = subprocess.run(["sqlite3", "/app/users.db", "SELECT count(*), group_concat(name) FROM users"],
                         capture_output=True, text=True, timeout=20).stdout.strip()
    assert out.startswith("6|")
