"""Stages of a terminal task: one for a plain task, one per ``[[steps]]`` table of a multi-step one.

A multi-step Harbor task is done in one machine, step after step: before a step, its
``workdir/`` files are copied into the working directory and its ``setup.sh`` runs there (a
failure ends the task); the agent works; its tests judge the machine. A step whose reward is
under its ``min_reward`` ends the task (the steps after it score 0). The task's reward is the
mean of its steps' rewards (``multi_step_reward_strategy = "mean"``, the default) or the last
step's (``"final"``).
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from codegym.envs.terminal.formats import TerminalTask

from codegym.error import InvalidTask
from codegym.executor.rootbox import CommandResult, RootBox
from codegym.grade import Grade, Status, TestOutcome

MAX_COPIED_BYTES = 1 << 20  # a step's workdir file (it goes through a command line)


@dataclass(frozen=True)
class Stage:
    """What one stage of a task asks and how it is judged."""

    name: str
    instruction: str
    tests: Mapping[str, bytes]
    test_command: tuple[str, ...]
    agent_timeout_s: float
    verifier_timeout_s: float
    solution: Mapping[str, bytes] = field(default_factory=dict)
    solution_command: tuple[str, ...] = ()
    workdir_files: Mapping[str, bytes] = field(default_factory=dict)
    min_reward: float | None = None


def stages(terminal: TerminalTask) -> tuple[Stage, ...]:
    """The task's stages, in order."""
    if not terminal.steps:
        return (Stage("task", terminal.instruction, terminal.tests, terminal.test_command, terminal.agent_timeout_s,
                      terminal.verifier_timeout_s, terminal.solution, terminal.solution_command),)  # fmt: skip
    return tuple(
        Stage(
            step.name,
            step.instruction,
            step.tests,
            step.test_command,
            step.agent_timeout_s,
            step.verifier_timeout_s,
            step.solution,
            step.solution_command,
            step.workdir_files,
            _threshold(step.min_reward),
        )
        for step in terminal.steps
    )


def _threshold(value: float | Mapping[str, float] | None) -> float | None:
    """A step's ``min_reward`` as one number (a table: its ``reward`` entry, else its least)."""
    if value is None or isinstance(value, int | float):
        return value
    if "reward" in value:
        return float(value["reward"])
    return min((float(v) for v in value.values()), default=None)


def copy_into(box: RootBox, files: Mapping[str, bytes], folder: str, *, user: str) -> None:
    """Write ``files`` (relative path -> content) under ``folder`` in the box, as ``user``."""
    for relative, content in files.items():
        if len(content) > MAX_COPIED_BYTES:
            raise InvalidTask(f"a step's workdir file {relative} is over {MAX_COPIED_BYTES} bytes")
        path = f"{folder.rstrip('/')}/{relative}"
        script = 'mkdir -p "$(dirname "$1")" && printf %s "$2" | base64 -d > "$1"'
        result = box.run(("sh", "-c", script, "sh", path, base64.b64encode(content).decode()), user=user, cwd="/")
        if result.exit_code != 0:
            raise InvalidTask(f"cannot copy a step's file to {path}: {result.output.strip()[-300:]}")


def prepare(box: RootBox, stage: Stage, *, workdir: str, user: str, env: Mapping[str, str]) -> CommandResult | None:
    """Copy the stage's workdir files into the machine and run its ``setup.sh`` there; the
    setup's run (None when it has none)."""
    if not stage.workdir_files:
        return None
    copy_into(box, stage.workdir_files, workdir, user=user)
    if "setup.sh" not in stage.workdir_files:
        return None
    command = f"bash {shlex.quote(workdir.rstrip('/') + '/setup.sh')}"
    return box.run(("sh", "-c", command), user=user, cwd=workdir, env=env, timeout_s=stage.agent_timeout_s)


def reward_of(rewards: Sequence[float], count: int, strategy: str | None) -> float:
    """A multi-step task's reward from its steps' (steps not reached count 0)."""
    if strategy == "final":
        return rewards[-1] if len(rewards) == count else 0.0
    return sum(rewards) / count


def combine(grades: Sequence[Grade], names: Sequence[str], strategy: str | None) -> Grade:
    """One grade for the steps judged so far (``OK`` when every step of ``names`` passed)."""
    tests: list[TestOutcome] = []
    for name, grade in zip(names, grades, strict=False):
        tests += [TestOutcome(name=f"{name}: {t.name}", passed=t.passed, status=t.status, trace=t.trace,
                              time_s=t.time_s) for t in grade.tests]  # fmt: skip
    rewards = [1.0 if g.status is Status.OK else 0.0 for g in grades]
    reward = reward_of(rewards, len(names), strategy)
    all_ok = len(grades) == len(names) and all(g.status is Status.OK for g in grades)
    failing = next(
        (f"step {n}: {g.message}" for n, g in zip(names, grades, strict=False) if g.status is not Status.OK), ""
    )
    status = Status.OK if all_ok else next((g.status for g in grades if g.status is not Status.OK), Status.WA)
    passed = sum(t.passed for t in tests)
    metrics = {
        "pass_rate": passed / len(tests) if tests else 0.0,
        "tests_passed": float(passed),
        "tests_total": float(len(tests)),
        "steps_passed": float(sum(rewards)),
        "steps_total": float(len(names)),
        "multi_step_reward": reward,
    }
    message = f"all {len(names)} steps passed" if all_ok else failing or f"{len(grades)} of {len(names)} steps reached"
    return Grade(status, tuple(tests), metrics=metrics, message=message)
