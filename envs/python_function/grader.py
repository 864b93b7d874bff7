"""From a `RunResult` to a `Grade` for Python functions: a pure function.

The verdict comes from the harness's report (outside the submission's process) and the
sandbox's own measurements, never from the submission's exit code or output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from codegym.envs.python_function import codec

from codegym.error import InvalidTask, SandboxError
from codegym.executor import RunResult, StepResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics
from codegym.task import Task


def grade(task: Task, result: RunResult, *, line_offset: int = 0) -> Grade:
    """Judge a Python-function submission.

    Args:
        task: The task, with the full list of tests the harness had to run.
        result: What the sandbox reported.
        line_offset: Lines of task code placed before the submission in ``solution.py``.
    """
    if result.harness_error is not None:  # the task's own test code (a prelude, a setup) broke it
        raise InvalidTask(f"its tests could not run (the harness failed): {_last_line(result.harness_error)}")
    if result.harness_output is None:
        raise SandboxError(f"the Python-function harness of task {task.id} did not report")
    step = result.steps[0]
    report = json.loads(result.harness_output)
    phase = report["phase"]
    resources = {"cpu_s": step.cpu_s, "wall_s": step.wall_s, "peak_memory_bytes": float(step.peak_memory_bytes)}
    tests = _outcomes(task, report, line_offset) if phase == "tests" else _not_run(task, _why_not_run(report))
    diagnostics = _diagnostics(report, tests, line_offset)
    status, message = _status(task, step, report, tests, line_offset)
    return Grade(status, tests, diagnostics, pass_metrics(tests), message=message, resources=resources)


def _status(
    task: Task, step: StepResult, report: dict[str, Any], tests: tuple[TestOutcome, ...], offset: int
) -> tuple[Status, str]:
    if step.denied_syscall:
        return Status.SEC, "killed by the sandbox for a forbidden system call"
    if step.limit is not None:
        return LIMIT_STATUS[step.limit]
    phase = report["phase"]
    if phase == "compile":
        line = report.get("line")
        where = f" on line {max(int(line) - offset, 1)}" if line else ""
        return Status.CE, f"SyntaxError{where}: {report.get('error')}"
    if phase == "protocol":
        return Status.HACK, f"the submission tampered with the test channel: {report.get('error')}"
    if any(r.get("violation") for r in report.get("results", ())):
        return Status.HACK, "the submission tampered with the call channel"
    if phase == "load":
        return Status.RE, str(report.get("error"))
    names = [r.get("name") for r in report["results"]]
    if names != [t.name for t in task.tests]:
        return Status.HACK, "the harness did not run every test of the task"
    if report.get("incomplete"):  # (a unittest suite's report that never ended)
        reason = (step.signal and f"killed by signal {step.signal}") or str(report["incomplete"])
        return Status.RE, f"the submission's process ended before the tests' report did ({reason})"
    if all(t.passed for t in tests):
        return Status.OK, f"all {len(tests)} tests passed"
    if any(not r.get("ran", True) for r in report["results"]):
        reason = (step.signal and f"killed by signal {step.signal}") or "it stopped answering"
        return Status.RE, f"the submission died during the tests ({reason})"
    return Status.WA, f"{sum(not t.passed for t in tests)} of {len(tests)} tests failed"


def _outcomes(task: Task, report: dict[str, Any], offset: int) -> tuple[TestOutcome, ...]:
    by_name = {r.get("name"): r for r in report["results"]}
    outcomes = []
    for test in task.tests:
        r = by_name.get(test.name, {"passed": False, "trace": "not run"})
        trace = r.get("trace")
        if r.get("frames"):
            trace = f"{trace}\n" + "\n".join(_frame(f, offset) for f in r["frames"])
        outcomes.append(
            TestOutcome(
                name=test.name,
                passed=bool(r.get("passed")),
                hidden=test.hidden,
                tier=test.tier,
                time_s=r.get("time_s"),
                call=r.get("call"),
                expected=r.get("expected"),
                got=r.get("got"),
                trace=trace,
                call_args=r.get("args"),
            )
        )
    return tuple(outcomes)


def _frame(frame: list[Any], offset: int) -> str:
    line, name, text = frame
    return f'  File "solution.py", line {max(int(line) - offset, 0)}, in {name}: {text}'


def _not_run(task: Task, reason: str) -> tuple[TestOutcome, ...]:
    return tuple(TestOutcome(t.name, False, t.hidden, t.tier, trace=reason or "not run") for t in task.tests)


def _diagnostics(report: dict[str, Any], tests: tuple[TestOutcome, ...], offset: int) -> tuple[Diagnostic, ...]:
    phase = report["phase"]
    if phase == "compile":
        line = report.get("line")
        return (
            Diagnostic(
                f"SyntaxError: {report.get('error')}{quoted(report)}",
                line=max(int(line) - offset, 1) if line else None,
                column=report.get("column"),
            ),
        )
    if phase == "load":
        frames = report.get("frames") or []
        line = max(int(frames[-1][0]) - offset, 1) if frames else None
        return (Diagnostic(str(report.get("error")), line=line),)
    diagnostics = []
    for result in report.get("results", ()):
        frames = result.get("frames") or []
        if frames:
            diagnostics.append(Diagnostic(str(result.get("trace")), line=max(int(frames[-1][0]) - offset, 1)))
    return tuple(dict.fromkeys(diagnostics))[:10]


def quoted(report: dict[str, Any]) -> str:
    """The line a syntax error is on, indented, with a caret under its column (a run of them
    under the span Python names): "" when the report has no line."""
    text, column = str(report.get("text") or ""), report.get("column")
    if not text.strip():
        return ""
    shown = text.expandtabs()
    if not isinstance(column, int) or column < 1:
        return f"\n    {shown}"
    start = len(text[: column - 1].expandtabs())
    end = report.get("end_column")
    width = len(text[column - 1 : end - 1].expandtabs()) if isinstance(end, int) and end > column else 1
    return f"\n    {shown}\n    {' ' * start}{'^' * max(width, 1)}"


def _why_not_run(report: dict[str, Any]) -> str:
    if report["phase"] == "compile":
        return "not run: the submission does not compile (see the SyntaxError above)"
    return str(report.get("error", ""))


def _last_line(traceback: str | None) -> str:
    """The exception line of a traceback (its last non-empty line)."""
    lines = [line for line in (traceback or "no report").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no report"


def recorded(names: Sequence[str], result: RunResult) -> dict[str, Any]:
    """What a reference returned for each call `harness.record` made, by test name (the
    expected outputs of an EvalPlus task). Raises `InvalidTask` when it cannot say: the
    reference does not load, raises, or runs out of its limits."""
    if result.harness_error is not None:
        raise InvalidTask(f"its expected outputs could not be computed (the harness failed): "
                          f"{_last_line(result.harness_error)}")  # fmt: skip
    if result.harness_output is None:
        raise SandboxError("the harness that runs a reference did not report")
    step = result.steps[0]
    if step.limit is not None:
        raise InvalidTask(f"its reference went over the {step.limit} limit computing the expected outputs "
                          "(raise the env's limits)")  # fmt: skip
    report = json.loads(result.harness_output)
    if report["phase"] != "record":
        raise InvalidTask(f"its reference does not load ({report['phase']}): {report.get('error')}")
    outputs = report["outputs"]
    if report.get("error") or len(outputs) != len(names):
        raise InvalidTask(f"its reference stopped after {len(outputs)} of {len(names)} inputs: {report.get('error')}")
    values = {}
    for name, output in zip(names, outputs, strict=True):
        if "error" in output:
            raise InvalidTask(f"its reference raised on the input of {name}: {output['error']}")
        values[name] = codec.decode(output["value"].encode())
    return values
