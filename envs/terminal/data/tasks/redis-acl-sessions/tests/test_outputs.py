"""Checks the ACL-locked session store on 127.0.0.1:6392."""

import json
import subprocess


def cli(user: str | None, password: str | None, *args: str) -> str:
    cmd = ["redis-cli", "-h", "127.0.0.1", "-p", "6392", "--no-auth-warning"]
    if user is not None:
        cmd += ["--user", user, "--pass", password or ""]
    out = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=10)
    return (out.stdout + out.stderr).strip()


def admin(*args: str) -> str:
    return cli("admin", "admin-6392", *args)


def webapp(*args: str) -> str:
    return cli("webapp", "webapp-6392", *args)


def sessions() -> list[dict]:
    with open("/tests/sessions.json") as f:
        return json.load(f)["sessions"]


def test_admin_can_do_everything():
    assert admin("ping") == "PONG"
    assert admin("set", "probe:admin", "1") == "OK"
    assert admin("del", "probe:admin") == "1"
    assert "ERR" not in admin("config", "get", "port")


def test_default_user_disabled():
    out = cli(None, None, "get", "session:x")
    assert "NOAUTH" in out or "NOPERM" in out


def test_webapp_allowed_commands():
    assert webapp("set", "session:probe", "x", "EX", "60") == "OK"
    assert webapp("get", "session:probe") == "x"
    assert webapp("exists", "session:probe") == "1"
    assert webapp("expire", "session:probe", "120") == "1"
    assert 0 < int(webapp("ttl", "session:probe")) <= 120
    assert webapp("del", "session:probe") == "1"


def test_webapp_other_keys_refused():
    assert "NOPERM" in webapp("set", "config:x", "1")
    assert "NOPERM" in webapp("get", "user:1")


def test_webapp_other_commands_refused():
    assert "NOPERM" in webapp("keys", "*")
    assert "NOPERM" in webapp("flushall")
    assert "NOPERM" in webapp("config", "get", "port")
    assert "NOPERM" in webapp("incr", "session:counter")


def test_wrong_password_refused():
    assert "PONG" not in cli("webapp", "nope", "ping")


def test_sessions_loaded_with_ttl():
    rows = sessions()
    for row in rows:
        key = f"session:{row['id']}"
        assert admin("get", key) == row["user"], key
        ttl = int(admin("ttl", key))
        assert 0 < ttl <= row["ttl"], (key, ttl)
    assert int(admin("dbsize")) == len(rows)
