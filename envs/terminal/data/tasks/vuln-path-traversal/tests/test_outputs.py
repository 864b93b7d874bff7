import os
import subprocess

import pytest

SECRET = "TOKEN-3f9a1c77e2b54d08"


def getdoc(name):
    return subprocess.run(["python3", "/app/getdoc.py", name], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("name,want", [
    ("index.md", "# Welcome\n\nStart with guides/install.md.\n"),
    ("guides/install.md", "# Install\n\nRun make install.\n"),
    ("guides/../index.md", "# Welcome\n\nStart with guides/install.md.\n"),
    ("./guides/faq.md", "# FAQ\n\nNothing yet.\n"),
])
def test_documents_served(name, want):
    r = getdoc(name)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


@pytest.mark.parametrize("name", [
    "../secret/token.txt",
    "guides/../../secret/token.txt",
    "/app/secret/token.txt",
    "latest.md",
    "../../../../etc/passwd",
    "/etc/hostname",
    "guides/../../getdoc.py",
])
def test_escapes_refused(name):
    r = getdoc(name)
    assert r.returncode == 1
    assert r.stdout == ""
    assert SECRET not in r.stderr


def test_missing_and_directory():
    assert getdoc("nope.md").returncode == 1
    r = getdoc("guides")
    assert r.returncode == 1 and r.stdout == ""


def test_files_kept():
    with open("/app/secret/token.txt") as f:
        assert f.read().strip() == SECRET
    assert os.path.islink("/app/docs/latest.md")
