"""Pure grading of a Dafny answer: the gate's report and the verifier's on the assembled file.

- The gate refused something: ``HACK``, with each construct and its line; nothing ran.
- The assembled file did not parse or resolve: ``CE``, with Dafny's errors.
- The run was stopped, or a procedure ran out of its time: ``TLE``; Dafny failed without a
  verdict: ``RE``. Neither is ever a pass.
- The canary (a lemma ``ensures false`` appended to the file) verified: ``HACK``: the
  program's context is inconsistent, whatever made it so.
- A method or lemma of the file has no implementation check in Dafny's trace (it has no body,
  so its postcondition is assumed wherever it is called): ``HACK``. This is the second layer
  behind the gate's own refusal of body-less promises; the canary is the one behind both
  for an inconsistency that reaches every proof.
- Every other procedure verified: ``OK``; else ``WA`` with the failing ones.

Dafny's messages are mapped back to the answer's own lines where they fall in the agent's
text (`program.Assembly.agent_line`); one in the trusted specification says so and quotes
the line.
"""

from __future__ import annotations

from codegym.envs.dafny.gate import GateReport
from codegym.envs.dafny.program import OPENABLE, Assembly, declarations

from codegym.grade import Diagnostic, Grade, Severity, Status, TestOutcome, pass_metrics
from codegym.verifier import Message, VerifierReport

PROGRAM = "program.dfy"
MAX_DIAGNOSTICS = 20
_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "note": "note"}


def grade(gate: GateReport, assembly: Assembly | None, report: VerifierReport | None) -> Grade:
    """The verdict (``assembly`` and ``report`` are None when the gate refused the answer)."""
    if not gate.passed:
        return _refused(gate)
    if assembly is None or report is None:
        raise ValueError("an answer the gate passed needs its assembly and the verifier's report")
    notes = _notes(assembly)
    diagnostics = (*notes, *_diagnostics(report, assembly))
    if report.ended == "syntax":
        return Grade(Status.CE, diagnostics=diagnostics, message=report.detail or "Dafny could not read the program",
                     metrics=_metrics(report, assembly))  # fmt: skip
    if report.ended == "timeout":
        return Grade(Status.TLE, diagnostics=diagnostics, message=f"the verifier was stopped: {report.detail}",
                     metrics=_metrics(report, assembly))  # fmt: skip
    if report.ended == "crashed":
        return Grade(Status.RE, diagnostics=diagnostics, message=f"Dafny gave no verdict: {report.detail}",
                     metrics=_metrics(report, assembly))  # fmt: skip
    if report.outcome_of(assembly.canary) != "failed":
        return Grade(Status.HACK, diagnostics=diagnostics, metrics=_metrics(report, assembly),
                     message="`false` is provable from this program's declarations (the canary lemma verified): "
                             "its context is inconsistent")  # fmt: skip
    unproved = _without_implementation(report, assembly)
    if unproved:
        return Grade(Status.HACK, diagnostics=diagnostics, metrics=_metrics(report, assembly),
                     message=f"{', '.join(unproved)}: a method or lemma whose body Dafny never verified "
                             "(without a body, its postcondition is an axiom at every call)")  # fmt: skip
    tests = _tests(report, assembly)
    failed = [t for t in tests if not t.passed]
    if not failed:
        status, message = Status.OK, f"verified ({len(tests)} procedures)"
    elif any(t.status == Status.TLE.value for t in failed):
        status, message = Status.TLE, f"{len(failed)} of {len(tests)} procedures not verified (time limit reached)"
    else:
        status, message = (
            Status.WA,
            f"{len(failed)} of {len(tests)} procedures not verified: " + ", ".join(t.name for t in failed[:5]),
        )
    return Grade(status, tests=tests, diagnostics=diagnostics, metrics=_metrics(report, assembly, tests),
                 message=message)  # fmt: skip


def _without_implementation(report: VerifierReport, assembly: Assembly) -> list[str]:
    """The methods and lemmas of the verified file that Dafny's trace shows no implementation
    check for: body-less ones, whatever let them through."""
    implemented = {p.name for p in report.procedures if p.check == "Impl"}
    names = [d.name for d in declarations(assembly.text) if d.kind in OPENABLE and d.name != assembly.canary]
    return [name for name in names if name not in implemented]


def _refused(gate: GateReport) -> Grade:
    if gate.unreadable is not None:
        return Grade(Status.CE, diagnostics=(Diagnostic(gate.unreadable, file="answer"),),
                     message=f"the answer is not Dafny: {gate.unreadable}", metrics=pass_metrics(()))  # fmt: skip
    diagnostics = tuple(Diagnostic(v.construct, file="answer", line=v.line, column=v.column, code="gate")
                        for v in gate.violations)  # fmt: skip
    first = gate.violations[0]
    return Grade(Status.HACK, diagnostics=diagnostics, metrics=pass_metrics(()),
                 message=f"refused before verification: {first.construct} (line {first.line})")  # fmt: skip


def _notes(assembly: Assembly) -> tuple[Diagnostic, ...]:
    notes = []
    if assembly.kept:
        notes.append(Diagnostic(f"kept the task's own definitions of {', '.join(assembly.kept)}: the specification "
                                "is not the answer's to change", file="answer", severity="note"))  # fmt: skip
    if assembly.missing:
        notes.append(Diagnostic(f"the answer has no body for {', '.join(assembly.missing)}: the given one was used",
                                file="answer", severity="note"))  # fmt: skip
    return tuple(notes)


def _diagnostics(report: VerifierReport, assembly: Assembly) -> list[Diagnostic]:
    lines = assembly.text.split("\n")
    found = []
    for message in report.messages:
        if message.procedure == assembly.canary:
            continue
        diagnostic = _mapped(message, assembly, lines)
        if diagnostic is not None and diagnostic not in found:
            found.append(diagnostic)
    return found[:MAX_DIAGNOSTICS]


def _mapped(message: Message, assembly: Assembly, lines: list[str]) -> Diagnostic | None:
    if message.file != PROGRAM or message.line < 1:
        return None
    severity = _SEVERITY.get(message.severity, "error")
    source = lines[message.line - 1].strip() if message.line <= len(lines) else ""
    text = message.text + (f" (procedure {message.procedure})" if message.procedure else "")
    line = assembly.agent_line(message.line)
    if line is not None:
        return Diagnostic(f"{text}: `{source}`" if source else text, file="answer", line=line,
                          column=message.column, severity=severity)  # fmt: skip
    return Diagnostic(f"{text}: in the task's specification: `{source}`", file="spec", severity=severity)


def _tests(report: VerifierReport, assembly: Assembly) -> tuple[TestOutcome, ...]:
    names = dict.fromkeys(p.name for p in report.procedures if p.name != assembly.canary)
    tests = []
    for name in names:
        outcome = report.outcome_of(name)
        status = {"verified": Status.OK, "timeout": Status.TLE}.get(outcome or "", Status.WA)
        tests.append(TestOutcome(name=name, passed=outcome == "verified", status=status.value))
    return tuple(tests)


def _metrics(report: VerifierReport, assembly: Assembly, tests: tuple[TestOutcome, ...] = ()) -> dict[str, float]:
    procedures = [p for p in report.procedures if p.name != assembly.canary]
    return {
        **pass_metrics(tests),
        "procedures": float(len(tests)),
        "verified_fraction": (sum(t.passed for t in tests) / len(tests)) if tests else 0.0,
        "obligations": float(sum(p.obligations for p in procedures)),
    }
