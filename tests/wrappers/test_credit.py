"""The divergence locator names the line of a planted bug."""

from __future__ import annotations

import pytest
from codegym.wrappers import DivergenceCredit

from codegym.task import Task, TaskSet, TestCase

from .conftest import make

REFERENCE = """def weighted_total(xs, w):
    total = 0
    for i, x in enumerate(xs):
        scaled = x * w
        total = total + scaled
    result = total - len(xs)
    return result
"""
TASK = Task(
    id="credit/weighted-total",
    family="PythonFunction",
    prompt="def weighted_total(xs: list[int], w: int) -> int:\n",
    tests=(
        TestCase("test_00", "assert weighted_total([1, 2, 3], 2) == 9", hidden=False),
        TestCase("test_01", "assert weighted_total([5, 5], 3) == 28"),
    ),
    reference=REFERENCE,
    metadata={"entry_point": "weighted_total", "prefix": "", "test_prelude": ""},
)


def planted(line: int, new: str) -> str:
    lines = REFERENCE.splitlines(keepends=True)
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    lines[line - 1] = indent + new + "\n"
    return "".join(lines)


@pytest.fixture
def env(executor):
    return DivergenceCredit(make(executor, tasks=TaskSet([TASK])))


@pytest.mark.parametrize(
    ("line", "bug", "variable"),
    [
        (4, "scaled = x + w", "scaled"),
        (5, "total = total * scaled", "total"),
        (6, "result = total + len(xs)", "result"),
        (2, "total = 1", "total"),
        (3, "for i, x in enumerate(xs[:-1]):", None),
    ],
    ids=["scale", "accumulate", "final", "init", "loop-bound"],
)
def test_planted_bug_is_located(env, line: int, bug: str, variable: str) -> None:
    code = planted(line, bug)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(code)
    credit = info["credit"]
    assert reward == 0.0 and credit is not None, info.get("credit_note")
    first_failing = next(t.name for t in info["grade"].tests if not t.passed)
    assert (credit["line"], credit["variable"], credit["test"]) == (line, variable, first_failing)
    assert code[credit["start_char"] : credit["end_char"]] == code.splitlines()[line - 1]


def test_wrong_return_with_other_names_points_at_the_return(env) -> None:
    code = "def weighted_total(xs, w):\n    s = sum(xs) * w\n    return s + len(xs)\n"
    env.reset(seed=0)
    credit = env.step(code)[4]["credit"]
    assert credit["line"] == 3 and credit["variable"] is None and credit["expected"] == "9"


def test_no_credit_for_a_correct_submission(env) -> None:
    env.reset(seed=0)
    info = env.step(REFERENCE)[4]
    assert "credit" not in info and info["status"] == "OK"


def test_needs_the_python_family(executor) -> None:
    import gymnasium as gym

    class Other(gym.Env):
        observation_space = action_space = gym.spaces.Discrete(1)

    with pytest.raises(TypeError, match="needs a PythonFunction env"):
        DivergenceCredit(Other())
