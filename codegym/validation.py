"""Task validation: run every task's reference, report which tasks can be graded, quarantine the rest.

A task is *valid* when its reference is solved (`codegym.Grade.solved`: its family's measure,
which for some families asks more than status ``OK``) in every one of ``runs`` gradings, *invalid* when
none is (with the reason: it does not compile, fails its own tests, exceeds limits, its
testbench reports a timeout, ...) or its family's own checks of it fail (a KernelBench
``Model`` that does not run, an optimization task's faster solution that is not faster),
and *flaky* when runs disagree. A task without a reference solution (LiveCodeBench rows have
none) whose family's checks pass is *unchecked*: it is reported, not quarantined. `validate` grades the
references on the env's warm workers like any batch; `Validation.write_quarantine` writes
the tasks that are not valid to a file every loader accepts (``quarantine=``)::

    report = codegym.validate("codegym/Verilog-v1", tasks="path/to/VerilogEval/dataset_spec-to-rtl")
    print(report.render())
    report.write_quarantine("quarantine.json")
    env = gym.make("codegym/Verilog-v1", tasks="path/...", quarantine="quarantine.json")
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import InvalidTask
from codegym.grade import Grade, Status, TestOutcome
from codegym.task import QUARANTINE_FORMAT, Task

Verdict = Literal["valid", "invalid", "flaky", "unchecked"]
VERDICTS: tuple[Verdict, ...] = ("valid", "invalid", "flaky", "unchecked")
QUARANTINED: tuple[Verdict, ...] = ("invalid", "flaky")
SHOWN_FAILING = 5  # failing tests a reason names

# What a reference's status says about its task, in words.
_REASONS: Mapping[Status, str] = {
    Status.WA: "fails its own tests",
    Status.CE: "does not compile",
    Status.RE: "crashes",
    Status.TLE: "exceeds its time limit",
    Status.MLE: "exceeds its memory limit",
    Status.OLE: "exceeds its output limit",
    Status.SEC: "is stopped by the sandbox",
    Status.HACK: "is refused by the integrity checks",
    Status.IE: "cannot be graded",
}


@dataclass(frozen=True)
class TaskCheck:
    """One task's verdict, with the status of its reference in each run."""

    task_id: str
    verdict: Verdict
    statuses: tuple[Status, ...]
    reason: str = ""


