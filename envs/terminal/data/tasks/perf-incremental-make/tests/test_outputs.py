"""Checks /app/proj/Makefile: correct from clean (also -j4), and incremental by file times."""

import os
import shutil
import subprocess
import time

import pytest

EXPECTED = "area       12.0000\nmean       3.5000\nvariance   0.2500\n"
OBJECTS = ["geom", "main", "stats", "util"]


@pytest.fixture
def proj(tmp_path):
    dest = tmp_path / "proj"
    shutil.copytree("/app/proj", dest)
    subprocess.run(["make", "clean"], cwd=dest, capture_output=True, timeout=60)
    shutil.rmtree(dest / "build", ignore_errors=True)
    return dest


def make(proj, *args: str) -> None:
    out = subprocess.run(["make", *args], cwd=proj, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def run_app(proj) -> str:
    return subprocess.run([proj / "build" / "app"], capture_output=True, text=True, timeout=10).stdout


def age_everything(proj) -> float:
    """Sets every file of the tree to fixed past times: sources oldest, then objects, then the app."""
    now = time.time()
    for root, _, files in os.walk(proj):
        for name in files:
            path = os.path.join(root, name)
            t = now - 3000 if "/build" not in path else now - 2000
            if path.endswith("/build/app"):
                t = now - 1000
            os.utime(path, (t, t))
    return now


def rebuilt(proj, since: float) -> set[str]:
    names = set()
    for name in OBJECTS + ["app"]:
        path = proj / "build" / (name if name == "app" else f"{name}.o")
        if os.stat(path).st_mtime > since - 500:
            names.add(name)
    return names


def touch(path, t: float) -> None:
    os.utime(path, (t, t))


def test_sources_unchanged():
    assert open("/app/proj/src/main.c").read().count("print_value") == 3


def test_clean_build(proj):
    make(proj)
    assert run_app(proj) == EXPECTED
    for name in OBJECTS:
        assert (proj / "build" / f"{name}.o").is_file()


def test_parallel_clean_build(proj):
    make(proj, "-j4")
    assert run_app(proj) == EXPECTED


def test_nothing_to_do(proj):
    make(proj)
    now = age_everything(proj)
    make(proj)
    assert rebuilt(proj, now) == set()


@pytest.mark.parametrize("source,expected", [("stats.c", {"stats", "app"}), ("util.c", {"util", "app"})])
def test_source_change(proj, source, expected):
    make(proj)
    now = age_everything(proj)
    touch(proj / "src" / source, now - 100)
    make(proj)
    assert rebuilt(proj, now) == expected


@pytest.mark.parametrize(
    "header,expected",
    [("geom.h", {"geom", "main", "app"}), ("util.h", {"util", "main", "app"}), ("stats.h", {"stats", "main", "app"})],
)
def test_header_change(proj, header, expected):
    make(proj)
    now = age_everything(proj)
    touch(proj / "src" / header, now - 100)
    make(proj)
    assert rebuilt(proj, now) == expected


def test_clean_target(proj):
    make(proj)
    make(proj, "clean")
    assert not (proj / "build").exists()
