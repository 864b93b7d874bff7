"""Checks /app/dedupe: same output as the quadratic original, fast on a million lines."""

import random
import subprocess

import pytest


def reference(data: bytes) -> bytes:
    seen = set()
    out = []
    for line in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
        if line not in seen:
            seen.add(line)
            out.append(line + b"\n")
    return b"".join(out)


def dedupe(data: bytes, timeout: float) -> bytes:
    out = subprocess.run(["/app/dedupe"], input=data, capture_output=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_builds_with_make():
    out = subprocess.run(["make", "-C", "/app", "-B"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_basic():
    assert dedupe(b"b\na\nb\nc\na\n", 10) == b"b\na\nc\n"


def test_edge_cases():
    assert dedupe(b"", 10) == b""
    assert dedupe(b"x\nx", 10) == b"x\n"
    assert dedupe(b"\n\nx\n\n", 10) == b"\nx\n"
    assert dedupe(b"a b\na  b\nA b\na b\n", 10) == b"a b\na  b\nA b\n"
    long = b"z" * 4095
    assert dedupe(long + b"\n" + long + b"\n", 10) == long + b"\n"


@pytest.mark.parametrize("seed", range(3))
def test_small_random(seed):
    rng = random.Random(seed)
    lines = [f"k{rng.randint(0, 60)}\t{'x' * rng.randint(0, 5)}".encode() for _ in range(2000)]
    data = b"\n".join(lines) + b"\n"
    assert dedupe(data, 10) == reference(data)


def test_over_a_million_lines():
    rng = random.Random(4621)
    keys = [f"2024-06-01 host-{rng.randint(0, 99):02d} session={rng.getrandbits(40):010x}" for _ in range(600_000)]
    lines = keys + [rng.choice(keys) for _ in range(600_000)]
    rng.shuffle(lines)
    data = ("\n".join(lines) + "\n").encode()
    assert dedupe(data, 10) == reference(data)