@dataclass(frozen=True)
class Validation:
    """What `validate` found, task by task, in the task set's order."""

    env_id: str
    tasks: str
    runs: int
    checks: tuple[TaskCheck, ...]

    def of(self, verdict: Verdict) -> tuple[TaskCheck, ...]:
        return tuple(c for c in self.checks if c.verdict == verdict)

    @property
    def valid_ids(self) -> tuple[str, ...]:
        return tuple(c.task_id for c in self.of("valid"))

    @property
    def quarantined(self) -> dict[str, str]:
        """The tasks that are invalid or flaky, with why."""
        return {c.task_id: f"{c.verdict}: {c.reason}" for c in self.checks if c.verdict in QUARANTINED}

    def counts(self) -> dict[str, int]:
        counted = Counter(c.verdict for c in self.checks)
        return {verdict: counted.get(verdict, 0) for verdict in VERDICTS if verdict != "unchecked" or counted[verdict]}

    def render(self) -> str:
        """A summary line, then one line per task that is not valid."""
        counts = self.counts()
        lines = [
            f"{self.env_id} tasks={self.tasks}: {len(self.checks)} tasks, {counts['valid']} valid, "
            f"{counts['invalid']} invalid, {counts['flaky']} flaky"
            + (f", {counts['unchecked']} unchecked (no reference solution)" if "unchecked" in counts else "")
            + f" ({self.runs} run{'s' * (self.runs > 1)} each)"
        ]
        lines += [f"  {c.verdict:8} {c.task_id}: {_one_line(c.reason)}" for c in self.checks if c.verdict != "valid"]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The quarantine file's contents (see `codegym.task.read_quarantine`)."""
        return {
            "format": QUARANTINE_FORMAT,
            "env": self.env_id,
            "tasks_source": self.tasks,
            "runs": self.runs,
            "counts": self.counts(),
            "quarantined": {
                c.task_id: {"verdict": c.verdict, "reason": c.reason, "statuses": [s.value for s in c.statuses]}
                for c in self.checks
                if c.verdict in QUARANTINED
            },
        }

    def write_quarantine(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path


def validate(
    env: str | gym.Env,
    *,
    runs: int = 3,
    progress: bool = False,
    task_ids: Sequence[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    **env_kwargs: Any,
) -> Validation:
    """Grade every task's reference ``runs`` times and judge each task.

    Args:
        env: A registered id (made with ``env_kwargs``: ``tasks=...``) or a codegym env.
        runs: Gradings per task; runs that disagree make the task flaky.
        progress: Show a progress bar on stderr.
        task_ids: Only these tasks (default: all of the env's).
        sample: Only this many of them, drawn at random (seeded by ``seed``): a check of a
            large set's health in minutes.
        seed: The sample's seed.
        **env_kwargs: Passed to ``gym.make`` when ``env`` is an id.

    An infrastructure failure raises `codegym.error.SandboxError`: it says nothing of a task.
    """
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    if sample is not None and sample < 1:
        raise ValueError(f"sample must be at least 1 task, got {sample}")
    with Scorer(env, dedupe=False, **env_kwargs) as scorer:
        core = scorer.env
        policy, core.on_task_error = core.on_task_error, "flag"
        try:
            tasks = [core.tasks.get(i) for i in task_ids] if task_ids is not None else list(core.tasks)
            if sample is not None and sample < len(tasks):
                tasks = random.Random(seed).sample(tasks, sample)
            gradable = [t for t in tasks if t.reference]
            pairs = [(t.id, t.reference or "") for t in gradable for _ in range(runs)]
            grades = scorer.score(pairs, progress=progress, desc="validating")
        finally:
            core.on_task_error = policy
        by_task = {t.id: grades[i * runs : (i + 1) * runs] for i, t in enumerate(gradable)}
        checks = tuple(
            _known_solutions(core, _judge(t, by_task[t.id], core.invalid_tasks.get(t.id)), t)
            if t.id in by_task
            else _unreferenced(core, t)
            for t in tasks
        )
    env_id = env if isinstance(env, str) else (core.spec.id if core.spec else type(core).__name__)
    source = env_kwargs.get("tasks", core.tasks.name)
    return Validation(env_id, str(source) if isinstance(source, (str, Path)) else core.tasks.name, runs, checks)


def _known_solutions(env: CodeEnv, check: TaskCheck, task: Task) -> TaskCheck:
    """A valid task whose other known solutions fail its family's expectations (`CodeEnv.check_solutions`)
    is invalid."""
    if check.verdict != "valid":
        return check
    reason = env.check_solutions(task)
    return check if reason is None else TaskCheck(task.id, "invalid", check.statuses, reason)


def _unreferenced(env: CodeEnv, task: Task) -> TaskCheck:
    """A task without a reference solution: only its family's own checks can run."""
    try:
        env.check_task_once(task)
    except InvalidTask as e:
        return TaskCheck(task.id, "invalid", (), str(e))
    return TaskCheck(task.id, "unchecked", (), "it has no reference solution to grade")


def _judge(task: Task, grades: Sequence[Grade], invalid: str | None) -> TaskCheck:
    statuses = tuple(g.status for g in grades)
    failed = [g for g in grades if not g.solved]  # (the family's "solved": OK is not always enough)
    if not failed:
        return TaskCheck(task.id, "valid", statuses)
    reasons = list(dict.fromkeys(invalid if invalid and g.status is Status.IE else _reason(g) for g in failed))
    if len(failed) < len(grades):
        ok = len(grades) - len(failed)
        return TaskCheck(task.id, "flaky", statuses, f"the reference passed {ok} of {len(grades)} runs; " + reasons[0])
    return TaskCheck(task.id, "invalid", statuses, "; ".join(reasons))


def _reason(grade: Grade) -> str:
    """Why a reference's grade is not OK, in words: the grade's own message, the tests that
    fail, and how the first of them fails."""
    what = _REASONS.get(grade.status, grade.status.value)
    if grade.status is Status.IE:
        return grade.message
    if grade.status is Status.OK:  # passes, but short of its family's "solved"
        return f"the reference is not solved by its family's measure (OK): {grade.message or 'no message'}"
    failing = [t for t in grade.tests if not t.passed]
    named = ", ".join(t.name for t in failing[:SHOWN_FAILING]) + (
        f" and {len(failing) - SHOWN_FAILING} more" if len(failing) > SHOWN_FAILING else ""
    )
    details = [grade.message] if grade.message else []
    if failing and grade.status is not Status.CE:  # (nothing ran: every test "fails")
        details.append(f"failing {named}{_how(failing[0])}")
    detail = "; ".join(details)
    if grade.status is Status.WA and "timeout" in grade.feedback().lower():
        what = "reports a timeout"
    return f"the reference {what} ({grade.status.value}): {detail}" if detail else f"the reference {what}"


def _how(test: TestOutcome) -> str:
    """How ``test`` fails, in a few words: what it expected and got, or its trace's last line."""
    if test.expected is not None and test.got is not None:
        return f" ({test.name}: expected {_one_line(test.expected, 80)}, got {_one_line(test.got, 80)})"
    lines = [line for line in (test.trace or "").splitlines() if line.strip()]
    return f" ({test.name}: {_one_line(lines[-1], 120)})" if lines else ""


def _one_line(text: str, width: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
