"""EfficiencyReward: a correct submission's speedup against the task's reference, measured
by the meter, on PythonFunction call tasks and StdioProgram tasks; never a made-up number."""

from __future__ import annotations

import json
import math

import gymnasium as gym
import pytest
from codegym.wrappers import EfficiencyReward

import codegym  # noqa: F401

SLOW = """\
class Solution:
    def countPairs(self, a, t):
        count = 0
        for i in range(len(a)):
            for j in range(i + 1, len(a)):
                if a[i] + a[j] == t:
                    count += 1
        return count
"""
FAST = """\
class Solution:
    def countPairs(self, a, t):
        seen, count = {}, 0
        for x in a:
            count += seen.get(t - x, 0)
            seen[x] = seen.get(x, 0) + 1
        return count
"""


def apps_row() -> dict[str, object]:
    inputs = [
        [[1, -1, 2, -2], 0],
        [[1, 1, 1], 2],
        [list(range(-150, 150)), 7],
        [[(i * 7) % 23 for i in range(300)], 11],
    ]
    outputs = [sum(1 for i, x in enumerate(a) for y in a[i + 1 :] if x + y == t) for a, t in inputs]
    return {"problem_id": 9001, "question": "Count pairs i < j with a[i] + a[j] == t.", "difficulty": "introductory",
            "starter_code": "class Solution:\n    def countPairs(self, a, t):\n        ",
            "solutions": json.dumps([SLOW]), "input_output": json.dumps({"fn_name": "countPairs", "inputs": inputs,
                                                                          "outputs": outputs})}  # fmt: skip


def test_a_faster_solution_to_a_call_task_earns_its_speedup() -> None:
    env = EfficiencyReward(gym.make("codegym/PythonFunction-v0", tasks=[apps_row()]))
    env.reset(seed=0)
    _, reward, _, _, info = env.step(SLOW)
    assert info["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.005)
    assert info["reward_components"]["speedup"] == pytest.approx(0.0, abs=0.005)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(FAST)
    speedup = info["grade"].metrics["speedup"]
    assert info["status"] == "OK" and speedup > 3
    assert reward == pytest.approx(1.0 + math.log(speedup))
    assert any(d.code == "profile" for d in info["grade"].diagnostics)


def test_a_wrong_answer_is_not_metered() -> None:
    env = EfficiencyReward(gym.make("codegym/PythonFunction-v0", tasks=[apps_row()]))
    env.reset(seed=0)
    _, reward, _, _, info = env.step(FAST.replace("return count", "return count + 1"))
    assert reward == 0.0 and "speedup" not in info["grade"].metrics


def test_a_task_that_cannot_be_metered_says_why() -> None:
    env = EfficiencyReward(gym.make("codegym/PythonFunction-v0", tasks="codegym-py"))  # (assert tests, not calls)
    env.reset(seed=0)
    task = env.unwrapped.task
    _, reward, _, _, info = env.step(task.reference)
    assert info["status"] == "OK" and reward == 1.0
    assert "judged by calls" in info["reward_notes"]["speedup"]


def test_stdio_tasks_are_metered_and_other_families_refused() -> None:
    env = EfficiencyReward(gym.make("codegym/StdioProgram-v0"))
    env.reset(seed=0)
    _, _, _, _, info = env.step(env.unwrapped.task.reference)
    assert info["grade"].metrics["speedup"] == pytest.approx(1.0, abs=0.005)
    with pytest.raises(ValueError, match="meters PythonFunction and StdioProgram tasks"):
        EfficiencyReward(gym.make("codegym/Verilog-v1"))


def test_the_spec_rebuilds_the_stack() -> None:
    env = EfficiencyReward(gym.make("codegym/StdioProgram-v0"), weight=0.5, mode="fast_p", p=2.0)
    rebuilt = gym.make(env.spec)
    assert isinstance(rebuilt, EfficiencyReward) and rebuilt.p == 2.0 and rebuilt.weight == 0.5
