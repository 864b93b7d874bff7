import os
import shutil
import subprocess

import pytest


@pytest.fixture()
def src(tmp_path):
    d = tmp_path / "src"
    shutil.copytree("/app", d)
    subprocess.run(["make", "-C", str(d), "clean"], capture_output=True, timeout=60)
    return d


def make(d, *args):
    r = subprocess.run(["make", "-C", str(d), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


FILES = ["bin/notes", "share/notes/templates.txt", "share/man/man1/notes.1"]


def test_staged_install_layout_and_runtime_path(src, tmp_path):
    prefix = tmp_path / "opt" / "notes"
    stage = tmp_path / "stage"
    make(src, "install", f"PREFIX={prefix}", f"DESTDIR={stage}")
    staged = stage / str(prefix).lstrip("/")
    for f in FILES:
        assert (staged / f).is_file(), f
    assert not prefix.exists()
    assert os.access(staged / "bin/notes", os.X_OK)
    shutil.copytree(staged, prefix)
    r = subprocess.run([str(prefix / "bin/notes"), "todo"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "- [ ] \n"


def test_default_prefix_is_usr_local(src, tmp_path):
    stage = tmp_path / "stage"
    make(src, "install", f"DESTDIR={stage}")
    for f in FILES:
        assert (stage / "usr/local" / f).is_file(), f
    with open(stage / "usr/local/bin/notes", "rb") as f:
        assert b"/usr/local/share/notes/templates.txt" in f.read()


def test_prefix_change_rebuilds(src, tmp_path):
    a, b = tmp_path / "pa", tmp_path / "pb"
    make(src, f"PREFIX={a}")
    make(src, "install", f"PREFIX={b}")
    r = subprocess.run([str(b / "bin/notes"), "meeting"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Date:")


def test_uninstall(src, tmp_path):
    prefix = tmp_path / "p"
    stage = tmp_path / "stage"
    make(src, "install", f"PREFIX={prefix}", f"DESTDIR={stage}")
    make(src, "uninstall", f"PREFIX={prefix}", f"DESTDIR={stage}")
    staged = stage / str(prefix).lstrip("/")
    for f in FILES:
        assert not (staged / f).exists(), f


def test_sources_unchanged():
    with open("/app/notes.c") as f:
        assert '#define DATADIR "/usr/local/share/notes"' in f.read()
