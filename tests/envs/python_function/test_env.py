"""PythonFunction-v0 behaviour: task sources, modes, observations and feedback."""

from __future__ import annotations

import json
import marshal
import os
import signal
import threading
from collections import Counter
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.python_function.env import assemble
from codegym.envs.python_function.tasks import load_tasks

import codegym
from codegym.error import ResetNeeded, TaskFormatError, UnknownTask
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import STATUSES, Status
from codegym.spaces import NO_STATUS
from codegym.task import Task, TaskSet, TestCase

ENV = "codegym/PythonFunction-v0"


def make(executor: LocalExecutor, **kwargs) -> gym.Env:
    return gym.make(ENV, executor=executor, **kwargs)


def test_codegym_py_set_is_complete_and_every_reference_passes(executor: LocalExecutor) -> None:
    tasks = load_tasks("codegym-py")
    assert len(tasks) >= 40
    assert set(Counter(t.difficulty for t in tasks)) == {"easy", "medium", "hard"}
    for task in tasks:
        assert task.reference and task.public_tests and task.hidden_tests
        assert {t.tier for t in task.tests} == {"basic", "intermediate", "complex", "edge"}
    grades = codegym.score(ENV, [(t.id, t.reference or "") for t in tasks], executor=executor)
    assert [g.status for g in grades] == [Status.OK] * len(tasks)
    stubs = codegym.score(ENV, [(t.id, t.prompt + "    return None\n") for t in tasks], executor=executor)
    assert not any(g.passed for g in stubs)


