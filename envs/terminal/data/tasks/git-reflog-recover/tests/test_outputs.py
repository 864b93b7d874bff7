import subprocess

R = "/app/repo"


def git(*args):
    r = subprocess.run(["git", "-C", R, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_history_order():
    subjects = git("log", "--format=%s", "main").splitlines()
    assert subjects[:3] == ["checksum: seed and empty input", "checksum: add rolling checksum", "docs: clearer README"]
    assert subjects[3:] == ["mathlib: mul", "docs: README", "mathlib: add"]


def test_contents():
    assert "s = 7" in git("show", "main:checksum.py")
    assert "if not data" in git("show", "main:checksum.py")
    assert "s = 0" in git("show", "main~1:checksum.py")
    assert "Small arithmetic helpers." in git("show", "main:README.md")


def test_checked_out_and_clean():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
    out = subprocess.run(
        ["python3", "-c", "import checksum; print(checksum.checksum(b'abc'), checksum.checksum(b''))"],
        cwd=R,
        capture_output=True,
        text=True,
        timeout=10,
    ).stdout.split()
    assert out == ["304924", "0"]
