"""Terminal tasks as codegym tasks: the bundled set, and Harbor or Terminal-Bench folders and rows.

A `TerminalTask` (`codegym.envs.terminal.formats`) becomes a `codegym.task.Task` whose prompt
is the instruction, whose reference is the oracle's script, and whose metadata holds the
terminal task itself (``metadata["terminal"]``). Its tests are not listed: they are the
task's test files, which only the verifier's box ever holds, counted at grading time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from codegym.envs.terminal.formats import TerminalTask, load_tasks, task_from_row

from codegym.task import Task, TaskSet

DATA = Path(__file__).parent / "data" / "tasks"
FAMILY = "terminal"
TaskSource = str | os.PathLike[str] | TaskSet | Sequence[Mapping[str, Any]] | Sequence[TerminalTask]


def to_task(terminal: TerminalTask) -> Task:
    """The codegym task of a terminal task."""
    difficulty = terminal.metadata.get("difficulty")
    tags = terminal.metadata.get("tags") or ()
    category = terminal.metadata.get("category")
    return Task(
        id=terminal.id,
        family=FAMILY,
        prompt=terminal.instruction,
        tests=(),
        language="bash",
        difficulty=difficulty if difficulty in ("easy", "medium", "hard") else None,
        tags=tuple(str(t) for t in (*((category,) if category else ()), *tags)),
        reference=oracle_script(terminal),
        metadata={"terminal": terminal},
    )


def terminal_of(task: Task) -> TerminalTask:
    """The terminal task behind ``task``."""
    terminal = task.metadata.get("terminal")
    if not isinstance(terminal, TerminalTask):
        raise TypeError(f"task {task.id!r} is not a terminal task (it is {task.family!r})")
    return terminal


def oracle_script(terminal: TerminalTask) -> str | None:
    """The text of the oracle's script (``solution/solve.sh``), which is also what single
    mode runs for the reference; for a multi-step task, each step's script under a
    ``# step NAME`` line (single mode runs each step's oracle in its turn); None for a task
    without one."""
    if terminal.steps:
        parts = [f"# step {step.name}\n{_script(step.solution, step.solution_command)}" for step in terminal.steps]
        return "\n".join(parts) if any(step.solution_command for step in terminal.steps) else None
    if not terminal.solution_command:
        return None
    return _script(terminal.solution, terminal.solution_command)


def _script(files: Mapping[str, bytes], command: tuple[str, ...]) -> str:
    if not command:
        return ""
    data = files.get(command[-1].rsplit("/", 1)[-1])
    return data.decode(errors="replace") if data is not None else " ".join(command)


def load_bundled(names: Iterable[str] | None = None) -> TaskSet:
    """codegym's own terminal tasks (``data/tasks``), or those of ``names``."""
    tasks = [to_task(t) for t in load_tasks(DATA)]
    if names is not None:
        wanted = set(names)
        tasks = [t for t in tasks if t.id in wanted]
    return TaskSet(tasks, name="terminal-bundled")


def load(source: TaskSource) -> TaskSet:
    """A task set from ``"bundled"``, a task folder or a folder of them (Harbor or
    Terminal-Bench 1 layout), rows, `TerminalTask` objects, or a `TaskSet`."""
    if isinstance(source, TaskSet):
        return source
    if isinstance(source, str) and source == "bundled":
        return load_bundled()
    if isinstance(source, str | os.PathLike):
        return TaskSet([to_task(t) for t in load_tasks(source)], name=str(source))
    tasks = [t if isinstance(t, TerminalTask) else task_from_row(t) for t in source]
    return TaskSet([to_task(t) for t in tasks], name="terminal-rows")
