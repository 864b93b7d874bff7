import os
import shutil
import subprocess
import time

import pytest


@pytest.fixture()
def proj(tmp_path):
    d = tmp_path / "p"
    shutil.copytree("/app", d)
    subprocess.run(["make", "-C", str(d), "clean"], capture_output=True, timeout=60)
    return d


def make(d):
    r = subprocess.run(["make", "-C", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r


def out(d):
    return subprocess.run([str(d / "app")], capture_output=True, text=True, timeout=10).stdout


def edit(path, old, new):
    time.sleep(1.1)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_fresh_build(proj):
    make(proj)
    assert out(proj) == "HELLO\nHELLO\n"


def test_config_header_change_rebuilds(proj):
    make(proj)
    edit(proj / "config.h", '"hello"', '"bye"')
    edit(proj / "config.h", "REPEAT 2", "REPEAT 3")
    make(proj)
    assert out(proj) == "BYE\nBYE\nBYE\n"


def test_util_header_change_rebuilds_both(proj):
    make(proj)
    edit(
        proj / "util.h",
        "void shout(const char *s, int times);",
        "void shout(const char *s, int times);\n#define EXTRA 1",
    )
    r = make(proj)
    assert "main.c" in r.stdout and "util.c" in r.stdout


def test_new_header_tracked(proj):
    make(proj)
    (proj / "extra.h").write_text("#define EXTRA_TIMES 1\n")
    edit(proj / "main.c", '#include "util.h"', '#include "util.h"\n#include "extra.h"')
    make(proj)
    edit(proj / "main.c", "shout(GREETING, REPEAT);", "shout(GREETING, REPEAT + EXTRA_TIMES);")
    make(proj)
    assert out(proj) == "HELLO\n" * 3
    edit(proj / "extra.h", "EXTRA_TIMES 1", "EXTRA_TIMES 2")
    make(proj)
    assert out(proj) == "HELLO\n" * 4


def test_nothing_to_do_when_unchanged(proj):
    make(proj)
    r = make(proj)
    assert " -c " not in r.stdout


def test_clean_removes_artefacts(proj):
    make(proj)
    subprocess.run(["make", "-C", str(proj), "clean"], capture_output=True, timeout=60)
    left = sorted(os.listdir(proj))
    assert left == ["Makefile", "config.h", "main.c", "util.c", "util.h"]
