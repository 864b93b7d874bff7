"""Feedback detail, resuming partial trajectories, and whole wrapper stacks."""

from __future__ import annotations

import gymnasium as gym
import pytest
from codegym.wrappers import AdaptiveCurriculum, FeedbackDetail, LengthPenalty, PassRateReward

from .conftest import make

TASK = "HumanEval/2"
WRONG = "def truncate_number(number):\n    return 1 / 0\n"


def feedback_at(executor, level: str) -> str:
    env = FeedbackDetail(make(executor, tasks="humaneval"), level=level)
    env.reset(options={"task_id": TASK})
    return env.step(WRONG)[0]["feedback"]


def test_feedback_levels(executor) -> None:
    status, public, full = (feedback_at(executor, level) for level in ("status", "public", "full"))
    assert status == "Status: WA - 7 of 7 tests failed" or status.startswith("Status: WA")
    assert "\n" not in status
    assert "FAILED test_00" in public and "ZeroDivisionError" not in public and "Hidden tests: 0/" in public
    assert "ZeroDivisionError" in full and "solution:2" in full
    with pytest.raises(ValueError, match="level must be one of"):
        FeedbackDetail(make(executor), level="everything")  # type: ignore[arg-type]


def test_reset_into_a_partial_trajectory(executor) -> None:
    env = make(executor, tasks="humaneval", mode="refine", max_episode_steps=5)
    history = [
        {"code": WRONG, "feedback": "Status: WA"},
        {"code": "def truncate_number(n):\n    return 0\n", "feedback": "Status: WA"},
    ]
    obs, _ = env.reset(options={"task_id": TASK, "history": history})
    assert obs["attempt"] == 2 and "--- attempt 2 ---" in obs["feedback"] and "return 1 / 0" in obs["feedback"]
    _, reward, terminated, _, info = env.step("def truncate_number(n):\n    return n % 1.0\n")
    assert (reward, terminated, info["attempt"]) == (1.0, True, 3)
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"task": TASK})


def stack(executor):
    return AdaptiveCurriculum(PassRateReward(LengthPenalty(make(executor), per_char=0.001)), target=0.4)


def test_stack_survives_a_spec_round_trip(executor) -> None:
    env = stack(executor)
    rebuilt = gym.make(env.spec)
    assert [w.name for w in rebuilt.spec.additional_wrappers] == [
        "LengthPenalty",
        "PassRateReward",
        "AdaptiveCurriculum",
    ]
    assert rebuilt.get_wrapper_attr("target") == 0.4 and rebuilt.get_wrapper_attr("per_char") == 0.001
    rebuilt.reset(seed=0)
    _, reward, _, _, info = rebuilt.step("def f():\n    return 1\n")
    assert set(info["reward_components"]) == {"length", "pass_rate"} and reward == pytest.approx(
        sum(info["reward_components"].values())
    )


def test_stack_runs_in_an_async_vector_env() -> None:
    wrappers = [lambda e: LengthPenalty(e, per_char=0.001), PassRateReward, lambda e: AdaptiveCurriculum(e, target=0.4)]
    envs = gym.make_vec("codegym/PythonFunction-v0", num_envs=2, vectorization_mode="async", wrappers=wrappers)
    try:
        envs.reset(seed=[1, 2])
        _, reward, terminated, _, _ = envs.step(("def f():\n    return 1\n", "x ="))
        assert terminated.all() and reward.shape == (2,)
        states = envs.call("state_dict")
        assert [s["episodes"] for s in states] == [1, 1]
        merged = {
            "episodes": 2,
            "rates": {**states[0]["rates"], **states[1]["rates"]},
            "attempts": {**states[0]["attempts"], **states[1]["attempts"]},
        }
        envs.call("load_state_dict", merged)
        assert [s["episodes"] for s in envs.call("state_dict")] == [2, 2]
        envs.set_attr("target", 0.6)
        assert list(envs.get_attr("target")) == [0.6, 0.6]
    finally:
        envs.close()
