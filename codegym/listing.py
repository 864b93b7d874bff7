"""What ``codegym list`` and ``codegym show`` print: the registered envs and their task sets;
one env's tasks (id, difficulty, test tiers, test counts); one task's prompt, as the model
reads it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import gymnasium as gym

from codegym.task import Task, TaskSet

TASK_SETS = {
    "PythonFunction": "codegym-py, humaneval, or an MBPP/codegym JSONL file",
    "OutputPrediction": "generated (count=, seed=, knobs=), codegym-py, humaneval, or a CRUXEval-format JSONL file",
    "StdioProgram": "codegym-stdio, or an APPS/CodeContests/LiveCodeBench/plain JSON(L) file",
    "Optimize": "codegym-optimize (Python, C, C++), or a JSON(L) file of rows with reference, generator and tests",
    "TritonKernel": "codegym-triton, a folder of KernelBench problem files, or a JSON(L) file of KernelBench rows",
    "Verilog": "codegym-verilog, a folder in the VerilogEval v2 layout, or a JSON(L) file of records",
    "TestGeneration": "any PythonFunction task set (codegym-py, humaneval, an MBPP/HumanEval file)",
    "RepoRepair": "bundled (7 PyPI libraries), a task file from `codegym repo build`, or SWE-bench JSONL",
    "SVGFromImage": "codegym-svg (48 pictures), generated, or a JSON(L) file of svg-stack rows (Filename, Svg)",
    "ChartFromImage": "codegym-charts (48 charts), generated, or a JSON(L) file of ChartMimic rows",
    "HTMLFromScreenshot": "codegym-pages (42 pages), generated, WebSight rows, or a Design2Code folder",
    "Dafny": "codegym-dafny (task_kind='hints', 'impl' or 'spec'), a DafnyBench or vericoding folder, or rows",
    "WhyML": "codegym-whyml (31 modules: Defs, Spec, Impl), a folder of such .mlw files, or rows",
    "PyContracts": "codegym-contracts (51 functions with hidden PEP 316 contracts), a folder of such .py files or rows",
    "Terminal": "bundled (60 tasks), Harbor task folders (or a folder of them), Terminal-Bench 1 folders, or rows",
}
DIFFICULTIES = ("easy", "medium", "hard")
HEADER = ("task id", "difficulty", "tiers", "tests (public/hidden)")


def env_lines() -> list[str]:
    """One line per registered codegym env: its id and the task sets it reads."""
    lines = []
    for env_id in sorted(i for i in gym.registry if i.startswith("codegym/")):
        family = env_id.removeprefix("codegym/").rsplit("-v", 1)[0]
        lines.append(f"{env_id:31} tasks: {TASK_SETS.get(family, 'see the env docstring')}")
    return lines


def env_tasks(env_id: str, tasks: str | None, options: Mapping[str, Any]) -> TaskSet:
    """The task set ``gym.make(env_id, tasks=tasks, **options)`` plays (its bundled set when
    ``tasks`` is None); nothing is run."""
    with _made(env_id, tasks, options) as env:
        return env.unwrapped.tasks  # type: ignore[attr-defined]


def task_row(task: Task) -> tuple[str, str, str, str]:
    """A task's id, difficulty, test tiers and test counts, as `task_table` prints them."""
    tiers = sorted({test.tier for test in task.tests if test.tier is not None})
    tests = f"{len(task.public_tests)}/{len(task.hidden_tests)}"
    invalid = f" (invalid: {task.invalid})" if task.invalid else ""
    return task.id, task.difficulty or "-", ",".join(tiers) or "-", tests + invalid


def task_table(tasks: TaskSet) -> str:
    """A header, one aligned row per task (`task_row`), and a count by difficulty."""
    rows = [HEADER, *(task_row(task) for task in tasks)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(HEADER) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1]
             for row in rows]  # fmt: skip
    counts = Counter(task.difficulty or "unknown" for task in tasks)
    order = [d for d in DIFFICULTIES if d in counts] + sorted(set(counts) - set(DIFFICULTIES))
    by = ", ".join(f"{counts[difficulty]} {difficulty}" for difficulty in order)
    lines.append(f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} in {tasks.name!r} ({by})")
    return "\n".join(line.rstrip() for line in lines)


def task_prompt(env_id: str, task_id: str, tasks: str | None, options: Mapping[str, Any]) -> str:
    """The prompt of ``task_id`` as the model reads it: the observation's ``prompt`` after
    ``reset(options={"task_id": task_id})`` (an unknown id raises `codegym.error.UnknownTask`,
    naming close ones)."""
    with _made(env_id, tasks, options) as env:
        observation, _ = env.reset(options={"task_id": task_id})
        return str(observation["prompt"])


@contextmanager
def _made(env_id: str, tasks: str | None, options: Mapping[str, Any]) -> Iterator[gym.Env[Any, Any]]:
    """``gym.make(env_id, tasks=tasks, **options)`` (its bundled set when ``tasks`` is None),
    closed on the way out."""
    env = gym.make(env_id, **{**options, **({"tasks": tasks} if tasks is not None else {})})
    try:
        yield env
    finally:
        env.close()
