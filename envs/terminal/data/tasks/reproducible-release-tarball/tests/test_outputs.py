"""Runs /app/make_release.sh twice and checks the archive's members, metadata, checksum and
reproducibility."""

import calendar
import os
import subprocess
import tarfile
import time

import pytest

NAME = "tidewater-1.4.2"
MTIME = calendar.timegm((2024, 1, 1, 0, 0, 0))
FILES = {
    "README.md",
    "VERSION",
    "docs/usage.md",
    "docs/release notes.md",
    "scripts/deploy.sh",
    "src/pkg/__init__.py",
    "src/pkg/core.py",
}


def release(out) -> subprocess.CompletedProcess:
    result = subprocess.run(["bash", "/app/make_release.sh", str(out)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "dist"
    release(out)
    return out


@pytest.fixture(scope="module")
def members(outdir):
    with tarfile.open(outdir / f"{NAME}.tar.gz", "r:gz") as tar:
        return tar.getmembers()


def test_files(members):
    files = {m.name for m in members if m.isfile()}
    assert files == {f"{NAME}/{f}" for f in FILES}


def test_everything_under_top_directory(members):
    for m in members:
        name = m.name.rstrip("/")
        assert name == NAME or name.startswith(NAME + "/"), m.name


def test_excluded(members):
    for m in members:
        parts = m.name.split("/")
        assert not m.name.endswith(".tmp")
        assert not {".cache", "__pycache__", "node_modules"} & set(parts), m.name


def test_metadata(members):
    for m in members:
        assert (m.uid, m.gid) == (0, 0), m.name
        assert m.uname in ("", "root") and m.gname in ("", "root"), m.name
        assert m.mtime == MTIME, m.name


def test_modes_kept(members):
    by_name = {m.name: m for m in members}
    assert by_name[f"{NAME}/scripts/deploy.sh"].mode & 0o111
    assert not by_name[f"{NAME}/README.md"].mode & 0o111


def test_content(outdir):
    with tarfile.open(outdir / f"{NAME}.tar.gz", "r:gz") as tar:
        data = tar.extractfile(f"{NAME}/src/pkg/core.py").read()
    assert data == open("/app/project/src/pkg/core.py", "rb").read()


def test_checksum(outdir):
    line = (outdir / "SHA256SUMS").read_text().strip()
    assert line.endswith(f"  {NAME}.tar.gz") and len(line.split()[0]) == 64
    assert subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=outdir, capture_output=True).returncode == 0


def test_reproducible(outdir, tmp_path):
    time.sleep(1.1)
    os.utime("/app/project/README.md")
    second = tmp_path / "again"
    release(second)
    assert (second / f"{NAME}.tar.gz").read_bytes() == (outdir / f"{NAME}.tar.gz").read_bytes()
    assert (second / "SHA256SUMS").read_text() == (outdir / "SHA256SUMS").read_text()
