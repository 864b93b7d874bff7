"""Checks /app/nge: same answers as a reference, fast on adversarial inputs of 1.5 million elements."""

import random
import subprocess

import pytest


def reference(a: list[int]) -> list[int]:
    ans = [0] * len(a)
    stack: list[int] = []
    for j, x in enumerate(a):
        while stack and a[stack[-1]] < x:
            i = stack.pop()
            ans[i] = j - i
        stack.append(j)
    return ans


def nge(a: list[int], timeout: float) -> list[int]:
    text = f"{len(a)}\n" + "\n".join(map(str, a)) + "\n"
    out = subprocess.run(["/app/nge"], input=text.encode(), capture_output=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return [int(x) for x in out.stdout.split()]


def test_builds():
    out = subprocess.run(["make", "-C", "/app", "-B"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_example():
    assert nge([3, 1, 4, 1, 5, 9, 2, 6], 10) == [2, 1, 2, 1, 1, 0, 1, 0]


def test_edges():
    assert nge([], 10) == []
    assert nge([7], 10) == [0]
    assert nge([2, 2, 2], 10) == [0, 0, 0]
    assert nge([-2147483648, 2147483647], 10) == [1, 0]


@pytest.mark.parametrize("seed", range(4))
def test_small_random(seed):
    rng = random.Random(seed)
    a = [rng.randint(-5, 5) for _ in range(rng.randint(1, 500))]
    assert nge(a, 10) == reference(a)


def test_large_decreasing():
    rng = random.Random(4624)
    a = sorted((rng.randint(-2**31, 2**31 - 1) for _ in range(1_500_000)), reverse=True)
    a[-1] = 2**31 - 1
    assert nge(a, 10) == reference(a)


def test_large_plateaus():
    rng = random.Random(4625)
    a = []
    for _ in range(1_500):
        a += [rng.randint(0, 1000)] * 1000
    assert nge(a, 10) == reference(a)
