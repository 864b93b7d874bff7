import random
import subprocess

import pytest


def img(path, w, h, data=None, header=None):
    if data is None:
        rng = random.Random(w * 7919 + h)
        data = bytes(rng.randrange(256) for _ in range(w * h))
    path.write_bytes((header or f"P5\n{w} {h}\n255\n").encode() + data)
    return data


def stat(path, exe="/app/pgmstat"):
    return subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=60)


def expected(w, h, data):
    if not data:
        return f"{w}x{h} mean=0.00 min=255 max=0\n"
    return f"{w}x{h} mean={sum(data) / len(data):.2f} min={min(data)} max={max(data)}\n"


@pytest.mark.parametrize("w,h", [(1, 1), (17, 9), (640, 480), (3, 1000)])
def test_valid_images(tmp_path, w, h):
    p = tmp_path / "a.pgm"
    data = img(p, w, h)
    r = stat(p)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected(w, h, data)


def test_empty_image(tmp_path):
    p = tmp_path / "e.pgm"
    img(p, 0, 5, b"")
    assert stat(p).stdout == "0x5 mean=0.00 min=255 max=0\n"


def test_large_image(tmp_path):
    p = tmp_path / "big.pgm"
    w, h = 20000, 300
    data = bytes([7]) * (w * h)
    img(p, w, h, data)
    assert stat(p).stdout == f"{w}x{h} mean=7.00 min=7 max=7\n"


def exploit_files(tmp_path):
    files = []
    # 65536 * 65537 wraps to 65536 in 32 bits: small buffer, big writes
    p = tmp_path / "wrap.pgm"
    img(p, 65536, 65537, bytes([0x41]) * (65536 * 3))
    files.append(p)
    p = tmp_path / "wrap2.pgm"
    img(p, 4, 1073741825, bytes([0x42]) * 4096)
    files.append(p)
    p = tmp_path / "huge.pgm"
    img(p, 4294967295, 4294967295, bytes([0x43]) * 100)
    files.append(p)
    p = tmp_path / "neg.pgm"
    img(p, 0, 0, bytes([0x44]) * 10, header="P5\n-5 -5\n255\n")
    files.append(p)
    p = tmp_path / "trunc.pgm"
    img(p, 100, 100, bytes([1]) * 5000)
    files.append(p)
    p = tmp_path / "bad.pgm"
    img(p, 2, 2, b"abcd", header="P6\n2 2\n255\n")
    files.append(p)
    return files


def test_exploits_rejected(tmp_path):
    for p in exploit_files(tmp_path):
        r = stat(p)
        assert r.returncode == 1, (p.name, r.returncode, r.stdout)
        assert r.stdout == ""
        assert r.stderr.strip()


def test_valgrind_clean_on_exploits(tmp_path):
    for p in exploit_files(tmp_path)[:2] + exploit_files(tmp_path)[4:]:
        r = subprocess.run(["valgrind", "-q", "--error-exitcode=99", "/app/pgmstat", str(p)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 1, (p.name, r.stderr[-2000:])
        assert "Invalid" not in r.stderr


def test_valgrind_clean_on_valid(tmp_path):
    p = tmp_path / "v.pgm"
    data = img(p, 33, 21)
    r = subprocess.run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                        "--errors-for-leak-kinds=definite", "/app/pgmstat", str(p)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == expected(33, 21, data)
