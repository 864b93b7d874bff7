"""Pure grading of submitted tests: their runs against the reference and each mutant.

A run's report comes from the runner (see `codegym.envs.test_generation.runner`) through the
harness. The tests *pass* on a program when the run completed, reported at least one test,
and every test passed. They are *valid* when they pass on the reference; a mutant is
*killed* when a run of them on it completed otherwise: a test failed, crashed, timed out or
went missing. A run that ended without a report (its runner killed: only the tests can do
that) kills nothing, and on the reference makes the tests invalid.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegym.envs.test_generation.mutants import Mutant

from codegym.error import InvalidTask
from codegym.executor import RunResult
from codegym.grade import Diagnostic, Grade, Status, TestOutcome, step_failure

MAX_SURVIVORS_SHOWN = 3


@dataclass(frozen=True)
class Run:
    """What one run of the tests against one program says.

    Attributes:
        passed: The tests passed on the program (see the module docstring).
        outcomes: Each reported test, in order.
        ended: How the run ended: ``complete``, ``crashed``, ``timeout``, ``budget``,
            ``garbled``, ``flooded``, ``broken`` (no report) or ``program`` (the program did
            not load).
        status: The run's status as a submission's would be (``OK`` when it passed).
        message: Why it did not pass, in a line.
        coverage: The program's executed lines, when asked for.
    """

    passed: bool
    outcomes: tuple[TestOutcome, ...] = ()
    ended: str = "complete"
    status: Status = Status.OK
    message: str = ""
    coverage: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Runs:
    """Everything one submission's grade depends on: the run on the reference, the runs on
    the mutants (none when the tests were invalid), and the coverage run (when asked for)."""

    reference: RunResult | None
    mutants: tuple[tuple[Mutant, RunResult], ...] = ()
    coverage: RunResult | None = None
    syntax_error: SyntaxError | None = field(default=None, compare=False)


def read_run(result: RunResult) -> Run:
    """One run's report, checked."""
    if result.harness_error:
        raise InvalidTask(f"the test harness failed: {result.harness_error}")
    failure = step_failure(result.steps[0]) if result.steps else None
    try:
        report = json.loads(result.harness_output or b"{}")
    except ValueError:
        report = {"phase": "broken", "error": "the report is not JSON"}
    phase = report.get("phase")
    if phase == "program":
        return Run(False, ended="program", status=Status.IE, message=f"the program did not load: {report.get('error')}")
    if phase != "tests":
        status, why = failure or (Status.HACK, str(report.get("error") or "the test runner was stopped"))
        return Run(False, ended="broken", status=status, message=why)
    outcomes = tuple(_outcome(r) for r in report.get("results") or [] if isinstance(r, Mapping))
    ended = str(report.get("ended"))
    coverage = report.get("coverage")
    lines = tuple(int(n) for n in coverage) if isinstance(coverage, list) else None
    status, message = _status(outcomes, ended, failure)
    return Run(status is Status.OK, outcomes, ended, status, message, lines)


def _outcome(row: Mapping[str, Any]) -> TestOutcome:
    trace = row.get("trace")
    return TestOutcome(name=str(row.get("name", "?"))[:200], passed=row.get("passed") is True,
                       trace=str(trace)[:600] if trace else None)  # fmt: skip


def _status(outcomes: Sequence[TestOutcome], ended: str, failure: tuple[Status, str] | None) -> tuple[Status, str]:
    failed = [t for t in outcomes if not t.passed]
    if ended == "complete" and not outcomes:
        return Status.WA, "no test found: write assert statements or test_* functions"
    if ended == "complete" and not failed:
        return Status.OK, ""
    if failure is not None:
        return failure
    if ended in ("timeout", "budget"):
        return Status.TLE, (failed[-1].trace if failed else None) or "the tests ran out of time"
    if ended == "crashed":
        return Status.RE, "the tests' process ended before they finished"
    if ended == "flooded":
        return Status.WA, "more tests than the runner takes (512)"
    if ended == "garbled":
        return Status.HACK, "the tests' report to the runner was garbled"
    return Status.WA, f"{len(failed)} of {len(outcomes)} tests failed"


