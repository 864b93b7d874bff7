"""The verifiers in every isolation tier: Dafny (on Mono, with Z3), Why3 and CrossHair give the
same verdicts in each, and the canary still fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.pycontracts.env import PyContractsEnv
from codegym.envs.pycontracts.sandbox import ContractsExecutor
from codegym.envs.whyml.env import WhyMLEnv

from codegym.executor import Executor
from codegym.grade import Status


def test_dafny_and_why3_verify_alike_in_every_tier(tiered_executor: Executor) -> None:
    dafny = DafnyEnv(executor=tiered_executor)
    task = dafny.tasks.get("codegym-dafny/sum-array")
    verdicts = [dafny.evaluate_task(task, code)[0] for code in (task.reference or "", str(task.metadata["given"]))]
    assert [g.status for g in verdicts] == [Status.OK, Status.WA], [g.message for g in verdicts]
    whyml = WhyMLEnv(executor=tiered_executor)
    task = whyml.tasks.get("codegym-whyml/sum-to")
    grade = whyml.evaluate_task(task, task.reference or "")[0]
    assert grade.status is Status.OK, grade.message


def test_crosshair_finds_the_same_counterexample_in_every_tier(tier: str, tier_options: Callable[[str], Any]) -> None:
    executor = ContractsExecutor(workers=1, **tier_options(tier))
    try:
        env = PyContractsEnv(executor=executor)
        task = env.tasks.get("codegym-contracts/power_of_two")
        subtle = "def is_power_of_two(n: int) -> bool:\n    return bin(n).count('1') == 1\n"
        right, wrong = (env.evaluate_task(task, code)[0] for code in (task.reference or "", subtle))
        assert (right.status, wrong.status) == (Status.OK, Status.WA), (right.message, wrong.message)
        assert "is_power_of_two(-" in wrong.feedback()
    finally:
        executor.close()
