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


def make(d, *args):
    return subprocess.run(["make", "-C", str(d), *args], capture_output=True, text=True, timeout=60)


def sq(d, *args):
    return subprocess.run([str(d / "sq"), *args], capture_output=True, text=True, timeout=10).stdout.split("\n")


def test_parallel_clean_build(proj):
    for _ in range(2):
        r = make(proj, "-j8")
        assert r.returncode == 0, r.stderr
        assert sq(proj, "7")[:2] == ["49", "sum 328350"]
        make(proj, "clean")


def test_serial_clean_build(proj):
    r = make(proj)
    assert r.returncode == 0, r.stderr
    assert sq(proj, "9", "100")[:3] == ["81", "-1", "sum 328350"]


def test_changing_n_rebuilds(proj):
    assert make(proj, "-j4").returncode == 0
    r = make(proj, "-j4", "N=50")
    assert r.returncode == 0, r.stderr
    assert sq(proj, "60")[:2] == ["-1", "sum 40425"]


def test_changing_generator_rebuilds(proj):
    assert make(proj, "-j4").returncode == 0
    time.sleep(1.1)
    g = proj / "gen_table.py"
    g.write_text(g.read_text().replace("str(i * i)", "str(2 * i * i)"))
    assert make(proj, "-j4").returncode == 0
    assert sq(proj, "3")[:2] == ["18", "sum 656700"]


def test_clean_removes_generated(proj):
    make(proj, "-j4")
    make(proj, "clean")
    assert sorted(p.name for p in proj.iterdir()) == ["Makefile", "gen_table.py", "lookup.c", "main.c", "sum.c"]
