"""Curricula choose the next task from what info reported; their state travels."""

from __future__ import annotations

from collections import Counter

import pytest
from codegym.wrappers import (
    AdaptiveCurriculum,
    ContextBootstrap,
    DifficultyCurriculum,
    MistakeReplay,
    TierCurriculum,
)

from codegym.task import TaskSet

from .conftest import fail, make, solve


def episode(env, answer) -> dict:
    """One single-turn episode whose answer is ``answer(task)``."""
    _, info = env.reset()
    task = env.unwrapped.tasks.get(info["task_id"])
    *_, step_info = env.step(answer(task))
    return {"reset": info, "step": step_info}


def test_difficulty_schedule_easy_to_hard(executor) -> None:
    env = DifficultyCurriculum(make(executor), order="easy_to_hard", episodes_per_stage=3)
    env.reset(seed=0)
    seen = [episode(env, fail)["reset"]["difficulty"] for _ in range(10)]
    assert seen == ["easy"] * 3 + ["medium"] * 3 + ["hard"] * 4


def test_difficulty_schedule_hard_first_and_mixed(executor) -> None:
    env = DifficultyCurriculum(make(executor), order="hard_first", episodes_per_stage=2)
    env.reset(seed=0)
    assert [episode(env, fail)["reset"]["difficulty"] for _ in range(6)] == ["hard"] * 2 + ["medium"] * 2 + ["easy"] * 2
    mixed = DifficultyCurriculum(make(executor), order="mixed")
    mixed.reset(seed=3)
    assert len({episode(mixed, fail)["reset"]["difficulty"] for _ in range(30)}) == 3


def test_difficulty_schedule_needs_labels(executor) -> None:
    with pytest.raises(ValueError, match="no difficulty labels"):
        DifficultyCurriculum(make(executor, tasks="humaneval"))
    with pytest.raises(ValueError, match="order must be one of"):
        DifficultyCurriculum(make(executor), order="random")


def test_adaptive_curriculum_prefers_tasks_near_the_target(executor, codegym_py) -> None:
    always, half = codegym_py.get("codegym-py/001-count-vowel-runs"), codegym_py.get("codegym-py/002-rle-encode")
    env = AdaptiveCurriculum(make(executor, tasks=TaskSet([always, half])), revisit_prob=0.0, min_attempts=1000)
    env.reset(seed=7)
    coin = iter([True, False] * 200)
    served = Counter()
    for _ in range(120):
        _, info = env.reset()
        task = env.unwrapped.tasks.get(info["task_id"])
        served[task.id] += 1
        env.step(solve(task) if task.id == always.id or next(coin) else fail(task))
    assert served[half.id] > 2 * served[always.id]
    assert env.rates[always.id] > 0.9 and 0.2 < env.rates[half.id] < 0.8


def test_adaptive_curriculum_parks_and_revisits(executor, codegym_py) -> None:
    solved, other = codegym_py.get("codegym-py/001-count-vowel-runs"), codegym_py.get("codegym-py/002-rle-encode")
    env = AdaptiveCurriculum(
        make(executor, tasks=TaskSet([solved, other])), decay=0.3, min_attempts=3, revisit_prob=0.2
    )
    env.reset(seed=1)
    for _ in range(3):
        env.reset(options={"task_id": solved.id})
        env.step(solve(solved))
    assert env.parked(solved.id) and not env.parked(other.id)
    served = Counter(env.reset()[1]["task_id"] for _ in range(200))
    assert 20 < served[solved.id] < 70  # about revisit_prob of the draws


def test_tier_curriculum_unlocks_tiers_in_order(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = TierCurriculum(make(executor, tasks=TaskSet([task])), threshold=1.0, window=2)
    env.reset(seed=0)
    tiers_seen = []
    for _ in range(8):
        result = episode(env, solve)
        tiers_seen.append(result["reset"]["tiers"])
        assert {t.tier for t in result["step"]["grade"].tests} == set(result["reset"]["tiers"])
    assert tiers_seen[0] == ("basic",)
    assert tiers_seen[2] == ("basic", "intermediate")
    assert set(tiers_seen[-1]) == {"basic", "intermediate", "complex", "edge"}
    assert env.unlocked == 4


def test_tier_curriculum_stays_while_failing(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = TierCurriculum(make(executor, tasks=TaskSet([task])), threshold=0.8, window=2)
    env.reset(seed=0)
    for _ in range(6):
        episode(env, fail)
    assert env.tiers == ("basic",)


def test_mistake_replay_serves_failed_tasks_until_solved(executor, codegym_py) -> None:
    env = MistakeReplay(make(executor), replay_prob=1.0)
    env.reset(seed=0)
    first = episode(env, fail)["reset"]["task_id"]
    assert env.book == [first]
    assert episode(env, solve)["reset"]["task_id"] == first  # replayed, then solved
    assert env.book == [] and env.replayed == 1


def test_context_bootstrap_anneals_to_zero(executor) -> None:
    env = ContextBootstrap(make(executor), k=2, start_prob=1.0, anneal_episodes=4)
    obs, info = env.reset(seed=0)
    assert info["demonstrations"] == 2 and obs["prompt"].count("### Example") == 2
    task = env.unwrapped.tasks.get(info["task_id"])
    assert task.prompt.strip() not in obs["prompt"].split("### Your task")[0]  # demos are other tasks
    assert obs["prompt"].endswith(task.prompt)
    counts = []
    for _ in range(8):
        result = episode(env, solve)
        counts.append(result["reset"]["demonstrations"])
    assert env.probability == 0.0 and counts[4:] == [0, 0, 0, 0]


def test_state_round_trips_and_knobs_are_settable(executor, codegym_py) -> None:
    env = AdaptiveCurriculum(make(executor))
    env.reset(seed=0)
    for _ in range(5):
        episode(env, fail)
    state = env.state_dict()
    fresh = AdaptiveCurriculum(make(executor))
    fresh.load_state_dict(state)
    assert fresh.state_dict() == state and fresh.episodes == 5
    fresh.set_wrapper_attr("target", 0.8)
    assert fresh.get_wrapper_attr("target") == 0.8


def test_explicit_task_id_wins(executor) -> None:
    env = MistakeReplay(make(executor), replay_prob=1.0)
    env.reset(seed=0)
    failed = episode(env, fail)["reset"]["task_id"]
    other = next(i for i in env.unwrapped.tasks.ids if i != failed)
    assert env.reset(options={"task_id": other})[1]["task_id"] == other
