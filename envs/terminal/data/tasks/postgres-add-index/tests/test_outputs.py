"""Checks the metrics database on 127.0.0.1:5432: data loaded, dashboard query served by an index."""

import json
import os
import subprocess

DASHBOARD = """
SELECT date_trunc('hour', ts) AS hour, count(*) AS n, round(avg(value)::numeric, 3) AS mean
FROM samples
WHERE host = '{host}'
  AND ts >= '{day} 00:00:00+00' AND ts < '{day} 00:00:00+00'::timestamptz + interval '1 day'
GROUP BY 1
ORDER BY 1
"""


def psql(*args: str) -> str:
    env = dict(os.environ, PGPASSWORD="dash-pw", PGCONNECT_TIMEOUT="5", PGTZ="UTC")
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "dash", "-d", "metrics", "-At", "-v", "ON_ERROR_STOP=1",
         *args],
        capture_output=True, text=True, timeout=15, env=env,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def node_types(plan: dict) -> list[str]:
    found = [plan["Node Type"]]
    for child in plan.get("Plans", []):
        found += node_types(child)
    return found


def test_rows_loaded():
    assert psql("-c", "select count(*), count(distinct host) from samples").strip() == "240000|40"


def test_dashboard_file_untouched():
    with open("/app/dashboard.sql") as f:
        text = f.read()
    assert "WHERE host = 'web-07'" in text and "FROM samples" in text


def test_dashboard_results():
    expected = json.load(open("/tests/expected.json"))
    lines = psql("-F", "|", "-f", "/app/dashboard.sql").splitlines()
    got = {}
    for line in lines:
        hour, n, mean = line.split("|")
        got[hour] = (int(n), float(mean))
    assert lines
    assert sorted(got) == sorted(expected)
    for hour, (n, mean) in expected.items():
        assert got[hour][0] == n
        assert abs(got[hour][1] - mean) <= 0.0011


def test_statistics_current():
    assert float(psql("-c", "select reltuples from pg_class where relname = 'samples'").strip()) > 200000


def test_no_sequential_scan():
    for host, day in [("web-07", "2024-03-15"), ("web-31", "2024-03-20"), ("web-02", "2024-03-25")]:
        plan = json.loads(psql("-c", "EXPLAIN (FORMAT JSON) " + DASHBOARD.format(host=host, day=day)))[0]["Plan"]
        types = node_types(plan)
        assert not any("Seq Scan" in t for t in types), types
        assert any("Index" in t for t in types), types
