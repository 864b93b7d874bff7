"""From an optimization job's result to a `Grade`: pure functions.

Correctness first, as the StdioProgram family judges it (its checker on every test); then
each benchmark input's metered run, whose output must be the reference's on the same input
(compared by digest, outside the sandbox) and whose count must be signed and intact. Only
then a cost: the sum of the counts over the benchmark inputs, and the speedup
``reference cost / cost``. A count that cannot be trusted is never a low cost: a run the
program cut short, a report missing or tampered with, fails the grade.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from codegym.envs.stdio_program import grader as stdio
from codegym.envs.stdio_program.languages import Language

from codegym import meter
from codegym.executor import RunResult, StepResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome
from codegym.meter import Reading
from codegym.task import Task

TAMPERING = ("switched the meter", "before the meter could report", "not this job's", "were rewritten after")


@dataclass(frozen=True)
class Timing:
    """The wall measure: the speedup (the geometric mean of the paired ratios of the
    reference's wall time to the program's) and its 95% interval, over ``pairs`` pairs of
    runs; or why the timing failed."""

    speedup: float
    low: float
    high: float
    pairs: int
    reference_s: float
    program_s: float
    failure: str | None = None

    @classmethod
    def failed(cls, why: str) -> Timing:
        return cls(0.0, 0.0, 0.0, 0, 0.0, 0.0, failure=why)

    @classmethod
    def untimed(cls) -> Timing:
        """A program not timed (yet): no pairs, a speedup of 1."""
        return cls(1.0, 1.0, 1.0, 0, 0.0, 0.0)


@dataclass(frozen=True)
class Baseline:
    """The reference's readings on the benchmark inputs, measured once per task and env."""

    readings: tuple[Reading, ...]
    unit: str

    @property
    def cost(self) -> int:
        return sum(r.cost for r in self.readings)


def grade(task: Task, language: Language, result: RunResult, *, compiled_here: bool, key: str, baseline: Baseline,
          source: str, kind: meter.Kind, timing: Timing | None = None,
          table: meter.native.Table | None = None) -> Grade:  # fmt: skip
    """Judge an optimization job: its tests (a compile step first when ``compiled_here``),
    then its metered benchmark steps (``table``: a native build's annotation table)."""
    bench = len(baseline.readings)
    tested = dataclasses.replace(result, steps=result.steps[: len(result.steps) - bench])
    correctness = stdio.grade(task, language, tested, compiled_here=compiled_here)
    if correctness.status is not Status.OK:
        return correctness
    metered = result.steps[len(result.steps) - bench :]
    found = read_all(result, metered, key, kind, language.file, table)
    for index, (step, reading, wanted) in enumerate(zip(metered, found, baseline.readings, strict=True)):
        failed = _bench_failure(index, step, reading, wanted)
        if failed is not None:
            status, message = failed
            return dataclasses.replace(correctness, status=status, message=message)
    if kind.endswith("-wall"):
        return _timed(correctness, timing, len(found))
    return _graded(correctness, found, baseline, source, language.file)


def _timed(correct: Grade, timing: Timing | None, inputs: int) -> Grade:
    if timing is None or timing.failure is not None:
        why = timing.failure if timing else "the program was not timed"
        return dataclasses.replace(correct, status=Status.RE, message=f"{why} (wall measure)")
    measured = {
        "speedup": timing.speedup,
        "speedup_low": timing.low,
        "speedup_high": timing.high,
        "pairs": float(timing.pairs),
        "cost": timing.program_s,
        "reference_cost": timing.reference_s,
    }
    metrics = {**correct.metrics, **measured}
    message = (
        f"{correct.message}; {timing.speedup:.2f}x the reference's speed (95% interval {timing.low:.2f}-"
        f"{timing.high:.2f}x over {timing.pairs} interleaved pairs of runs): {timing.program_s:.4f} s against "
        f"{timing.reference_s:.4f} s of wall-clock time on {inputs} hidden benchmark input{'s' * (inputs != 1)}"
    )
    return dataclasses.replace(correct, metrics=metrics, message=message)


