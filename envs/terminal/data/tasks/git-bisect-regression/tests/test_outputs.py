import os
import re
import subprocess
import tempfile

R = "/app/repo"


def git(*args):
    r = subprocess.run(["git", "-C", R, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def passes(commit):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(f"git -C {R} archive {commit} | tar -x -C {d}", shell=True, check=True, timeout=30)
        r = subprocess.run(["python3", "tests/check.py"], cwd=d, capture_output=True, timeout=30)
        return r.returncode == 0


def answer():
    with open("/app/bad_commit.txt") as f:
        text = f.read().strip()
    assert re.fullmatch(r"[0-9a-f]{40}", text), text
    return text


def test_answer_is_a_main_commit():
    c = answer()
    assert c in git("rev-list", "--first-parent", "main").split()


def test_answer_is_the_first_bad_commit():
    c = answer()
    assert not passes(c)
    assert passes(c + "~1")


def test_repository_left_clean():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
    assert not os.path.exists(os.path.join(R, ".git", "BISECT_LOG"))
    assert git("log", "-1", "--format=%s").strip() == "maintenance 64"
