import hashlib
import os
import shutil
import subprocess

P = "/opt/ringbuf"

ORIGINAL = {
    "ringbuf.c": "5e2ca80c49742340e2b75d97a414a20e7129d82ed4de4ba3ad22486b5cceb480",
    "ringbuf.h": "14ee672798edaacf1f9678ffcbc4e2837d4acf0a1bff2016e4ad0fbf43b6e80f",
}


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_layout():
    assert os.path.isfile(f"{P}/lib/libringbuf.a")
    assert os.path.isfile(f"{P}/include/ringbuf.h")
    assert os.path.isfile(f"{P}/lib/cmake/ringbuf/ringbufConfig.cmake") or os.path.isfile(
        f"{P}/lib/cmake/ringbuf/ringbuf-config.cmake"
    )


def test_sources_unchanged():
    for name, digest in ORIGINAL.items():
        assert sha(f"/app/ringbuf/{name}") == digest


def build_consumer(tmp_path, version_ok=True):
    src = tmp_path / "src"
    shutil.copytree("/tests/consumer", src)
    if not version_ok:
        cm = src / "CMakeLists.txt"
        cm.write_text(cm.read_text().replace("ringbuf 0.3", "ringbuf 7.0"))
    b = tmp_path / "b"
    c = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(b), f"-DCMAKE_PREFIX_PATH={P}"], capture_output=True, text=True, timeout=120
    )
    if c.returncode:
        return c, b
    return subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True, timeout=120), b


def test_consumer_builds_and_runs(tmp_path):
    r, b = build_consumer(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = subprocess.run([str(b / "app")], capture_output=True, text=True, timeout=10).stdout
    assert out.split() == ["30", "40", "50"]


def test_version_is_checked(tmp_path):
    r, _ = build_consumer(tmp_path, version_ok=False)
    assert r.returncode != 0
