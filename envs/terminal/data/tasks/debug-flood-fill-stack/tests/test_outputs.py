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


def reference(w, h, rows):
    seen = bytearray(w * h)
    regions = largest = 0
    for start in range(w * h):
        if seen[start] or rows[start // w][start % w] != "#":
            continue
        seen[start] = 1
        stack, n = [start], 0
        while stack:
            i = stack.pop()
            n += 1
            x, y = i % w, i // w
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < w and 0 <= ny < h:
                    j = ny * w + nx
                    if not seen[j] and rows[ny][nx] == "#":
                        seen[j] = 1
                        stack.append(j)
        regions += 1
        largest = max(largest, n)
    return f"regions {regions} largest {largest}\n"


def text(w, h, rows):
    return f"{w} {h}\n" + "".join(r + "\n" for r in rows)


def rand_rows(seed, w, h, p):
    rng = random.Random(seed)
    return ["".join("#" if rng.random() < p else "." for _ in range(w)) for _ in range(h)]


def test_wraparound_edges(prog):
    rows = ["#..#", "#..#", "...."]
    assert run(prog, stdin=text(4, 3, rows)).stdout == "regions 2 largest 2\n"
    rows = ["##.", ".##", "#.#"]
    assert run(prog, stdin=text(3, 3, rows)).stdout == reference(3, 3, rows)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_small(prog, seed):
    rows = rand_rows(seed, 37, 23, 0.55)
    assert run(prog, stdin=text(37, 23, rows)).stdout == reference(37, 23, rows)


@pytest.mark.parametrize("seed", [5, 6])
def test_valgrind_clean(prog, seed):
    rows = rand_rows(seed, 30, 20, 0.6)
    assert valgrind(prog, stdin=text(30, 20, rows)).stdout == reference(30, 20, rows)


def test_huge_single_region(prog):
    w = h = 3000
    rows = ["#" * w] * h
    r = run(prog, stdin=text(w, h, rows), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"regions 1 largest {w * h}\n"


def test_huge_serpentine(prog):
    w = h = 2001
    rows = []
    for y in range(h):
        if y % 2 == 0:
            rows.append("#" * w)
        elif y % 4 == 1:
            rows.append("." * (w - 1) + "#")
        else:
            rows.append("#" + "." * (w - 1))
    expected = w * ((h + 1) // 2) + (h // 2)
    r = run(prog, stdin=text(w, h, rows), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"regions 1 largest {expected}\n"


def test_installed_binary_large():
    rows = ["#" * 2500] * 2500
    r = run("/app/regions", stdin=text(2500, 2500, rows), timeout=60)
    assert r.stdout == f"regions 1 largest {2500 * 2500}\n"
