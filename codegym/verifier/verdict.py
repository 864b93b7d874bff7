"""From a gate's and a verifier's reports to a `Grade`: the rules every verifier family shares
(pure).

- The gate refused the answer: ``HACK`` with each construct and its line (``CE`` when it
  could not even be read); nothing ran.
- The file did not parse or type-check: ``CE``. The run was stopped: ``TLE``. The tool gave
  no verdict: ``RE``. None of them is ever a pass.
- The canary (a goal ``false`` appended to the file) was proved: ``HACK``: the context is
  inconsistent, whatever made it so.
- Otherwise one test per checked unit (a procedure, a verification condition): ``OK`` when
  every one is verified, ``TLE`` when one ran out of time, else ``WA``.

Messages are mapped to the answer's own lines where they fall in its text; one in the task's
text says it is in the specification and quotes the line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from codegym.grade import Diagnostic, Grade, Severity, Status, TestOutcome, pass_metrics
from codegym.verifier import GateReport, VerifierReport

MAX_DIAGNOSTICS = 20
_SEVERITY: Mapping[str, Severity] = {"error": "error", "warning": "warning", "note": "note"}


def refused(gate: GateReport, language: str) -> Grade:
    """The grade of an answer the gate did not pass."""
    if gate.unreadable is not None:
        return Grade(Status.CE, diagnostics=(Diagnostic(gate.unreadable, file="answer"),),
                     message=f"the answer is not {language}: {gate.unreadable}", metrics=pass_metrics(()))  # fmt: skip
    diagnostics = tuple(Diagnostic(v.construct, file="answer", line=v.line, column=v.column, code="gate")
                        for v in gate.violations)  # fmt: skip
    first = gate.violations[0]
    return Grade(Status.HACK, diagnostics=diagnostics, metrics=pass_metrics(()),
                 message=f"refused before verification: {first.construct} (line {first.line})")  # fmt: skip


def unfinished(report: VerifierReport, diagnostics: Sequence[Diagnostic], metrics: Mapping[str, float]) -> Grade | None:
    """The grade of a run that gave no per-unit verdict (None when it did)."""
    status, message = {
        "syntax": (Status.CE, report.detail or f"{report.verifier} could not read the program"),
        "timeout": (Status.TLE, f"the verifier was stopped: {report.detail}"),
        "crashed": (Status.RE, f"{report.verifier} gave no verdict: {report.detail}"),
    }.get(report.ended, (None, ""))
    if status is None:
        return None
    return Grade(status, diagnostics=tuple(diagnostics), message=message, metrics=dict(metrics))


def inconsistent(diagnostics: Sequence[Diagnostic], metrics: Mapping[str, float]) -> Grade:
    """The grade of a file whose canary was proved."""
    return Grade(Status.HACK, diagnostics=tuple(diagnostics), metrics=dict(metrics),
                 message="`false` is provable from this program's declarations (the canary verified): "
                         "its context is inconsistent")  # fmt: skip


def tests(report: VerifierReport, leave_out: Iterable[str] = ()) -> tuple[TestOutcome, ...]:
    """One test per unit name of ``report`` (its worst outcome), but those of ``leave_out``."""
    left = set(leave_out)
    found = []
    for name in dict.fromkeys(p.name for p in report.procedures if p.name not in left):
        outcome = report.outcome_of(name)
        status = {"verified": Status.OK, "timeout": Status.TLE}.get(outcome or "", Status.WA)
        found.append(TestOutcome(name=name, passed=outcome == "verified", status=status.value))
    return tuple(found)


def judged(units: tuple[TestOutcome, ...], diagnostics: Sequence[Diagnostic], metrics: Mapping[str, float],
           noun: str) -> Grade:  # fmt: skip
    """The grade of a complete run from its units (``noun``: what a unit is, in the plural)."""
    failed = [t for t in units if not t.passed]
    if not failed:
        status, message = Status.OK, f"verified ({len(units)} {noun})"
    elif any(t.status == Status.TLE.value for t in failed):
        status, message = Status.TLE, f"{len(failed)} of {len(units)} {noun} not verified (time limit reached)"
    else:
        shown = ", ".join(t.name for t in failed[:5])
        status, message = Status.WA, f"{len(failed)} of {len(units)} {noun} not verified: {shown}"
    return Grade(status, tests=units, diagnostics=tuple(diagnostics), metrics=dict(metrics), message=message)


def metrics(units: tuple[TestOutcome, ...], obligations: int) -> dict[str, float]:
    """The pass metrics, ``procedures`` (units), ``verified_fraction`` and ``obligations``."""
    return {
        **pass_metrics(units),
        "procedures": float(len(units)),
        "verified_fraction": (sum(t.passed for t in units) / len(units)) if units else 0.0,
        "obligations": float(obligations),
    }


@dataclass(frozen=True)
class Source:
    """The verified file as the feedback quotes it: its name, its text, and the answer's line
    of each of its lines (None for the task's own)."""

    file: str
    text: str
    agent_line: Callable[[int], int | None]


def diagnostics(report: VerifierReport, source: Source, leave_out: Iterable[str] = ()) -> list[Diagnostic]:
    """``report``'s messages on ``source`` (but those about the units of ``leave_out``),
    each on the answer's line or marked as the specification's, without repeats."""
    left = set(leave_out)
    lines = source.text.split("\n")
    found: list[Diagnostic] = []
    for message in report.messages:
        if message.procedure in left or message.file != source.file or message.line < 1:
            continue
        quoted = lines[message.line - 1].strip() if message.line <= len(lines) else ""
        text = message.text + (f" (procedure {message.procedure})" if message.procedure else "")
        severity = _SEVERITY.get(message.severity, "error")
        line = source.agent_line(message.line)
        if line is not None:
            diagnostic = Diagnostic(f"{text}: `{quoted}`" if quoted else text, file="answer", line=line,
                                    column=message.column, severity=severity)  # fmt: skip
        else:
            diagnostic = Diagnostic(f"{text}: in the task's specification: `{quoted}`", file="spec", severity=severity)
        if diagnostic not in found:
            found.append(diagnostic)
    return found[:MAX_DIAGNOSTICS]
