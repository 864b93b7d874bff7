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


def reference(text):
    counts = {}
    for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
        counts[line] = counts.get(line, 0) + 1
    return "".join(f"{c}\t{line}\n" for line, c in counts.items())


def lines(seed, n, k):
    rng = random.Random(seed)
    return "".join(f"item-{rng.randint(0, k)}\n" for _ in range(n))


def test_small(prog):
    text = "b\na\nb\n\nc\na\nb\n"
    r = run(prog, stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "3\tb\n2\ta\n1\t\n1\tc\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_lines(prog, seed):
    text = lines(seed, 3000, 200)
    r = run(prog, stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout == reference(text)


def test_no_trailing_newline(prog):
    assert run(prog, stdin="x\ny\nx").stdout == "2\tx\n1\ty\n"


@pytest.mark.parametrize("seed", [7, 8])
def test_valgrind_clean(prog, seed):
    text = lines(seed, 300, 40)
    assert valgrind(prog, stdin=text).stdout == reference(text)


def test_vec_api_still_owns_items():
    with open("/app/src/vec.h") as f:
        assert "void vec_free(vec *v);" in f.read()


def test_installed_binary():
    text = lines(4, 500, 30)
    assert run("/app/uniqc", stdin=text).stdout == reference(text)
