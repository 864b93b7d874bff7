import os
import subprocess

import pytest

SRC = "/app/src"


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    d = tmp_path_factory.mktemp("build")
    srcs = sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c"))
    exe = str(d / "prog")
    r = subprocess.run(["cc", "-g", "-O0", "-Wall", "-o", exe, *srcs, "-lm"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return exe


def run(exe, args=(), stdin="", timeout=20):
    return subprocess.run([exe, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def valgrind(exe, args=(), stdin=""):
    r = subprocess.run(
        ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
         "--track-origins=yes", exe, *args],
        input=stdin, capture_output=True, text=True, timeout=60,
    )
    assert r.returncode != 99 and "Invalid" not in r.stderr and "uninitialised" not in r.stderr, r.stderr[-3000:]
    assert r.returncode >= 0, r.stderr[-2000:]
    return r

import random


def reference(csv):
    lines = csv.splitlines()
    names = lines[0].split(",")
    vals = [[] for _ in names]
    for line in lines[1:]:
        for i, cell in enumerate(line.split(",")[: len(names)]):
            if cell:
                vals[i].append(float(cell))
    out = []
    for name, v in zip(names, vals):
        if v:
            out.append(f"{name} count={len(v)} min={min(v):.6f} max={max(v):.6f} mean={sum(v) / len(v):.6f}")
        else:
            out.append(f"{name} count=0")
    return "\n".join(out) + "\n"


def make_csv(seed, ncols, nrows):
    rng = random.Random(seed)
    lines = [",".join(f"c{i}" for i in range(ncols))]
    for _ in range(nrows):
        cells = []
        for i in range(rng.randint(1, ncols + 2)):
            cells.append("" if rng.random() < 0.2 else str(round(rng.uniform(1, 500) * (1 if i % 3 else -1), 3)))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def test_positive_column_min(prog):
    csv = "a,b\n5,7\n3,\n9,8\n"
    assert run(prog, stdin=csv).stdout == "a count=3 min=3.000000 max=9.000000 mean=5.666667\nb count=2 min=7.000000 max=8.000000 mean=7.500000\n"


def test_empty_column(prog):
    csv = "x,y,z\n1,,\n2\n"
    assert run(prog, stdin=csv).stdout == reference(csv)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random(prog, seed):
    csv = make_csv(seed, 7, 300)
    assert run(prog, stdin=csv).stdout == reference(csv)


def test_many_columns(prog):
    csv = make_csv(4, 64, 50)
    assert run(prog, stdin=csv).stdout == reference(csv)


@pytest.mark.parametrize("seed", [5, 6])
def test_valgrind_clean(prog, seed):
    csv = make_csv(seed, 5, 40)
    assert valgrind(prog, stdin=csv).stdout == reference(csv)


def test_installed_binary():
    csv = make_csv(9, 4, 100)
    assert run("/app/colstats", stdin=csv).stdout == reference(csv)
