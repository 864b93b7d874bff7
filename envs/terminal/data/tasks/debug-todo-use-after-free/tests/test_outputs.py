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


def reference(cmds):
    tasks, out = [], []
    for line in cmds.splitlines():
        parts = line.split(" ", 2)
        if parts[0] == "add":
            prio, text = int(parts[1]), parts[2]
            i = 0
            while i < len(tasks) and tasks[i][0] <= prio:
                i += 1
            tasks.insert(i, (prio, text))
        elif parts[0] == "done":
            text = line[5:]
            tasks = [t for t in tasks if t[1] != text]
        elif parts[0] == "drop":
            tasks = [t for t in tasks if t[0] > int(parts[1])]
        elif line == "list":
            out += [f"{p} {t}" for p, t in tasks] + ["--"]
    return "".join(x + "\n" for x in out)


def script(seed, n):
    rng = random.Random(seed)
    names = [f"task {i}" for i in range(12)]
    lines = []
    for _ in range(n):
        k = rng.random()
        if k < 0.5:
            lines.append(f"add {rng.randint(1, 9)} {rng.choice(names)}")
        elif k < 0.75:
            lines.append(f"done {rng.choice(names)}")
        elif k < 0.85:
            lines.append(f"drop {rng.randint(0, 4)}")
        else:
            lines.append("list")
    return "\n".join(lines + ["list"]) + "\n"


FIXED = "add 2 write\nadd 1 read\nadd 2 write\nadd 3 ship\nlist\ndone write\nlist\ndone read\nlist\n"


def test_done_removes_duplicates_and_head(prog):
    assert run(prog, stdin=FIXED).stdout == reference(FIXED)


def test_drop(prog):
    cmds = "add 1 a\nadd 2 b\nadd 3 c\nadd 1 d\ndrop 2\nlist\ndrop 9\nlist\n"
    assert run(prog, stdin=cmds).stdout == "3 c\n--\n--\n"


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_random_scripts(prog, seed):
    cmds = script(seed, 400)
    r = run(prog, stdin=cmds)
    assert r.returncode == 0, r.stderr
    assert r.stdout == reference(cmds)


@pytest.mark.parametrize("seed", [21, 22])
def test_valgrind_clean(prog, seed):
    cmds = script(seed, 150)
    assert valgrind(prog, stdin=cmds).stdout == reference(cmds)


def test_valgrind_fixed_script(prog):
    assert valgrind(prog, stdin=FIXED).stdout == reference(FIXED)


def test_installed_binary():
    assert run("/app/todo", stdin=FIXED).stdout == reference(FIXED)
