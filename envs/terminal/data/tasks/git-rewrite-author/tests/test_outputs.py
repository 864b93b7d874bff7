import json
import subprocess

R = "/app/repo"
FMT = "--format=%s%x1f%T%x1f%an%x1f%ae%x1f%ad%x1f%cn%x1f%ce%x1f%cd"

with open("/tests/expected.json") as f:
    EXPECTED = json.load(f)


def git(*args):
    r = subprocess.run(["git", "-C", R, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def log(ref):
    return [line.split("\x1f") for line in git("log", FMT, "--date=raw", ref).splitlines()]


def test_main_rewritten_exactly():
    assert log("main") == EXPECTED["main"]


def test_release_branch_rewritten_exactly():
    assert log("release") == EXPECTED["release"]


def test_tag_follows():
    assert log("v1.0") == EXPECTED["v1.0"]


def test_no_bad_identity_reachable_or_backup_refs():
    refs = git("for-each-ref", "--format=%(refname)").split()
    assert not [r for r in refs if r.startswith("refs/original/")]
    assert "dev@localhost" not in git("log", "--all", "--format=%ae %ce")


def test_checked_out_clean():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