def test_public_tests_show_details_and_hidden_tests_only_counts(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval")
    obs, info = env.reset(options={"task_id": "HumanEval/0"})
    assert obs["status"] == NO_STATUS and obs["feedback"] == "" and info["task_id"] == "HumanEval/0"
    obs, reward, terminated, truncated, info = env.step(
        "def has_close_elements(numbers, threshold):\n    return True\n"
    )
    grade = info["grade"]
    assert (reward, terminated, truncated, grade.status) == (0.0, True, False, Status.WA)
    assert STATUSES[obs["status"]] is Status.WA
    public = [t for t in grade.tests if not t.hidden]
    hidden = [t for t in grade.tests if t.hidden]
    assert len(public) == 1 and len(hidden) == 6
    assert obs["tests_count"] == 7 and obs["tests_hidden"][:7].tolist() == [0, 1, 1, 1, 1, 1, 1]
    assert "Hidden tests: 3/6 passed" in obs["feedback"]
    for test in hidden:  # the rendered feedback never quotes a hidden test
        assert test.call is None or test.call not in obs["feedback"]
    assert 0.0 < grade.metrics["pass_rate"] < 1.0 and grade.resources["cpu_s"] > 0


def test_failed_public_test_shows_call_expected_and_got(executor: LocalExecutor) -> None:
    env = make(executor)
    env.reset(options={"task_id": "codegym-py/001-count-vowel-runs"})
    obs, *_ = env.step("def count_vowel_runs(text):\n    return 7\n")
    assert (
        'call: count_vowel_runs("beautiful")' in obs["feedback"]
        or "call: count_vowel_runs('beautiful')" in obs["feedback"]
    )
    assert "expected: 3" in obs["feedback"] and "got: 7" in obs["feedback"]


def test_syntax_error_is_ce_with_a_located_diagnostic(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval")
    env.reset(options={"task_id": "HumanEval/2"})
    obs, reward, *_, info = env.step("def truncate_number(number):\n    return number %% 1.0\n")
    diagnostic = info["grade"].diagnostics[0]
    assert info["grade"].status is Status.CE and reward == 0.0
    assert diagnostic.line == 2 and diagnostic.column is not None and "SyntaxError" in diagnostic.message
    assert "solution:2:" in obs["diagnostics"]


def test_runtime_error_shows_only_the_submissions_frames(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval")
    env.reset(options={"task_id": "HumanEval/2"})
    _, _, _, _, info = env.step(
        "def helper(x):\n    return x / 0\n\ndef truncate_number(number):\n    return helper(number)\n"
    )
    grade = info["grade"]
    assert grade.status is Status.WA
    trace = grade.tests[0].trace or ""
    assert "ZeroDivisionError" in trace and "line 2, in helper" in trace and "codegym" not in trace
    assert grade.diagnostics[0].line == 2


def test_chat_answers_with_fenced_code_are_accepted(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval")
    env.reset(options={"task_id": "HumanEval/2"})
    answer = (
        "Here you go:\n```python\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n```\nDone."
    )
    assert env.step(answer)[1] == 1.0


def test_refinement_mode_ends_when_solved_and_truncates_by_time_limit(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval", mode="refine", max_episode_steps=3)
    env.reset(options={"task_id": "HumanEval/2"})
    wrong = "def truncate_number(number):\n    return 0.0\n"
    obs, reward, terminated, truncated, info = env.step(wrong)
    assert (reward, terminated, truncated, obs["attempt"]) == (0.0, False, False, 1)
    obs, reward, terminated, truncated, info = env.step("def truncate_number(number):\n    return number % 1.0\n")
    assert (reward, terminated, truncated, info["attempt"]) == (1.0, True, False, 2)
    env.reset(options={"task_id": "HumanEval/2"})
    results = [env.step(wrong) for _ in range(3)]
    assert [(r[2], r[3]) for r in results] == [(False, False), (False, False), (False, True)]


def test_each_step_is_judged_by_its_own_tasks_tests(executor: LocalExecutor) -> None:
    """The env keeps the last task's harness: a step on another task, or on the same task
    under other limits, must not be judged by it."""
    tasks = TaskSet([_task("answer/42", "42"), _task("answer/7", "7")])
    env = make(executor, tasks=tasks, mode="single")
    for task_id, code, reward in [
        ("answer/42", "def answer():\n    return 42\n", 1.0),
        ("answer/7", "def answer():\n    return 42\n", 0.0),
        ("answer/7", "def answer():\n    return 7\n", 1.0),
        ("answer/42", "def answer():\n    return 7\n", 0.0),
    ]:
        env.reset(options={"task_id": task_id})
        assert env.step(code)[1] == reward, (task_id, code)
    unwrapped = env.unwrapped
    task = tasks.get("answer/42")
    slow, fast = Limits(wall_s=9.0), Limits(wall_s=3.0)
    budgets = [
        marshal.loads(unwrapped.build_job(task, "", limits).harness.payload)["time_budget_s"] for limits in (slow, fast)
    ]
    assert budgets == [9.0, 3.0]


def _task(task_id: str, value: str) -> Task:
    return Task(
        id=task_id,
        family="PythonFunction",
        prompt="def answer() -> int:\n",
        tests=(TestCase("test_00", f"assert answer() == {value}", hidden=False),),
        metadata={"entry_point": "answer", "prefix": "", "test_prelude": ""},
    )


def test_step_before_reset_is_an_error(executor: LocalExecutor) -> None:
    env = make(executor).unwrapped
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step("x = 1")


def test_unknown_task_id_suggests_close_ids(executor: LocalExecutor) -> None:
    env = make(executor, tasks="humaneval")
    with pytest.raises(UnknownTask, match=r"Did you mean .*HumanEval/16"):
        env.reset(options={"task_id": "humaneval/16"})


def test_mbpp_jsonl_is_loaded_and_judged(executor: LocalExecutor, tmp_path: Path) -> None:
    record = {
        "task_id": 2,
        "text": "Write a function to find the shared elements from the given two lists.",
        "code": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))",
        "test_list": [
            "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))",
            "assert set(similar_elements((1, 2, 3, 4),(5, 4, 3, 7))) == set((3, 4))",
            "assert set(similar_elements((11, 12, 14, 13),(17, 15, 14, 13))) == set((13, 14))",
        ],
        "test_setup_code": "",
    }
    path = tmp_path / "mbpp.jsonl"
    path.write_text(json.dumps(record) + "\n")
    tasks = load_tasks(path)
    assert tasks.ids == ("mbpp/2",) and "similar_elements" in tasks.get("mbpp/2").prompt
    good, bad = codegym.score(
        ENV,
        [("mbpp/2", record["code"]), ("mbpp/2", "def similar_elements(a, b):\n    return ()")],
        tasks=path,
        executor=executor,
    )
    assert (good.status, bad.status) == (Status.OK, Status.WA)


def test_bad_task_file_names_the_expected_fields(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "?"}\n')
    with pytest.raises(TaskFormatError, match=r"bad.jsonl:1: expected MBPP fields"):
        load_tasks(path)


def test_infrastructure_failure_can_be_flagged_instead_of_raised(executor: LocalExecutor) -> None:
    from codegym.executor.base import Executor

    class Broken(Executor):
        def submit(self, job):  # type: ignore[override]
            from codegym.error import SandboxError

            raise SandboxError("daemon gone")

    env = gym.make(ENV, executor=Broken(), on_infra_error="flag")
    env.reset(seed=1)
    _, reward, _, _, info = env.step("def f(): pass")
    assert (reward, info["status"], info["infra_error"]) == (0.0, "IE", "daemon gone")
    strict = gym.make(ENV, executor=Broken())
    strict.reset(seed=1)
    from codegym.error import SandboxError

    with pytest.raises(SandboxError, match="daemon gone"):
        strict.step("def f(): pass")


def test_completion_and_full_function_submissions_are_assembled() -> None:
    task = load_tasks("humaneval").get("HumanEval/2")
    program, offset = assemble(task, "def truncate_number(x):\n    return x % 1\n")
    assert program.startswith(task.prompt.rstrip("\n")) and program.endswith("return x % 1\n")
    assert program.splitlines()[offset] == "def truncate_number(x):"
    program, offset = assemble(task, "    return number % 1.0\n")
    assert program == task.prompt + "    return number % 1.0\n"


def test_a_worker_killed_mid_step_is_retried_not_scored() -> None:
    with LocalExecutor(workers=1) as executor:
        env = make(executor, tasks="humaneval")
        env.reset(options={"task_id": "HumanEval/2"})
        assert env.step("def truncate_number(n):\n    return n % 1.0\n")[1] == 1.0
        victim = executor.worker_pids()[0]
        env.reset(options={"task_id": "HumanEval/2"})
        threading.Timer(0.3, os.kill, (victim, signal.SIGKILL)).start()
        slow = "import time\ntime.sleep(1)\ndef truncate_number(n):\n    return n % 1.0\n"
        _, reward, _, _, info = env.step(slow)
        assert (reward, info["status"]) == (1.0, "OK")
        assert executor.stats["retries"] == 1 and executor.worker_pids() != [victim]
