"""Runs /app/report.sql as the reporter role over 127.0.0.1 and compares with the expected report."""

import os
import subprocess


def psql(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PGPASSWORD="reporter-pw", PGCONNECT_TIMEOUT="5")
    return subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "reporter", "-d", "shop", "-v", "ON_ERROR_STOP=1", *args],
        capture_output=True, text=True, timeout=15, env=env,
    )


def expected() -> list[str]:
    with open("/tests/expected.txt") as f:
        return f.read().split()


def test_reporter_reads_tables():
    out = psql("-At", "-c", "select (select count(*) from customers), (select count(*) from orders), "
               "(select count(*) from order_items)")
    assert out.returncode == 0, out.stderr
    customers, orders, items = (int(x) for x in out.stdout.strip().split("|"))
    assert customers == 62 and orders == 701 and items > 700


def test_reporter_not_superuser():
    out = psql("-At", "-c", "select rolsuper from pg_roles where rolname = current_user")
    assert out.stdout.strip() == "f"


def test_report_output():
    out = psql("-At", "-F", "|", "-f", "/app/report.sql")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == expected()


def test_report_is_a_query():
    with open("/app/report.sql") as f:
        text = f.read()
    assert "order_items" in text
    for line in expected():
        amount = line.split("|")[1]
        if amount != "0.00":
            assert amount not in text, "the report hard-codes a result"
