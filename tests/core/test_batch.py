"""Batch and async scoring: order, groups, deduplication, futures, and runaway samples."""

from __future__ import annotations

import asyncio
from concurrent.futures import FIRST_COMPLETED, wait

import gymnasium as gym
import pytest

import codegym
from codegym import ReferenceTimeLimits, Scorer, Status
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor

ENV = "codegym/PythonFunction-v0"
RIGHT = "def truncate_number(number):\n    return number % 1.0\n"
WRONG = "def truncate_number(number):\n    return 0.5\n"
BROKEN = "def truncate_number(number):\n    return number %% 1\n"
CRASH = "import os\nos._exit(3)\n"
SPIN = "def truncate_number(number):\n    while True:\n        pass\n"


@pytest.fixture
def scorer(executor: LocalExecutor) -> Scorer:
    return Scorer(ENV, tasks="humaneval", executor=executor)


def test_grades_come_back_in_input_order(scorer: Scorer) -> None:
    answers = [RIGHT, WRONG, BROKEN, CRASH] * 5
    grades = scorer.score([("HumanEval/2", a) for a in answers])
    assert [g.status for g in grades] == [Status.OK, Status.WA, Status.CE, Status.RE] * 5


def test_groups_keep_their_shape(scorer: Scorer) -> None:
    groups = [("HumanEval/2", [RIGHT, WRONG, BROKEN]), ("HumanEval/0", ["    return False\n"]), ("HumanEval/2", [])]
    grades = scorer.score_groups(groups)
    assert [len(g) for g in grades] == [3, 1, 0]
    assert [g.status for g in grades[0]] == [Status.OK, Status.WA, Status.CE]
    assert grades[1][0].status is Status.WA


def test_identical_submissions_run_once(scorer: Scorer) -> None:
    grades = scorer.score(
        [("HumanEval/2", RIGHT)] * 6 + [("HumanEval/2", WRONG)] * 3 + [("HumanEval/2", f"```python\n{RIGHT}```")]
    )
    assert scorer.stats == {"submitted": 10, "executed": 2}  # the fenced answer is the same code
    assert [g.status for g in grades] == [Status.OK] * 6 + [Status.WA] * 3 + [Status.OK]


def test_deduplication_can_be_turned_off(executor: LocalExecutor) -> None:
    scorer = Scorer(ENV, tasks="humaneval", executor=executor, dedupe=False)
    scorer.score([("HumanEval/2", RIGHT)] * 3)
    assert scorer.stats == {"submitted": 3, "executed": 3}


def test_futures_and_asyncio(scorer: Scorer) -> None:
    future = scorer.submit("HumanEval/2", RIGHT)
    assert future.result(timeout=60).status is Status.OK

    async def main() -> list[Status]:
        grades = await asyncio.gather(*(scorer.asubmit("HumanEval/2", a) for a in (WRONG, RIGHT, CRASH)))
        return [g.status for g in grades]

    assert asyncio.run(main()) == [Status.WA, Status.OK, Status.RE]


def test_a_runaway_sample_does_not_hold_up_the_others(executor: LocalExecutor) -> None:
    scorer = Scorer(ENV, tasks="humaneval", executor=executor, limits=Limits(cpu_s=3, wall_s=4))
    runaway = scorer.submit("HumanEval/2", SPIN)
    quick = [scorer.submit("HumanEval/2", f"{RIGHT}# variant {i}\n") for i in range(20)]
    done, _ = wait([runaway, *quick], return_when=FIRST_COMPLETED)
    assert runaway not in done
    wait(quick)
    assert not runaway.done()  # all 20 finished on the other worker while it spun
    assert all(q.result().status is Status.OK for q in quick)
    assert runaway.result().status is Status.TLE


def test_reference_time_limits_tighten_per_task(executor: LocalExecutor) -> None:
    base = Limits(cpu_s=6, wall_s=8)
    env = gym.make(
        ENV, tasks="humaneval", executor=executor, limits=base, time_limits=ReferenceTimeLimits(multiple=4, floor_s=0.5)
    )
    core = env.unwrapped
    task = core.tasks.get("HumanEval/2")
    derived = core.limits_for(task)
    assert 0.5 < derived.wall_s < base.wall_s and 0.5 < derived.cpu_s < base.cpu_s
    assert core.limits_for(task) is derived  # measured once
    env.reset(options={"task_id": "HumanEval/2"})
    _, reward, _, _, info = env.step(SPIN)
    assert info["status"] == "TLE" and reward == 0.0
    assert info["grade"].resources["wall_s"] < base.wall_s
    env.reset(options={"task_id": "HumanEval/2"})
    assert env.step(RIGHT)[1] == 1.0


def test_reference_time_limits_validate_their_arguments() -> None:
    with pytest.raises(ValueError, match="multiple >= 1"):
        ReferenceTimeLimits(multiple=0.5)


def test_score_is_the_one_call_form(executor: LocalExecutor) -> None:
    grades = codegym.score(ENV, [("HumanEval/2", RIGHT), ("HumanEval/2", WRONG)], tasks="humaneval", executor=executor)
    assert [g.status for g in grades] == [Status.OK, Status.WA]
