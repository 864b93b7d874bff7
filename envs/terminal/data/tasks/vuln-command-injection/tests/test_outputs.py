import glob
import os
import shutil
import subprocess
import tarfile

import pytest

PWNED = "/tmp/pwned-backup"


def backup(arg):
    return subprocess.run(["python3", "/app/backup.py", arg], capture_output=True, text=True, timeout=30)


@pytest.fixture(autouse=True)
def clean():
    shutil.rmtree("/app/backups", ignore_errors=True)
    os.makedirs("/app/backups")
    for p in glob.glob(PWNED + "*"):
        os.remove(p)
    yield


def test_valid_names_work():
    for name in ("daily", "2024-01-02_full", "v1.2"):
        r = backup(name)
        assert r.returncode == 0, r.stderr
        with tarfile.open(f"/app/backups/{name}.tar.gz") as t:
            names = sorted(t.getnames())
        assert "data/a.txt" in names and "data/notes/b.txt" in names
        assert all(n == "data" or n.startswith("data/") for n in names)


def test_listing_sorted():
    for name in ("b", "a", "c-1"):
        assert backup(name).returncode == 0
    r = backup("--list")
    assert r.stdout == "a.tar.gz\nb.tar.gz\nc-1.tar.gz\n"


@pytest.mark.parametrize("name", [
    f"x; touch {PWNED}1",
    f"$(touch {PWNED}2)",
    f"`touch {PWNED}3`",
    f"x && echo hi > {PWNED}4",
    f"x|tee {PWNED}5",
    f"../../tmp/pwned-backup6",
    ".hidden",
    "a b",
    f"x\ntouch {PWNED}7",
    "",
])
def test_injection_refused(name):
    r = backup(name)
    assert r.returncode == 1
    assert glob.glob(PWNED + "*") == []
    assert os.listdir("/app/backups") == []
    assert not os.path.exists("/tmp/pwned-backup6.tar.gz")
