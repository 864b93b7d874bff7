"""OutputPrediction-v1: both directions, every task source, and output answers that are never run
(input answers, run in the sandbox: test_inputs.py)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.output_prediction.generator import Knobs, generate
from codegym.wrappers import DifficultyCurriculum

import codegym
from codegym.batch import Scorer
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.task import Task, TaskSet, TestCase

ENV = "codegym/OutputPrediction-v1"
# A CRUXEval-shaped fixture of our own: code defining f, the argument text, the output's text.
ROWS = [
    {"id": "sample_0", "code": "def f(nums):\n    return sorted(set(nums))\n", "input": "[3, 1, 3, 2]",
     "output": "[1, 2, 3]"},
    {"id": "sample_1", "code": "def f(text, n):\n    return text[:n] + str(len(text))\n", "input": "'hello', 2",
     "output": "'he5'"},
    {"id": "sample_2", "code": "def f(a, b):\n    return a / b\n", "input": "1, 3", "output": "0.3333333333333333"},
    {"id": "sample_3", "code": "def f(n):\n    while n != 0:\n        n -= 2\n    return 'even'\n", "input": "4",
     "output": "'even'"},
    {"id": "sample_4", "code": "def f(x):\n    return 10 // x\n", "input": "5", "output": "2"},
    {"id": "sample_5", "code": "def f(pair):\n    return pair[0] + pair[1]\n", "input": "(1, 2)", "output": "3"},
]  # fmt: skip


@pytest.fixture(scope="module")
def fixture_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cruxeval") / "mini.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def make(executor: LocalExecutor, **kwargs: Any) -> gym.Env:
    return gym.make(ENV, executor=executor, **kwargs)


def step(env: gym.Env, task_id: str, answer: str) -> tuple[float, dict[str, Any], dict[str, Any]]:
    env.reset(options={"task_id": task_id})
    obs, reward, _, _, info = env.step(answer)
    return float(reward), info, obs


def perturbed(value: Any) -> tuple[Any, Any]:
    """``value`` with another value of its type, and with the same value in another type."""
    kind = type(value)
    if kind is bool:
        return (not value), int(value)
    if kind is int:
        return value + 1, float(value)
    if kind is float:
        return value + 1.0, (int(value) if value.is_integer() else str(value))
    if kind is str:
        return value + "x", list(value)
    if kind is list:
        return [*value, 0], tuple(value)
    if kind is tuple:
        return (*value, 0), list(value)
    if kind is set:
        return {*value, 10**6}, sorted(value)
    if kind is dict:
        return {**value, "zz": 0}, list(value.items())
    raise AssertionError(f"no perturbation for {kind}")


def test_generated_answers_score_one_and_perturbed_answers_zero(executor: LocalExecutor) -> None:
    env = make(executor, count=200, seed=3).unwrapped
    tasks = list(env.tasks)
    assert not env.invalid_tasks, env.invalid_tasks  # the generator makes no program that raises or hangs
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    submissions = []
    for task in tasks:
        value = eval(task.reference)  # (the test's own recorded literal)
        other, retyped = perturbed(value)
        submissions += [(task.id, task.reference), (task.id, repr(other)), (task.id, repr(retyped))]
    grades = codegym.score(ENV, submissions, executor=executor, count=200, seed=3)
    statuses = [g.status for g in grades]
    assert statuses[0::3] == [Status.OK] * 200
    assert statuses[1::3] == [Status.WA] * 200 and statuses[2::3] == [Status.WA] * 200


def test_type_changes_are_wrong_answers(executor: LocalExecutor, fixture_file: Path) -> None:
    env = make(executor, tasks=str(fixture_file))
    assert step(env, "sample_0", "[1, 2, 3]")[0] == 1.0
    for wrong in ("(1, 2, 3)", "[1, 2, 3.0]", "[1, 2, True]", "[1, 2]"):
        reward, info, obs = step(env, "sample_0", wrong)
        assert (reward, info["status"]) == (0.0, "WA"), wrong
        assert "[1, 2, 3]" not in obs["feedback"]  # the expected answer is never shown
    assert step(env, "sample_4", "2.0")[1]["status"] == "WA"
    assert step(env, "sample_1", "'he5'")[0] == 1.0 and step(env, "sample_1", "b'he5'")[0] == 0.0


def test_answers_in_cruxeval_and_chat_forms(executor: LocalExecutor, fixture_file: Path) -> None:
    env = make(executor, tasks=str(fixture_file))
    for answer in (
        "[ANSWER]\nassert f([3, 1, 3, 2]) == [1, 2, 3]\n[/ANSWER]",
        "It dedupes and sorts.\n```python\nassert f([3, 1, 3, 2]) == [1, 2, 3]\n```",
        "[1,2,3]",
    ):
        assert step(env, "sample_0", answer)[0] == 1.0, answer
    prompt = env.reset(options={"task_id": "sample_0"})[0]["prompt"]
    assert "f([3, 1, 3, 2])" in prompt and "def f(nums):" in prompt and "[1, 2, 3]" not in prompt


def test_float_tolerance_is_honoured_and_configurable(executor: LocalExecutor, fixture_file: Path) -> None:
    env = make(executor, tasks=str(fixture_file))
    assert step(env, "sample_2", "0.3333333")[0] == 1.0  # within 1e-6
    assert step(env, "sample_2", "0.3333")[0] == 0.0
    strict = make(executor, tasks=str(fixture_file), tolerance=1e-12)
    assert step(strict, "sample_2", "0.3333333")[0] == 0.0
    assert step(strict, "sample_2", "0.3333333333333333")[0] == 1.0
    loose = make(executor, tasks=str(fixture_file), tolerance=0.01)
    assert step(loose, "sample_2", "0.33")[0] == 1.0
    with pytest.raises(ValueError, match="tolerance"):
        make(executor, tasks=str(fixture_file), tolerance=-1.0)


def test_input_prediction_runs_the_function_on_the_answer(executor: LocalExecutor, fixture_file: Path) -> None:
    env = make(executor, tasks=str(fixture_file), direction="input", limits=Limits(cpu_s=0.5, wall_s=1.0))
    obs, _ = env.reset(options={"task_id": "sample_1"})
    assert "'he5'" in obs["prompt"]
    assert env.unwrapped.tasks.get("sample_1").reference == "'hello', 2"
    assert step(env, "sample_1", "'hello', 2")[0] == 1.0
    reward, info, obs = step(env, "sample_1", "'heyyo', 2")  # not the recorded input: the same output
    assert (reward, info["status"]) == (1.0, "OK")
    reward, info, obs = step(env, "sample_1", "'hi', 2")
    assert (reward, info["status"]) == (0.0, "WA") and "'hi2'" in obs["feedback"]
    assert step(env, "sample_5", "(1, 2)")[0] == 1.0 and step(env, "sample_5", "f((0, 3))")[0] == 1.0
    assert step(env, "sample_5", "[ANSWER]assert f((2, 1)) == 3[/ANSWER]")[0] == 1.0
    reward, info, obs = step(env, "sample_5", "1, 2")  # two arguments, not one tuple
    assert info["status"] == "RE" and "TypeError" in obs["feedback"]
    reward, info, obs = step(env, "sample_4", "0")
    assert info["status"] == "RE" and "ZeroDivisionError" in obs["feedback"]
    assert step(env, "sample_3", "3")[1]["status"] == "TLE"
    reward, info, obs = step(env, "sample_5", "pair=(1, 2)")
    assert info["status"] == "CE" and "keyword" in obs["feedback"]


def test_an_output_answer_that_is_code_is_never_run(executor: LocalExecutor, fixture_file: Path) -> None:
    env = make(executor, tasks=str(fixture_file))
    marker = Path(f"/tmp/codegym-op-{uuid.uuid4().hex}")
    for answer in (
        f"__import__('os').system('touch {marker}')",
        f"[ANSWER]assert f(exec('import os')) == __import__('os').system('touch {marker}')[/ANSWER]",
        f"f(open('{marker}', 'w'))",
        f"(lambda: open('{marker}', 'w'))()",
        "lambda: 1",
        "f(1) + f(2)",
    ):
        reward, info, obs = step(env, "sample_0", answer)
        assert (reward, info["status"]) == (0.0, "CE"), answer
        assert "literal" in obs["feedback"] or "arguments" in obs["feedback"]
    assert not marker.exists()


def test_derived_items_from_codegym_py_grade_their_reference(executor: LocalExecutor) -> None:
    env = make(executor, tasks="codegym-py").unwrapped
    tasks = list(env.tasks)
    assert len(tasks) > 300 and not env.invalid_tasks
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    grades = codegym.score(ENV, [(t.id, t.reference) for t in tasks], executor=executor, tasks="codegym-py")
    assert {g.status for g in grades} == {Status.OK}
    task = env.tasks.get("codegym-py/001-count-vowel-runs/test_00")
    assert "count_vowel_runs('beautiful')" in task.prompt or 'count_vowel_runs("beautiful")' in task.prompt
    assert task.reference == "3"
    assert not any(">>>" in t.prompt for t in tasks)  # (docstrings' examples would give answers away)
    some = [t.id for t in tasks[::40]]
    inputs = make(executor, tasks="codegym-py", direction="input").unwrapped
    grades = codegym.score(ENV, [(i, inputs.tasks.get(i).reference) for i in some], executor=executor,
                           tasks="codegym-py", direction="input")  # fmt: skip
    assert {g.status for g in grades} == {Status.OK}


def test_a_program_that_raises_or_hangs_makes_its_task_invalid(executor: LocalExecutor) -> None:
    source = TaskSet([Task(
        id="t/g", family="PythonFunction", prompt="def g(x):\n", reference=(
            "def g(x):\n    if x < 0:\n        while True:\n            pass\n    return 10 // x\n"),
        tests=(TestCase("test_00", "assert g(0) == 1"), TestCase("test_01", "assert g(-1) == 1"),
               TestCase("test_02", "assert g(5) == 2")),
        metadata={"entry_point": "g"},
    )], name="mine")  # fmt: skip
    env = make(executor, tasks=source, limits=Limits(cpu_s=0.5, wall_s=2.0))
    reward, info, _ = step(env, "t/g/test_00", "1")
    assert info["status"] == "IE" and "ZeroDivisionError" in info["task_error"]
    reward, info, _ = step(env, "t/g/test_01", "1")
    assert info["status"] == "IE" and "task_error" in info
    assert step(env, "t/g/test_02", "2")[0] == 1.0
    assert set(env.unwrapped.invalid_tasks) == {"t/g/test_00", "t/g/test_01"}


def test_generator_is_deterministic_and_its_knobs_change_programs() -> None:
    assert [generate(0, i) for i in range(50)] == [generate(0, i) for i in range(50)]
    assert [generate(0, i).code for i in range(50)] != [generate(1, i).code for i in range(50)]
    assert len({generate(0, i).code for i in range(50)}) == 50
    flat = [generate(0, i, Knobs(loop_depth=0, branches=0, ops=("int",))).code for i in range(20)]
    assert not any("for " in code or "\n    if " in code for code in flat)
    assert all(code.startswith("def f(n):") for code in flat)
    nested = [generate(0, i, Knobs(loop_depth=2, branches=3, ops=("str", "list"))).code for i in range(20)]
    assert all(code.startswith("def f(s, xs):") and "\n        for " in code for code in nested)
    assert all(code.count(" if ") + code.count(" elif ") >= 3 for code in nested)
    assert Knobs(0, 0, ("int",), 1).difficulty == "easy" and Knobs(3, 4, ("int", "str", "list"), 6).difficulty == "hard"
    with pytest.raises(ValueError, match="ops"):
        Knobs(ops=("float",))


def test_env_arguments_reach_the_generator(executor: LocalExecutor) -> None:
    first = make(executor, count=5, seed=1).unwrapped
    again = make(executor, count=5, seed=1).unwrapped
    other = make(executor, count=5, seed=2).unwrapped
    knobbed = make(executor, count=5, seed=1, knobs={"loop_depth": 0, "branches": 0, "ops": ["str"]}).unwrapped
    prompts = [[t.prompt for t in env.tasks] for env in (first, again, other, knobbed)]
    assert prompts[0] == prompts[1] and prompts[0] != prompts[2] and prompts[0] != prompts[3]
    assert len(make(executor, count=1234).unwrapped.tasks) == 1234
    easy = make(executor, count=40, seed=1).unwrapped.tasks.filter(
        difficulty="easy"
    )  # (a set of this family's tasks is a source too)
    rebuilt = make(executor, tasks=easy, direction="input").unwrapped
    assert rebuilt.tasks.ids == easy.ids and {t.difficulty for t in rebuilt.tasks} <= {"easy"}
    assert all(t.reference == t.metadata["input"] for t in rebuilt.tasks)
    with pytest.raises(ValueError, match="unknown knobs"):
        make(executor, knobs={"depth": 2})


def test_scorer_groups_and_refine_mode(executor: LocalExecutor, fixture_file: Path) -> None:
    with Scorer(ENV, executor=executor, tasks=str(fixture_file)) as scorer:
        groups = scorer.score_groups([("sample_0", ["[1, 2, 3]", "[1, 2]", "nope("]), ("sample_4", ["2", "2.0"])])
    assert [[g.status.value for g in group] for group in groups] == [["OK", "WA", "CE"], ["OK", "WA"]]
    env = make(executor, tasks=str(fixture_file), mode="refine", max_episode_steps=4)
    env.reset(options={"task_id": "sample_4"})
    results = [env.step(answer) for answer in ("3", "2.0", "2")]
    assert [(r[1], r[2], r[3]) for r in results] == [(0.0, False, False), (0.0, False, False), (1.0, True, False)]
    assert results[2][0]["attempt"] == 3
    env.reset(options={"task_id": "sample_4"})
    assert [env.step("9")[3] for _ in range(4)] == [False, False, False, True]


def test_agent_mode_and_bad_arguments_are_refused(executor: LocalExecutor) -> None:
    with pytest.raises(ValueError, match="agent"):
        make(executor, mode="agent")
    with pytest.raises(ValueError, match="direction"):
        make(executor, direction="both")


def test_difficulty_curriculum_runs_over_it(executor: LocalExecutor) -> None:
    env = DifficultyCurriculum(make(executor, count=60), order="easy_to_hard", episodes_per_stage=2)
    env.reset(seed=0)
    seen = []
    for _ in range(6):
        _, info = env.reset()
        seen.append(info["difficulty"])
        *_, step_info = env.step("0")
        assert step_info["status"] in ("OK", "WA")
    assert seen == ["easy"] * 2 + ["medium"] * 2 + ["hard"] * 2


def test_validate_reports_every_generated_task_valid(executor: LocalExecutor) -> None:
    report = codegym.validate(ENV, runs=1, executor=executor, count=30, direction="input")
    assert report.counts()["valid"] == 30 and not report.quarantined


def test_validate_checks_a_seeded_sample_of_a_set(executor: LocalExecutor) -> None:
    first = codegym.validate(ENV, runs=1, executor=executor, count=30, direction="input", sample=5, seed=3)
    again = codegym.validate(ENV, runs=1, executor=executor, count=30, direction="input", sample=5, seed=3)
    assert first.counts()["valid"] == 5 and len(first.checks) == 5
    assert [c.task_id for c in first.checks] == [c.task_id for c in again.checks]
    with pytest.raises(ValueError, match="sample must be at least 1"):
        codegym.validate(ENV, runs=1, executor=executor, count=30, sample=0)
