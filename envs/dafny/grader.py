"""Pure grading of a Dafny answer: the gate's report and the verifier's on the assembled file.

The shared rules are `codegym.verifier.verdict`'s (the gate's refusals, ``CE``, ``TLE`` and
``RE`` runs, the canary, per-procedure tests). Dafny adds one:
- A method or lemma of the file has no implementation check in Dafny's trace (it has no body,
  so its postcondition is assumed wherever it is called): ``HACK``. This is the second layer
  behind the gate's own refusal of body-less promises; the canary is the one behind both
  for an inconsistency that reaches every proof.

A failing first run (`verify_again`) is judged with a second one, of the program without the
canary (`merged`): adding a lemma changes what Z3 does on a fragile proof.

A spec answer (`spec`) is judged the same way, then by its kill checks: the env's own
procedures, never the answer's tests. Only an answer whose program verifies gets the share
of held mutants it rules out (``kill_rate``).

Dafny's messages are mapped back to the answer's own lines where they fall in the agent's
text (`program.Assembly.agent_line`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from codegym.envs.dafny.program import OPENABLE, Assembly, routines

from codegym.grade import Diagnostic, Grade, Status
from codegym.verifier import GateReport, VerifierReport, verdict

PROGRAM = "program.dfy"
CANARY = "canary.dfy"  # (the program with its canary, where a second run checks the canary alone)


def grade(gate: GateReport, assembly: Assembly | None, report: VerifierReport | None,
          again: VerifierReport | None = None) -> Grade:  # fmt: skip
    """The verdict (``assembly`` and ``report`` are None when the gate refused the answer);
    ``again`` is the second run's report, where `verify_again` asked for one."""
    if not gate.passed:
        return verdict.refused(gate, "Dafny")
    if assembly is None or report is None:
        raise ValueError("an answer the gate passed needs its assembly and the verifier's report")
    if again is not None:
        report = merged(report, again, assembly.canary)
    source = verdict.Source(PROGRAM, assembly.text, assembly.agent_line)
    ours = assembly.checks
    diagnostics = (*_notes(assembly), *verdict.diagnostics(report, source, leave_out=ours))
    units = verdict.tests(report, leave_out=ours)
    obligations = sum(p.obligations for p in report.procedures if p.name not in ours)
    metrics = verdict.metrics(units, obligations)
    if (unfinished := verdict.unfinished(report, diagnostics, verdict.metrics((), obligations))) is not None:
        return _with_first_error(unfinished)
    if report.outcome_of(assembly.canary) != "failed":
        return verdict.inconsistent(diagnostics, metrics)
    unproved = _without_implementation(report, assembly)
    if unproved:
        return Grade(Status.HACK, diagnostics=diagnostics, metrics=metrics,
                     message=f"{', '.join(unproved)}: a method or lemma whose body Dafny never verified "
                             "(without a body, its postcondition is an axiom at every call)")  # fmt: skip
    judged = verdict.judged(units, diagnostics, metrics, "procedures")
    return judged if not assembly.kills else _kills(judged, assembly, report)


def verify_again(assembly: Assembly, report: VerifierReport) -> bool:
    """Whether the program is verified a second time, without the canary (`merged`): when a
    procedure of the task or the answer was not verified, or the run was stopped before it
    ended, and the canary was not proved. Adding a lemma changes what Z3 does on a fragile
    proof, so a program that bare Dafny verifies may fail beside the canary; an answer that
    verifies, or whose canary was proved, or that Dafny could not read, runs once."""
    if report.ended not in ("complete", "timeout"):
        return False
    canary = report.outcome_of(assembly.canary)
    if canary is not None and canary != "failed":
        return False
    return report.ended == "timeout" or any(
        p.outcome != "verified" for p in report.procedures if p.name not in assembly.checks
    )


def merged(first: VerifierReport, again: VerifierReport, canary: str) -> VerifierReport:
    """One report of both runs: each procedure verified in either is verified (each run is a
    proof of the same declarations), the others are as the second run (the program alone, as
    bare Dafny verifies it) says; the canary is the first run's, or the second's where the
    first never reached it (the second then checks it alone: `DafnyEnv.rerun_job`). A second
    run that did not complete changes nothing."""
    if again.ended != "complete":
        return first
    proved = Counter((p.name, p.check) for p in first.procedures if p.outcome == "verified" and p.name != canary)
    procedures = []
    for procedure in again.procedures:
        key = (procedure.name, procedure.check)
        proved[key] -= 1
        procedures.append(replace(procedure, outcome="verified") if proved[key] >= 0 else procedure)
    tried = [p for p in first.procedures if p.name == canary]
    if tried:
        procedures = [*(p for p in procedures if p.name != canary), *tried]
    done = {p.name for p in procedures if p.outcome == "verified"} - {
        p.name for p in procedures if p.outcome != "verified"
    }
    messages = [m for m in again.messages if m.procedure not in done or m.severity != "error"]
    return replace(again, procedures=tuple(procedures), messages=tuple(messages))


def _kills(judged: Grade, assembly: Assembly, report: VerifierReport) -> Grade:
    """A spec answer's grade with the mutants it rules out (only when the program verifies
    against it; its check methods are the env's, not the answer's tests)."""
    mutants = {m for k in assembly.kills for m in k.mutants}
    killed = {m for k in assembly.kills if report.outcome_of(k.name) == "verified" for m in k.mutants}
    rate = len(killed) / len(mutants) if mutants else 0.0
    if judged.status is not Status.OK:
        killed, rate = set(), 0.0
        message = f"{judged.message}: the implementation must verify against the specification before it scores"
    else:
        message = f"{judged.message}; the specification rules out {len(killed)} of {len(mutants)} held mutants"
    metrics = {**judged.metrics, "mutants": float(len(mutants)), "killed": float(len(killed)), "kill_rate": rate}
    return replace(judged, metrics=metrics, message=message)


def _without_implementation(report: VerifierReport, assembly: Assembly) -> list[str]:
    """The methods and lemmas of the verified file that Dafny's trace shows no implementation
    check for: body-less ones, whatever let them through. One with a body and no ``ensures``
    is left out: Dafny checks no implementation that has no proof obligation (``method
    Main() {}``), and its body promises nothing to its callers."""
    implemented = {p.name for p in report.procedures if p.check == "Impl"}
    names = [c.name for c in routines(assembly.text)
             if c.kind in OPENABLE and c.name not in assembly.checks and (c.promises or not c.has_body)]  # fmt: skip
    return list(dict.fromkeys(name for name in names if name not in implemented))


def _with_first_error(unfinished: Grade) -> Grade:
    """A ``CE`` grade's message with the first error Dafny gave (where it is the answer's)."""
    first = next((d for d in unfinished.diagnostics if d.severity == "error"), None)
    if unfinished.status is not Status.CE or first is None:
        return unfinished
    where = f" (line {first.line})" if first.file == "answer" and first.line else ""
    return replace(unfinished, message=f"{unfinished.message}: {first.message}{where}")


def _notes(assembly: Assembly) -> tuple[Diagnostic, ...]:
    notes = []
    if assembly.kept:
        notes.append(Diagnostic(f"kept the task's own definitions of {', '.join(assembly.kept)}: the specification "
                                "is not the answer's to change", file="answer", severity="note"))  # fmt: skip
    if assembly.missing:
        notes.append(Diagnostic(f"the answer has no body for {', '.join(assembly.missing)}: the given one was used",
                                file="answer", severity="note"))  # fmt: skip
    return tuple(notes)
