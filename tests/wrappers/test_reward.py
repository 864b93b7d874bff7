"""Reward shaping wrappers: each term is what its docstring says, and terms stack."""

from __future__ import annotations

import math

import pytest
from codegym.wrappers import (
    BinaryReward,
    CompileReward,
    LengthPenalty,
    PassRateReward,
    RefinementDiscount,
    SpeedupReward,
    TierWeightedReward,
)
from codegym.wrappers.reward import DEFAULT_TIER_WEIGHTS, speedup_term

from codegym.executor.base import Executor
from codegym.grade import Grade, Status

from .conftest import fail, make, solve

PARTIAL = {  # right on some inputs only, so some hidden tests of each tier pass and some fail
    "codegym-py/001-count-vowel-runs": "def count_vowel_runs(text):\n    return sum(1 for c in text if c in 'aeiou') and 1\n",
}


def step(env, task_id: str, code: str):
    env.reset(options={"task_id": task_id})
    return env.step(code)


def test_binary_reward(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = BinaryReward(make(executor), value=2.0)
    assert step(env, task.id, solve(task))[1] == 2.0
    assert step(env, task.id, fail(task))[1] == 0.0


def test_pass_rate_counts_hidden_tests(executor, codegym_py) -> None:
    task_id, code = next(iter(PARTIAL.items()))
    _, reward, _, _, info = step(PassRateReward(make(executor)), task_id, code)
    hidden = [t for t in info["grade"].tests if t.hidden]
    assert 0.0 < reward < 1.0
    assert reward == pytest.approx(sum(t.passed for t in hidden) / len(hidden))
    assert info["reward_components"] == {"pass_rate": reward}


def test_tier_weights_must_sum_to_one(executor) -> None:
    assert math.isclose(sum(DEFAULT_TIER_WEIGHTS.values()), 1.0)
    with pytest.raises(ValueError, match="sum to 1"):
        TierWeightedReward(make(executor), weights={"basic": 0.5, "intermediate": 0.5, "complex": 0.5, "edge": 0.0})
    with pytest.raises(ValueError, match="exactly the tiers"):
        TierWeightedReward(make(executor), weights={"basic": 1.0})


def test_tier_weighted_reward_follows_its_formula(executor) -> None:
    weights = {"basic": 0.1, "intermediate": 0.2, "complex": 0.3, "edge": 0.4}
    task_id, code = next(iter(PARTIAL.items()))
    _, reward, _, _, info = step(TierWeightedReward(make(executor), weights=weights), task_id, code)
    by_tier: dict[str, list[bool]] = {}
    for test in info["grade"].tests:
        by_tier.setdefault(test.tier, []).append(test.passed)
    expected = sum(weights[t] * sum(p) / len(p) for t, p in by_tier.items()) / sum(weights[t] for t in by_tier)
    assert reward == pytest.approx(expected) and 0.0 < reward < 1.0


def test_cheating_earns_no_partial_credit(executor, codegym_py) -> None:
    env = PassRateReward(TierWeightedReward(make(executor)))
    _, reward, _, _, info = step(env, "codegym-py/001-count-vowel-runs", "import os\nos.write(4, b'\\xff' * 64)\n")
    assert info["status"] == "HACK" and reward == 0.0


def test_compile_penalty_and_bonus(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = CompileReward(make(executor), penalty=-0.5, bonus=0.1)
    assert step(env, task.id, "def broken(:\n")[1] == -0.5
    _, reward, _, _, info = step(env, task.id, solve(task))
    assert reward == pytest.approx(1.1) and info["reward_components"] == {"correct": 1.0, "compile": 0.1}


def test_length_penalty_is_linear_then_capped(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = LengthPenalty(make(executor), per_char=0.01, free_chars=len(solve(task)), cap=0.3)
    assert step(env, task.id, solve(task))[1] == pytest.approx(1.0)
    padded = solve(task) + "#" * 10 + "\n"
    assert step(env, task.id, padded)[1] == pytest.approx(1.0 - 0.11)
    assert step(env, task.id, solve(task) + "#" * 1000 + "\n")[1] == pytest.approx(0.7)


def test_speedup_is_gated_and_never_invented(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    _, reward, _, _, info = step(SpeedupReward(make(executor)), task.id, solve(task))
    assert info["reward_components"]["speedup"] == 0.0 and reward == 1.0
    assert "no speedup" in info["reward_notes"]["speedup"]
    fast = Grade(Status.OK, metrics={"speedup": 2.0})
    assert speedup_term(fast, 1.0, "log", 1.0) == pytest.approx(math.log(2.0))
    assert speedup_term(fast, 0.5, "fast_p", 1.5) == 0.5
    assert speedup_term(Grade(Status.WA, metrics={"speedup": 9.0}), 1.0, "log", 1.0) == 0.0


def test_refinement_discount_by_attempt(executor, codegym_py) -> None:
    task = codegym_py.get("codegym-py/001-count-vowel-runs")
    env = RefinementDiscount(make(executor, mode="refine", max_episode_steps=5), gamma=0.5)
    env.reset(options={"task_id": task.id})
    assert env.step(fail(task))[1] == 0.0
    assert env.step(fail(task))[1] == 0.0
    _, reward, terminated, _, info = env.step(solve(task))
    assert terminated and reward == pytest.approx(0.25)
    assert info["reward_components"] == {"correct": 1.0, "refinement_discount": -0.75}


def test_terms_stack_and_sum_to_the_reward(executor, codegym_py) -> None:
    task_id, code = next(iter(PARTIAL.items()))
    env = LengthPenalty(CompileReward(PassRateReward(make(executor)), bonus=0.2), per_char=0.001, free_chars=0)
    _, reward, _, _, info = step(env, task_id, code)
    assert set(info["reward_components"]) == {"pass_rate", "compile", "length"}
    assert reward == pytest.approx(sum(info["reward_components"].values()))


def test_flagged_infrastructure_failures_pass_through_untouched() -> None:
    class Down(Executor):
        def submit(self, job):  # type: ignore[override]
            from codegym.error import SandboxError

            raise SandboxError("worker pool down")

    import gymnasium as gym

    env = CompileReward(gym.make("codegym/PythonFunction-v0", executor=Down(), on_infra_error="flag"), bonus=5.0)
    env.reset(seed=0)
    _, reward, _, _, info = env.step("x = 1")
    assert reward == 0.0 and info["status"] == "IE" and "compile" not in info["reward_components"]
