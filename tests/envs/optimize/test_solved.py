"""Optimize's "solved": correct and at least as fast as the reference (a speedup of at least
`SOLVED_SPEEDUP`). A correct program slower than the reference is ``OK`` and not solved; a
refine episode still never ends by itself, solved or not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from codegym.envs.optimize.env import SOLVED_SPEEDUP, OptimizeEnv

from codegym.grade import Status

from .test_optimize import FAST_PY, SLOW_PY, row

# The reference, doing its pair count twice: right, and about half as fast.
SLOWER_PY = SLOW_PY.replace("print(count)", "count = 0\nfor i in range(n):\n    for j in range(i + 1, n):\n"
                            "        if a[i] + a[j] == t:\n            count += 1\nprint(count)")  # fmt: skip


@pytest.fixture(scope="module")
def env() -> Iterator[OptimizeEnv]:
    made = OptimizeEnv([row("python", SLOW_PY, FAST_PY)], mode="refine")
    yield made
    made.close()


def step(env: OptimizeEnv, code: str):
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step(code)
    return info["grade"], terminated or truncated


def test_the_reference_and_a_faster_program_are_solved_a_slower_one_is_not(env: OptimizeEnv) -> None:
    task = next(iter(env.tasks))
    reference, ended = step(env, task.reference or "")
    assert reference.status is Status.OK and reference.solved is True and not ended  # (refine goes on)
    faster, ended = step(env, FAST_PY)
    assert faster.metrics["speedup"] > 1 and faster.solved is True and not ended
    slower, _ = step(env, SLOWER_PY)
    assert slower.status is Status.OK and slower.metrics["speedup"] < SOLVED_SPEEDUP and slower.solved is False
    wrong, _ = step(env, "input()\ninput()\nprint(0)\n")
    assert wrong.status is Status.WA and wrong.solved is False
