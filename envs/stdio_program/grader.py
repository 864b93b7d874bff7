"""From a `RunResult` to a `Grade` for stdin/stdout programs: a pure function.

Outputs are compared here, in the harness: expected outputs never enter the sandbox.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from codegym.envs.stdio_program.languages import Language

from codegym.executor import RunResult, StepResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics
from codegym.task import Task

EXCERPT = 200


def check(expected: str, got: str, checker: Mapping[str, Any]) -> bool:
    """Compare outputs: ``tokens`` (whitespace-separated), ``exact`` (trailing spaces and
    blank lines ignored), or ``float`` (tokens; numbers within ``abs`` or ``rel``)."""
    kind = checker.get("kind", "tokens")
    if kind == "exact":
        return _lines(expected) == _lines(got)
    want, have = expected.split(), got.split()
    if kind == "tokens":
        return want == have
    if len(want) != len(have):
        return False
    return all(
        _close(a, b, float(checker.get("abs", 1e-6)), float(checker.get("rel", 1e-6)))
        for a, b in zip(want, have, strict=True)
    )


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.rstrip().splitlines()]
    return lines


def _close(a: str, b: str, absolute: float, relative: float) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return math.isfinite(y) and (abs(x - y) <= absolute or abs(x - y) <= relative * abs(x))


def step_status(step: StepResult) -> Status | None:
    """The status a run step earns on its own (None: it ran to completion)."""
    if step.denied_syscall:
        return Status.SEC
    if step.limit is not None:
        return LIMIT_STATUS[step.limit][0]
    if step.signal is not None or step.exit_code != 0:
        return Status.RE
    return None


def grade(
    task: Task, language: Language, result: RunResult, *, compiled_here: bool, verdicts: Sequence[bool] | None = None
) -> Grade:
    """Judge a stdin/stdout submission. ``compiled_here``: the first step is the compile.
    ``verdicts``: per-test acceptance from the task's own checker program, when it has one."""
    steps = list(result.steps)
    diagnostics: tuple[Diagnostic, ...] = ()
    if compiled_here:
        compile_step = steps.pop(0)
        output = (compile_step.stderr + compile_step.stdout).decode(errors="replace")
        diagnostics = language.parse_diagnostics(output)
        if not compile_step.ok:
            reason = "the compiler exceeded its limits" if compile_step.limit else "compilation failed"
            return _compile_failure(task, reason, diagnostics, compile_step, output, language)
    return _judge_runs(task, steps, diagnostics, verdicts)


def _judge_runs(
    task: Task, steps: Sequence[StepResult], diagnostics: tuple[Diagnostic, ...], verdicts: Sequence[bool] | None
) -> Grade:
    checker = task.metadata.get("checker", {"kind": "tokens"})
    outcomes, first_failure = [], None
    for index, (test, step) in enumerate(zip(task.tests, steps, strict=True)):
        status = None if step.skipped else step_status(step)
        got = step.stdout.decode(errors="replace")
        accepted = verdicts[index] if verdicts is not None else check(test.expected or "", got, checker)
        passed = not step.skipped and status is None and accepted
        if not passed and first_failure is None:
            first_failure = status or (Status.WA if not step.skipped else Status.RE), test, step
        trace = step.stderr.decode(errors="replace")[-EXCERPT:] if status is not None else None
        outcomes.append(
            TestOutcome(
                name=test.name, passed=passed, hidden=test.hidden, tier=test.tier, time_s=step.wall_s,
                call=_excerpt(test.code), call_label="input", expected=_excerpt(test.expected or ""), got=_excerpt(got),
                trace=trace or ("not run: an earlier test failed" if step.skipped else None),
                status=("OK" if passed else (status or Status.WA).value) if not step.skipped else None,
                memory_bytes=step.peak_memory_bytes if not step.skipped else None,
            )
        )  # fmt: skip
    if first_failure is None:
        return _finish(task, Status.OK, f"all {len(outcomes)} tests passed", outcomes, diagnostics, steps)
    status, test, _ = first_failure
    return _finish(task, status, f"{status.value} on {test.name}", outcomes, diagnostics, steps)


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "..."


def _compile_failure(
    task: Task, reason: str, diagnostics: tuple[Diagnostic, ...], step: StepResult, output: str, language: Language
) -> Grade:
    outcomes = [TestOutcome(t.name, False, t.hidden, t.tier, trace="not run: compilation failed") for t in task.tests]
    if not diagnostics and output.strip():  # the pattern found nothing: show the compiler's last line
        diagnostics = (Diagnostic(output.strip().splitlines()[-1][:EXCERPT], file=language.file),)
    return _finish(task, Status.CE, reason, outcomes, diagnostics, [step])


def _finish(
    task: Task, status: Status, message: str, outcomes: Sequence[TestOutcome], diagnostics: tuple[Diagnostic, ...],
    steps: Sequence[StepResult],
) -> Grade:  # fmt: skip
    ran = [s for s in steps if not s.skipped]
    resources = {
        "cpu_s": max((s.cpu_s for s in ran), default=0.0),
        "wall_s": max((s.wall_s for s in ran), default=0.0),
        "peak_memory_bytes": float(max((s.peak_memory_bytes for s in ran), default=0)),
    }
    return Grade(status, tuple(outcomes), diagnostics, pass_metrics(outcomes), message=message, resources=resources)
