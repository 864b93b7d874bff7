"""Runs /app/rotate.sh on fresh directories and checks the rotations."""

import gzip
import os
import subprocess


def rotate(d, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/app/rotate.sh", str(d), *args], capture_output=True, text=True, timeout=30)


def write(path, text: str, mode: int = 0o644) -> None:
    path.write_text(text)
    os.chmod(path, mode)


def gz(path) -> str:
    with gzip.open(path, "rt") as f:
        return f.read()


def test_first_rotation(tmp_path):
    write(tmp_path / "app.log", "one\ntwo\n", 0o640)
    os.chown(tmp_path / "app.log", 1234, 4321)
    assert rotate(tmp_path).returncode == 0
    assert gz(tmp_path / "app.log.1.gz") == "one\ntwo\n"
    new = tmp_path / "app.log"
    assert new.read_text() == ""
    st = os.stat(new)
    assert (st.st_mode & 0o7777, st.st_uid, st.st_gid) == (0o640, 1234, 4321)
    assert not (tmp_path / "app.log.1").exists()


def test_shift_and_keep_default_three(tmp_path):
    log = tmp_path / "app.log"
    for gen in range(1, 6):
        write(log, f"generation {gen}\n")
        assert rotate(tmp_path).returncode == 0
    assert gz(tmp_path / "app.log.1.gz") == "generation 5\n"
    assert gz(tmp_path / "app.log.2.gz") == "generation 4\n"
    assert gz(tmp_path / "app.log.3.gz") == "generation 3\n"
    assert not (tmp_path / "app.log.4.gz").exists()
    assert sorted(os.listdir(tmp_path)) == ["app.log", "app.log.1.gz", "app.log.2.gz", "app.log.3.gz"]


def test_keep_argument(tmp_path):
    log = tmp_path / "svc.log"
    for gen in range(1, 5):
        write(log, f"g{gen}\n")
        assert rotate(tmp_path, "2").returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["svc.log", "svc.log.1.gz", "svc.log.2.gz"]
    assert gz(tmp_path / "svc.log.2.gz") == "g3\n"


def test_empty_logs_untouched(tmp_path):
    write(tmp_path / "quiet.log", "")
    write(tmp_path / "busy.log", "x\n")
    with gzip.open(tmp_path / "quiet.log.1.gz", "wt") as f:
        f.write("old\n")
    assert rotate(tmp_path).returncode == 0
    assert gz(tmp_path / "quiet.log.1.gz") == "old\n"
    assert not (tmp_path / "quiet.log.2.gz").exists()
    assert gz(tmp_path / "busy.log.1.gz") == "x\n"


def test_other_files_untouched(tmp_path):
    write(tmp_path / "notes.txt", "keep me\n")
    write(tmp_path / "app.log", "a\n")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "inner.log", "inner\n")
    assert rotate(tmp_path).returncode == 0
    assert (tmp_path / "notes.txt").read_text() == "keep me\n"
    assert (tmp_path / "sub" / "inner.log").read_text() == "inner\n"
    assert sorted(os.listdir(tmp_path / "sub")) == ["inner.log"]


def test_spaces_in_names(tmp_path):
    write(tmp_path / "my app.log", "spaced\n")
    write(tmp_path / "my.log", "plain\n")
    assert rotate(tmp_path).returncode == 0
    assert gz(tmp_path / "my app.log.1.gz") == "spaced\n"
    assert gz(tmp_path / "my.log.1.gz") == "plain\n"


def test_not_a_directory(tmp_path):
    out = rotate(tmp_path / "missing")
    assert out.returncode != 0 and out.stderr.strip()
