"""Checks /app/pairs.py: correct on small inputs, fast on a large one."""

import random
import subprocess
from collections import Counter

import pytest


def reference(a: list[int], k: int) -> int:
    seen: Counter[int] = Counter()
    count = 0
    for x in a:
        r = x % k
        count += seen[(k - r) % k]
        seen[r] += 1
    return count


def run(a: list[int], k: int, timeout: float) -> str:
    text = f"{len(a)} {k}\n" + " ".join(map(str, a)) + "\n"
    out = subprocess.run(["python3", "/app/pairs.py"], input=text, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_sample():
    out = subprocess.run(["python3", "/app/pairs.py"], stdin=open("/app/sample.txt"), capture_output=True, text=True)
    assert out.stdout.strip() == "6"


@pytest.mark.parametrize("seed", range(6))
def test_small_random(seed):
    rng = random.Random(seed)
    k = rng.choice([1, 2, 3, 7, 10, 1000, 10**9])
    a = [rng.randint(-(10**9), 10**9) if seed % 2 else rng.randint(-20, 20) for _ in range(rng.randint(1, 300))]
    brute = sum(1 for i in range(len(a)) for j in range(i + 1, len(a)) if (a[i] + a[j]) % k == 0)
    assert run(a, k, 20) == str(brute)


def test_single_element():
    assert run([5], 5, 20) == "0"


@pytest.mark.parametrize("k", [97, 1_000_000_000])
def test_large_input(k):
    rng = random.Random(4620 + k)
    a = [rng.randint(-(10**9), 10**9) for _ in range(300_000)]
    if k == 1_000_000_000:
        a[::3] = [rng.choice([-(10**9), 0, 10**9, 5, -5]) for _ in a[::3]]
    assert run(a, k, 15) == str(reference(a, k))
