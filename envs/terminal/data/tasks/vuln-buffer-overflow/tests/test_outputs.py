import subprocess

import pytest

CODE = b"4417-0923"


def badge(data, exe="/app/badge"):
    return subprocess.run([exe], input=data, capture_output=True, timeout=20)


def test_normal_name():
    r = badge(b"Ada Lovelace\n")
    assert r.returncode == 0
    assert r.stdout == b"Welcome, Ada Lovelace (visitor)\n"


def test_exactly_fifteen():
    assert badge(b"A" * 15 + b"\n").stdout == b"Welcome, " + b"A" * 15 + b" (visitor)\n"


@pytest.mark.parametrize("n", [16, 17, 20, 31, 100, 1000])
def test_long_names_cut(n):
    r = badge(b"B" * n + b"\n")
    assert r.returncode == 0
    assert r.stdout == b"Welcome, " + b"B" * 15 + b" (visitor)\n"
    assert CODE not in r.stdout


@pytest.mark.parametrize("payload", [
    b"X" * 16 + b"\x01\x00\x00\x00staff\n",
    b"X" * 16 + b"\x01\x01\x01\x01" + b"Y" * 40 + b"\n",
    b"Z" * 1020,
], ids=["staff-flag", "flag-and-role", "very-long"])
def test_exploits(payload):
    r = badge(payload)
    assert r.returncode >= 0
    assert CODE not in r.stdout
    assert b"(staff)" not in r.stdout


def test_rebuild_with_makefile_flags(tmp_path):
    exe = tmp_path / "b"
    r = subprocess.run(["cc", "-O0", "-fno-stack-protector", "-o", str(exe), "/app/src/badge.c"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = badge(b"Q" * 16 + b"\x01\x00\x00\x00\n", str(exe))
    assert CODE not in r.stdout and r.returncode >= 0
