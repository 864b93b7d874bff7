"""Pure grading of submitted tests: their runs against the reference and each mutant.

A job's report comes from the runner (see `codegym.envs.test_generation.runner`) through the
harness: one run of the tests on the reference, then (when they passed there) one on each
mutant. The tests *pass* on a program when the run completed, reported at least one test,
and every test passed. They are *valid* when they pass on the reference.

A mutant is *killed* when the tests do not pass on it **and** the program caused it: the
first place where the program's transcript of the mutant run differs from the reference
run's is the program's answer to the same call (the same request, in the same order), or a
call the reference answered and the mutant never did because it was really slower (its CPU
time in that call over `SLOWER` times the reference's plus `SLOWER_S`) or really hungrier
(its peak memory over `HEAVIER` times the reference's plus `HEAVIER_BYTES`). CPU time and
peak memory are the program process's own (``wait4``), which no other process can add to.
So a test that fails a mutant by the clock, by chance, by a file an earlier run left or by
running out of time in its own code kills nothing: every kill is one that a test asserting
the answers to the same calls would make. A run that ended without a report (the runner
killed: only the tests can do that) kills nothing, and on the reference makes the tests
invalid.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegym.envs.test_generation.mutants import Mutant

from codegym.error import InvalidTask
from codegym.executor import RunResult
from codegym.grade import Diagnostic, Grade, Status, TestOutcome, step_failure

MAX_SURVIVORS_SHOWN = 3
SLOWER, SLOWER_S = 10.0, 0.1
HEAVIER, HEAVIER_BYTES = 2.0, 64 << 20


@dataclass(frozen=True)
class Divergence:
    """Where a mutant run's transcript first differs from the reference run's in what the
    program did (see `codegym.envs.test_generation.transcript.divergence`).

    Attributes:
        kind: ``answer`` (another answer to the same call) or ``unanswered`` (the mutant was
            still in the call, or died in it, when the run ended).
        at: The call's index.
        cpu_s: CPU time the mutant had spent in the call (``unanswered``).
        reference_cpu_s: CPU time the reference took for it.
        memory_bytes: The mutant's peak memory in the run.
        reference_memory_bytes: The reference's.
    """

    kind: str
    at: int
    cpu_s: float = 0.0
    reference_cpu_s: float = 0.0
    memory_bytes: int = 0
    reference_memory_bytes: int = 0

    @property
    def by_program(self) -> bool:
        """The program's doing: another answer, or a call it was really slower or hungrier in."""
        if self.kind == "answer":
            return True
        slower = self.cpu_s > SLOWER * self.reference_cpu_s + SLOWER_S
        return slower or self.memory_bytes > HEAVIER * self.reference_memory_bytes + HEAVIER_BYTES


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
        divergence: Where the program first did otherwise than the reference (mutant runs).
        calls: How many calls the tests made.
    """

    passed: bool
    outcomes: tuple[TestOutcome, ...] = ()
    ended: str = "complete"
    status: Status = Status.OK
    message: str = ""
    divergence: Divergence | None = None
    calls: int = 0


@dataclass(frozen=True)
class Report:
    """A job's runs: the reference's (or a matrix cell's one program's), each mutant's run
    (none when the tests were invalid; fewer than the pool when the job ended early), and the
    reference's executed lines (when coverage was asked for and the tests were valid)."""

    reference: Run
    mutants: tuple[Run, ...] = ()
    coverage: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Runs:
    """Everything one submission's grade depends on: its job's result (None when the tests
    did not parse) and the mutants it ran, in the job's order."""

    result: RunResult | None
    mutants: tuple[Mutant, ...] = ()
    syntax_error: SyntaxError | None = field(default=None, compare=False)


def read_report(result: RunResult) -> Report:
    """A job's report, checked."""
    if result.harness_error:
        raise InvalidTask(f"the test harness failed: {result.harness_error}")
    failure = step_failure(result.steps[0]) if result.steps else None
    try:
        report = json.loads(result.harness_output or b"{}")
    except ValueError:
        report = {"phase": "broken", "error": "the report is not JSON"}
    phase = report.get("phase") if isinstance(report, dict) else None
    if phase == "program":
        message = f"the program did not load: {report.get('error')}"
        return Report(Run(False, ended="program", status=Status.IE, message=message))
    rows = report.get("runs") if phase == "tests" else None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, Mapping) for r in rows):
        error = report.get("error") if isinstance(report, dict) else None
        status, why = failure or (Status.HACK, str(error or "the test runner was stopped"))
        return Report(Run(False, ended="broken", status=status, message=why))
    coverage = report.get("coverage")
    lines = tuple(int(n) for n in coverage) if isinstance(coverage, list) else None
    return Report(_run(rows[0], failure), tuple(_run(r, None) for r in rows[1:]), lines)