def read_all(result: RunResult, metered: Sequence[StepResult], key: str, kind: meter.Kind, source_file: str,
             table: meter.native.Table | None = None) -> list[Reading]:  # fmt: skip
    """The `Reading` of each of ``metered`` (steps of ``result``), with its profile file (a
    native step's, collected with the job) and its build's annotation ``table``."""
    names = [meter.profile_file(step.argv[4]) if len(step.argv) > 4 else "" for step in metered]
    profiles = [result.files.get(name) for name in names]
    sealed = [meter.seals(later).get(name) for later, name in zip(metered[1:], names, strict=False)]
    if profiles and profiles[-1] is not None:  # (the job's last step: nothing ran after it)
        sealed.append(hashlib.sha256(profiles[-1]).hexdigest())
    sealed += [None] * (len(metered) - len(sealed))
    return [meter.read(step, key, kind, source_file=source_file, profile=profile, table=table, sealed=seal)
            for step, profile, seal in zip(metered, profiles, sealed, strict=True)]  # fmt: skip


def _bench_failure(index: int, step: StepResult, reading: Reading, wanted: Reading) -> tuple[Status, str] | None:
    where = f"benchmark input {index + 1}"
    if step.limit is not None:
        status, what = LIMIT_STATUS[step.limit]
        return status, f"{what} on {where} (metered)"
    if reading.failure == meter.STARTED_ANOTHER:
        return Status.SEC, f"{reading.failure}, on {where}"
    if step.denied_syscall:
        return Status.SEC, f"a system call the sandbox denies, on {where}"
    if reading.failure is not None:
        status = Status.HACK if any(t in reading.failure for t in TAMPERING) else Status.RE
        return status, f"{reading.failure}, on {where}"
    if reading.output_sha256 != wanted.output_sha256:
        return Status.WA, f"wrong output on hidden {where} (it begins {reading.output_head[:60]!r})"
    return None


def _graded(correct: Grade, readings: Sequence[Reading], baseline: Baseline, source: str, file: str) -> Grade:
    cost = sum(r.cost for r in readings)
    speedup = baseline.cost / cost if cost > 0 else float(baseline.cost > 0) * 1e9
    metrics = {
        **correct.metrics,
        "speedup": speedup,
        "cost": float(cost),
        "reference_cost": float(baseline.cost),
    }
    if any(r.instructions for r in readings):  # (native: what the cost weighs)
        metrics |= {
            "instructions": float(sum(r.instructions for r in readings)),
            "divisions": float(sum(r.divisions for r in readings)),
            "mispredicts": float(sum(r.mispredicts for r in readings)),
        }
    message = (
        f"{correct.message}; {speedup:.2f}x the reference's speed: {cost:,} {baseline.unit} against "
        f"{baseline.cost:,} on {len(readings)} hidden benchmark input{'s' * (len(readings) != 1)}"
    )
    profile = profile_notes(readings, source, file)
    return dataclasses.replace(correct, metrics=metrics, message=message, diagnostics=(*correct.diagnostics, *profile))


def profile_notes(readings: Sequence[Reading], source: str, file: str, top: int = 5) -> tuple[Diagnostic, ...]:
    """The program's hot spots as notes: its costliest lines (with their text) and functions,
    over every metered run."""
    lines = _summed([h for r in readings for h in r.lines])
    functions = _summed([h for r in readings for h in r.functions])
    total = sum(r.cost for r in readings) or 1
    text = source.splitlines()
    notes = []
    for _, line, cost in lines[:top]:
        shown = text[line - 1].strip() if line and 0 < line <= len(text) else ""
        message = f"{100 * cost / total:.1f}% of the count: {shown[:120]}"
        notes.append(Diagnostic(message, file=file, line=line, severity="note", code="profile"))
    for name, line, cost in functions[:top]:
        message = f"{100 * cost / total:.1f}% of the count in function {name}"
        where = file if line else "runtime"
        notes.append(Diagnostic(message, file=where, line=line, severity="note", code="profile"))
    return tuple(notes)


def _summed(hotspots: Sequence[meter.Hotspot]) -> list[tuple[str, int | None, int]]:
    sums: dict[tuple[str, int | None], int] = {}
    for h in hotspots:
        sums[h.name, h.line] = sums.get((h.name, h.line), 0) + h.cost
    return sorted(((name, line, cost) for (name, line), cost in sums.items()), key=lambda row: -row[2])


def failed_tests(task: Task, reason: str) -> tuple[TestOutcome, ...]:
    return tuple(TestOutcome(t.name, False, t.hidden, t.tier, trace=reason) for t in task.tests)
