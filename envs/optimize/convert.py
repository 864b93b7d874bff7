"""Other families' tasks as optimization tasks, so that their submissions can be metered
against their references (`codegym.wrappers.EfficiencyReward`).

- a StdioProgram task in Python, C or C++ with a reference: the same program, tests and
  checker; it is benchmarked on its hidden tests' inputs (it has no generator);
- a PythonFunction call task (EvalPlus, LiveCodeBench functional, APPS call-based: its
  ``metadata["calls"]``): a function task calling the same function or ``Solution`` method
  with the same arguments, after the same prefix (LeetCode's imports).

A task that cannot be converted gets the reason instead (a str).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from codegym.envs.optimize.tasks import LANGUAGES, call_lines, json_result

from codegym.task import Task, TestCase


def as_optimization(task: Task) -> Task | str:
    """``task`` (a StdioProgram or PythonFunction task) as an Optimize task, or why it cannot be one."""
    if not task.reference:
        return "the task has no reference to measure against"
    if task.family == "StdioProgram":
        return _from_stdio(task)
    if task.family == "PythonFunction":
        return _from_calls(task)
    return f"the {task.family} family's tasks cannot be metered (only StdioProgram and PythonFunction tasks)"


def _from_stdio(task: Task) -> Task | str:
    if task.language not in LANGUAGES:
        return f"the meter counts Python, C and C++ programs, not {task.language}"
    if not task.hidden_tests:
        return "the task has no hidden tests to benchmark on"
    metadata = {"fast": None, "generator": None, "bench_size": 0, "bench_inputs": 2, "entry_point": None,
                "checker": task.metadata.get("checker", {"kind": "tokens"})}  # fmt: skip
    return replace(task, family="Optimize", metadata=metadata)


def _from_calls(task: Task) -> Task | str:
    calls: Mapping[str, Mapping[str, Any]] | None = task.metadata.get("calls")
    if not calls:
        return "only a PythonFunction task judged by calls (EvalPlus, LiveCodeBench, APPS) can be metered"
    callable_ = str(task.metadata.get("callable") or task.metadata.get("entry_point"))
    prefix = str(task.metadata.get("prefix") or "")
    tests = []
    for test in task.tests:
        call = calls.get(test.name)
        if call is None:
            return f"its test {test.name} is not a call"
        expected = json_result(call["expected"])
        tests.append(TestCase(test.name, call_lines([call["args"]]), hidden=test.hidden, expected=expected))
    if not any(t.hidden for t in tests):
        return "the task has no hidden tests to benchmark on"
    metadata = {"fast": None, "generator": None, "bench_size": 0, "bench_inputs": 2, "checker": {"kind": "tokens"},
                "entry_point": callable_.rsplit(".", 1)[-1], "prefix": prefix}  # fmt: skip
    return replace(task, family="Optimize", tests=tuple(tests), metadata=metadata)