def killed(run: Run, reference: Run) -> bool:
    """Whether ``run`` (the tests on a mutant) rejects its mutant: the run completed and did
    not pass every test the reference run passed. A run with no report kills nothing."""
    if run.ended in ("broken", "program"):
        return False
    passed = {t.name for t in run.outcomes if t.passed}
    return not run.passed or not {t.name for t in reference.outcomes} <= passed


def grade(runs: Runs, *, executable: Sequence[int] = (), show_survivors: bool = True) -> Grade:
    """The grade of one submission (see the module docstring)."""
    if runs.syntax_error is not None:
        e = runs.syntax_error
        return Grade(Status.CE, diagnostics=(Diagnostic(str(e.msg), file="tests", line=e.lineno, column=e.offset),),
                     message=f"SyntaxError: {e.msg}", metrics=_metrics(0.0, 0, 0, None, 0))  # fmt: skip
    if runs.reference is None:
        raise ValueError("runs without a reference run must carry the syntax error that stopped them")
    reference = read_run(runs.reference)
    if reference.ended == "program":
        raise InvalidTask(reference.message.replace("the program", "its reference program"))
    coverage = _coverage(runs.coverage, executable)
    tests = len(reference.outcomes)
    if not reference.passed:
        message = f"invalid: {reference.message}" if reference.message else "invalid"
        metrics = _metrics(0.0, 0, len(runs.mutants), coverage, tests)
        return Grade(reference.status, tests=reference.outcomes, message=message, metrics=metrics,
                     resources=_resources(runs.reference))  # fmt: skip
    verdicts = [(mutant, killed(read_run(result), reference)) for mutant, result in runs.mutants]
    dead = sum(k for _, k in verdicts)
    survivors = [m for m, k in verdicts if not k]
    total = len(verdicts)
    message = f"valid; killed {dead} of {total} mutants" if total else "valid; this task has no mutants"
    return Grade(
        Status.OK,
        tests=reference.outcomes,
        diagnostics=_survivor_notes(survivors, show_survivors),
        metrics=_metrics(1.0, dead, total, coverage, tests),
        message=message,
        resources=_resources(runs.reference),
    )


def _metrics(valid: float, dead: int, total: int, coverage: float | None, tests: int) -> dict[str, float]:
    metrics = {"valid": valid, "kill_rate": dead / total if total and valid else 0.0, "mutants_killed": float(dead),
               "mutants": float(total), "tests_total": float(tests), "pass_rate": valid}  # fmt: skip
    if coverage is not None:
        metrics["coverage"] = coverage if valid else 0.0
    return metrics


def _coverage(result: RunResult | None, executable: Sequence[int]) -> float | None:
    if result is None:
        return None
    run = read_run(result)
    if run.coverage is None or not executable:
        return 0.0
    lines = set(executable)
    return len(lines & set(run.coverage)) / len(lines)


def _survivor_notes(survivors: Sequence[Mutant], show: bool) -> tuple[Diagnostic, ...]:
    if not survivors:
        return ()
    if not show:
        kinds = ", ".join(sorted({m.kind for m in survivors}))
        return (Diagnostic(f"{len(survivors)} mutants survived (kinds: {kinds})", file="mutants", severity="note"),)
    notes = [Diagnostic(f"mutant {m.id} survived ({m.description}):\n{m.diff}", file="reference", line=m.line,
                        severity="note") for m in survivors[:MAX_SURVIVORS_SHOWN]]  # fmt: skip
    if len(survivors) > MAX_SURVIVORS_SHOWN:
        notes.append(Diagnostic(f"and {len(survivors) - MAX_SURVIVORS_SHOWN} more survived", file="mutants",
                                severity="note"))  # fmt: skip
    return tuple(notes)


def _resources(result: RunResult) -> dict[str, float]:
    step = result.steps[0] if result.steps else None
    if step is None:
        return {}
    return {"cpu_s": step.cpu_s, "wall_s": step.wall_s, "peak_memory_bytes": float(step.peak_memory_bytes)}


def executable_lines(program: str) -> tuple[int, ...]:
    """The lines coverage counts: the statements inside the program's functions."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return ()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body[1:] if _docstring(node) else node.body
            lines.update(s.lineno for stmt in body for s in ast.walk(stmt) if isinstance(s, ast.stmt))
    return tuple(sorted(lines))


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
