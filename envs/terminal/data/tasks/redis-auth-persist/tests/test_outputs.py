"""Checks the Redis user directory on 127.0.0.1:6390 (auth, AOF persistence, loaded data)."""

import collections
import csv
import os
import subprocess

PASSWORD = "harbor-6390-pass"


def cli(*args: str, password: str | None = PASSWORD) -> str:
    env = dict(os.environ)
    env.pop("REDISCLI_AUTH", None)
    if password is not None:
        env["REDISCLI_AUTH"] = password
    out = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", "6390", *args],
        capture_output=True, text=True, timeout=10, env=env,
    )
    return out.stdout.strip()


def users() -> list[dict[str, str]]:
    with open("/tests/users.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_ping_with_password():
    assert cli("ping") == "PONG"


def test_password_required():
    assert "NOAUTH" in cli("get", "user:1", password=None)
    assert "PONG" not in cli("ping", password="wrong-password")


def test_append_only_persistence():
    assert cli("config", "get", "appendonly").splitlines() == ["appendonly", "yes"]
    assert cli("config", "get", "appendfsync").splitlines() == ["appendfsync", "everysec"]
    assert cli("config", "get", "dir").splitlines() == ["dir", "/var/lib/redis-users"]
    names = os.listdir("/var/lib/redis-users")
    assert any(n.endswith(".aof") or n == "appendonlydir" for n in names), names


def test_listens_on_loopback_only():
    bind = cli("config", "get", "bind").splitlines()[1].split()
    assert bind and all(a in ("127.0.0.1", "-127.0.0.1") for a in bind), bind


def test_user_hashes():
    for row in users():
        lines = cli("hgetall", f"user:{row['id']}").splitlines()
        got = dict(zip(lines[::2], lines[1::2]))
        assert got == {"name": row["name"], "email": row["email"], "plan": row["plan"]}, row["id"]


def test_plan_sets():
    by_plan = collections.defaultdict(set)
    for row in users():
        by_plan[row["plan"]].add(row["id"])
    for plan, ids in by_plan.items():
        assert set(cli("smembers", f"plan:{plan}").splitlines()) == ids, plan


def test_no_other_keys():
    rows = users()
    plans = {r["plan"] for r in rows}
    assert int(cli("dbsize")) == len(rows) + len(plans)
