"""Both verifiers in every isolation tier: Dafny (on Mono, with Z3) and Why3 give the same
verdicts in each, and the canary still fails."""

from __future__ import annotations

from codegym.envs.dafny.env import DafnyEnv
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
