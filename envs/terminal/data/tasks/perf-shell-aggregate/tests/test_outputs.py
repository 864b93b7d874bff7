"""Checks /app/aggregate.sh: same output as the original on small files, fast on 400,000 lines."""

import random
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


def reference(rows: list[tuple[str, str, str, int, str]]) -> str:
    units: dict[str, int] = {}
    cents: dict[str, int] = {}
    for _, region, _, n, price in rows:
        units[region] = units.get(region, 0) + n
        cents[region] = cents.get(region, 0) + n * int(price.replace(".", ""))
    return "".join(f"{r},{units[r]},{cents[r] // 100}.{cents[r] % 100:02d}\n" for r in sorted(units))


def sales(rng: random.Random, n: int, regions: list[str]) -> list[tuple[str, str, str, int, str]]:
    return [
        (
            f"2024-03-{rng.randint(1, 31):02d}",
            rng.choice(regions),
            f"{rng.choice('ABCDEFG')}-{rng.randint(1, 99)}",
            rng.randint(1, 500),
            f"{rng.randint(0, 99999)}.{rng.randint(0, 99):02d}",
        )
        for _ in range(n)
    ]


def run(tmp_path, rows, timeout: float) -> str:
    path = tmp_path / "sales.csv"
    path.write_text("date,region,sku,units,unit_price\n" + "".join(f"{d},{r},{s},{u},{p}\n" for d, r, s, u, p in rows))
    out = run_group(["bash", "/app/aggregate.sh", str(path)], timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_example():
    out = subprocess.run(["bash", "/app/aggregate.sh", "/app/sales.csv"], capture_output=True, text=True, timeout=20)
    assert out.stdout == "east,10,0.50\nnorth,5,99.95\nsouth,1,250.00\n"


@pytest.mark.parametrize("seed", range(3))
def test_small(tmp_path, seed):
    rng = random.Random(seed)
    rows = sales(rng, 60, ["north", "south", "east", "west", "northeast", "Z_region"])
    assert run(tmp_path, rows, 20) == reference(rows)


def test_small_prices(tmp_path):
    rows = [
        ("2024-03-01", "x", "A-1", 1, "0.01"),
        ("2024-03-01", "x", "A-1", 3, "0.09"),
        ("2024-03-01", "y", "A", 7, "10.00"),
    ]
    assert run(tmp_path, rows, 20) == reference(rows)


def test_large_and_exact(tmp_path):
    rng = random.Random(4623)
    regions = [f"region-{i:02d}" for i in range(40)]
    rows = sales(rng, 400_000, regions)
    assert run(tmp_path, rows, 15) == reference(rows)
