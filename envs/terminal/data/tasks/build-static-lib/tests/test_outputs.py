import os
import subprocess

APP = "/app"


def make(*args):
    return subprocess.run(["make", "-C", APP, *args], capture_output=True, text=True, timeout=60)


def test_make_builds_library_and_program():
    assert make("clean").returncode == 0
    assert not os.path.exists(f"{APP}/build")
    r = make()
    assert r.returncode == 0, r.stderr
    assert os.path.isfile(f"{APP}/build/libstrutil.a")
    assert os.path.isfile(f"{APP}/build/strtool")


def test_library_is_an_archive_with_the_functions():
    make()
    out = subprocess.run(["nm", f"{APP}/build/libstrutil.a"], capture_output=True, text=True).stdout
    assert " T su_reverse" in out and " T su_count" in out
    kind = subprocess.run(["file", f"{APP}/build/libstrutil.a"], capture_output=True, text=True).stdout
    assert "ar archive" in kind


def test_program_works():
    make()
    for word, ch, want in [("hello", "l", "olleh 2"), ("abcabc", "c", "cbacba 2"), ("x", "y", "x 0")]:
        r = subprocess.run([f"{APP}/build/strtool", word, ch], capture_output=True, text=True, timeout=10)
        assert r.stdout.strip() == want


def test_program_links_the_library_not_the_source():
    log = make("clean")
    r = make()
    cmds = [l for l in r.stdout.splitlines() if "main.c" in l]
    assert cmds, r.stdout
    assert all("strutil.c" not in l for l in cmds)
    assert any("strutil" in l for l in cmds)