def read_run(result: RunResult) -> Run:
    """The run on a job's first program (a matrix cell's only one)."""
    return read_report(result).reference


def _run(row: Mapping[str, Any], failure: tuple[Status, str] | None) -> Run:
    outcomes = tuple(_outcome(r) for r in row.get("results") or [] if isinstance(r, Mapping))
    ended = str(row.get("ended"))
    status, message = _status(outcomes, ended, failure)
    found = row.get("divergence")
    divergence = Divergence(**{k: found[k] for k in _DIVERGENCE if k in found}) if isinstance(found, Mapping) else None
    return Run(status is Status.OK, outcomes, ended, status, message, divergence, int(row.get("calls") or 0))


_DIVERGENCE = tuple(f.name for f in dataclasses.fields(Divergence))


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
    """Whether ``run`` (the tests on a mutant) kills its mutant: the tests did not pass every
    test the reference run passed, and the program caused it (see the module docstring). A
    run with no report kills nothing."""
    if run.ended in ("broken", "program") or run.divergence is None or not run.divergence.by_program:
        return False
    passed = {t.name for t in run.outcomes if t.passed}
    return not run.passed or not {t.name for t in reference.outcomes} <= passed


def verdicts(runs: Runs) -> tuple[tuple[Mutant, bool], ...]:
    """Each mutant and whether the tests killed it (none when they are invalid; a mutant the
    job did not reach survives)."""
    return () if runs.result is None else _verdicts(read_report(runs.result), runs.mutants)


def _verdicts(report: Report, mutants: tuple[Mutant, ...]) -> tuple[tuple[Mutant, bool], ...]:
    if not report.reference.passed:
        return ()
    ran = report.mutants
    return tuple((m, i < len(ran) and killed(ran[i], report.reference)) for i, m in enumerate(mutants))


def grade(runs: Runs, *, executable: Sequence[int] | None = None, show_survivors: bool = True) -> Grade:
    """The grade of one submission (see the module docstring); ``executable``: the lines
    coverage counts, when it was measured."""
    if runs.syntax_error is not None:
        e = runs.syntax_error
        return Grade(Status.CE, diagnostics=(Diagnostic(str(e.msg), file="tests", line=e.lineno, column=e.offset),),
                     message=f"SyntaxError: {e.msg}", metrics=_metrics(0.0, 0, 0, None, 0))  # fmt: skip
    if runs.result is None:
        raise ValueError("runs without a result must carry the syntax error that stopped them")
    report = read_report(runs.result)
    reference = report.reference
    if reference.ended == "program":
        raise InvalidTask(reference.message.replace("the program", "its reference program"))
    coverage = None if executable is None else _coverage(report.coverage, executable)
    tests = len(reference.outcomes)
    if not reference.passed:
        message = f"invalid: {reference.message}" if reference.message else "invalid"
        metrics = _metrics(0.0, 0, len(runs.mutants), coverage, tests)
        return Grade(reference.status, tests=reference.outcomes, message=message, metrics=metrics,
                     resources=_resources(runs.result))  # fmt: skip
    judged = _verdicts(report, runs.mutants)
    dead = sum(k for _, k in judged)
    survivors = [m for m, k in judged if not k]
    total = len(judged)
    message = f"valid; killed {dead} of {total} mutants" if total else "valid; this task has no mutants"
    return Grade(
        Status.OK,
        tests=reference.outcomes,
        diagnostics=_survivor_notes(survivors, show_survivors),
        metrics=_metrics(1.0, dead, total, coverage, tests),
        message=message,
        resources=_resources(runs.result),
    )


def _metrics(valid: float, dead: int, total: int, coverage: float | None, tests: int) -> dict[str, float]:
    metrics = {"valid": valid, "kill_rate": dead / total if total and valid else 0.0, "mutants_killed": float(dead),
               "mutants": float(total), "tests_total": float(tests), "pass_rate": valid}  # fmt: skip
    if coverage is not None:
        metrics["coverage"] = coverage if valid else 0.0
    return metrics


def _coverage(lines: tuple[int, ...] | None, executable: Sequence[int]) -> float:
    if lines is None or not executable:
        return 0.0
    return len(set(executable) & set(lines)) / len(set(executable))


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
