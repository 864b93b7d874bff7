import os
import subprocess

import pytest

SRC = "/app/src"


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    d = tmp_path_factory.mktemp("build")
    srcs = sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c"))
    exe = str(d / "prog")
    r = subprocess.run(
        ["cc", "-g", "-O0", "-Wall", "-o", exe, *srcs, "-lm"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return exe


def run(exe, args=(), stdin="", timeout=20):
    return subprocess.run([exe, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def valgrind(exe, args=(), stdin=""):
    r = subprocess.run(
        [
            "valgrind",
            "-q",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite",
            "--track-origins=yes",
            exe,
            *args,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 99 and "Invalid" not in r.stderr and "uninitialised" not in r.stderr, r.stderr[-3000:]
    assert r.returncode >= 0, r.stderr[-2000:]
    return r


CASES = [
    ("name = demo\nport=8080\n", "name=demo\nport=8080\n"),
    ("# only a comment\n\n  \nmode = fast # inline\n", "mode=fast\n"),
    ("novalue\nkey =\n = orphan\n", "key=\n"),
    ("a = b = c\n   spaced   =   out   \n", "a=b = c\nspaced=out\n"),
    ("\n\n\n", ""),
    ("x=\t\n#\n=\n", "x=\n"),
]


@pytest.mark.parametrize("text,want", CASES)
def test_output(prog, text, want):
    r = run(prog, stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


def test_empty_key_reported(prog):
    r = run(prog, stdin=" = orphan\nk=v\n")
    assert "line 1: empty key" in r.stderr
    assert r.stdout == "k=v\n"


@pytest.mark.parametrize("text,want", CASES[1:4])
def test_valgrind_clean(prog, text, want):
    assert valgrind(prog, stdin=text).stdout == want


def test_installed_binary_fixed():
    r = run("/app/confnorm", stdin="# c\n\nz = 1\n")
    assert r.returncode == 0 and r.stdout == "z=1\n"
