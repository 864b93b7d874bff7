"""The meter in every isolation tier: valgrind's count of a C program and the bytecode count
of a Python one, the same in each tier, and a program still cannot switch the count off."""

from __future__ import annotations

import pytest
from codegym.envs.optimize.env import OptimizeEnv

from codegym.executor import Executor

from .test_optimize import FAST_C, FAST_PY, SLOW_C, SLOW_PY, row

COUNTS: dict[tuple[str, str], float] = {}  # (language, program) -> the cost the first tier counted


@pytest.mark.parametrize(("language", "slow", "fast"), [("python", SLOW_PY, FAST_PY), ("c", SLOW_C, FAST_C)])
def test_the_meter_counts_alike_in_every_tier(tiered_executor: Executor, language: str, slow: str, fast: str) -> None:
    env = OptimizeEnv([row(language, slow, fast, bench_size=600)], executor=tiered_executor)
    task = next(iter(env.tasks))
    for code in (slow, fast):
        grade, _ = env.evaluate_task(task, code)
        assert grade.status.value == "OK", grade.message
        cost = grade.metrics["cost"]
        assert COUNTS.setdefault((language, code), cost) == pytest.approx(cost, rel=0.005)
    assert grade.metrics["speedup"] > 2.5
    cheat = "import sys\nsys.settrace(None)\n" + slow if language == "python" else None
    if cheat:
        assert env.evaluate_task(task, cheat)[0].status.value != "OK"
