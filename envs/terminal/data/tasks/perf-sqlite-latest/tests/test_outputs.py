"""Checks /app/latest.sh on fresh databases: same answers as a reference, fast on 400,000 rows."""

import sqlite3
import os
import signal
import subprocess

import pytest


def run_group(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Runs cmd in its own process group; on timeout kills the whole group (no orphans keep running)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def make(path, rows: int, seed: int) -> str:
    subprocess.run(["python3", "/tests/make_db.py", str(path), str(rows), str(seed)], check=True, timeout=60)
    return str(path)


def reference(db: str) -> list[str]:
    con = sqlite3.connect(db)
    best: dict[int, tuple[int, float]] = {}
    for sensor, ts, value in con.execute("SELECT sensor_id, ts, value FROM readings"):
        if sensor not in best or ts > best[sensor][0]:
            best[sensor] = (ts, value)
    con.close()
    return [f"{s}|{ts}|{v}" for s, (ts, v) in sorted(best.items())]


def normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        s, ts, v = line.split("|")
        out.append(f"{int(s)}|{int(ts)}|{float(v)}")
    return out


def latest(db: str, timeout: float) -> list[str]:
    out = run_group(["bash", "/app/latest.sh", db], timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return normalise(out.stdout.split())


def readings(db: str) -> list[tuple]:
    con = sqlite3.connect(db)
    rows = con.execute("SELECT id, sensor_id, ts, value FROM readings ORDER BY id").fetchall()
    con.close()
    return rows


def test_small(tmp_path):
    db = make(tmp_path / "small.db", 2000, 11)
    assert latest(db, 20) == normalise(reference(db))


def test_large_and_fast(tmp_path):
    db = make(tmp_path / "large.db", 400_000, 4622)
    want = normalise(reference(db))
    assert latest(db, 15) == want


def test_readings_untouched(tmp_path):
    db = make(tmp_path / "keep.db", 5000, 12)
    before = readings(db)
    latest(db, 20)
    assert readings(db) == before


@pytest.mark.parametrize("rows", [1, 3])
def test_tiny(tmp_path, rows):
    db = make(tmp_path / f"tiny{rows}.db", rows, rows)
    assert latest(db, 20) == normalise(reference(db))
