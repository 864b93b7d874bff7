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

import collections
import random
import re


def reference(text, n):
    words = [w.lower()[:63] for w in re.findall(r"[A-Za-z]+", text)]
    counts = collections.Counter(words)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return "".join(f"{c} {w}\n" for w, c in ranked)


def corpus(seed, nwords, vocab):
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 12))) for _ in range(vocab)]
    return " ".join(rng.choice(words).upper() if rng.random() < 0.1 else rng.choice(words) for _ in range(nwords))


def test_small_text(prog):
    text = "The cat and the hat. THE end, and..."
    assert run(prog, ["3"], text).stdout == "3 the\n2 and\n1 cat\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_many_distinct_words(prog, seed):
    text = corpus(seed, 20000, 3000)
    r = run(prog, ["25"], text)
    assert r.returncode == 0, r.stderr
    assert r.stdout == reference(text, 25)


def test_long_words_truncated(prog):
    text = ("x" * 200 + " ") * 3 + "y" * 63 + " " + "Q" * 64
    r = run(prog, ["5"], text)
    assert r.returncode == 0
    assert r.stdout == reference(text, 5)


def test_valgrind_clean_growth(prog):
    text = corpus(9, 3000, 600)
    assert valgrind(prog, ["10"], text).stdout == reference(text, 10)


def test_valgrind_clean_long_word(prog):
    valgrind(prog, ["3"], "a" * 300 + " bb bb")


def test_installed_binary():
    text = corpus(5, 5000, 1000)
    assert run("/app/wordfreq", ["7"], text).stdout == reference(text, 7)
