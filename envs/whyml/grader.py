"""Pure grading of a WhyML answer: the gate's report and Why3's on the assembled file.

The rules are `codegym.verifier.verdict`'s: the gate's refusals, ``CE``, ``TLE`` and ``RE``
runs, the canary (``Canary``'s goal ``false`` proved: ``HACK``), then one test per
verification goal of ``Impl`` and of ``Check`` (the refinement of ``Spec``, named
``<function>'refn'vc``).
"""

from __future__ import annotations

from codegym.envs.whyml.program import PROGRAM, Assembly

from codegym.grade import Grade
from codegym.verifier import GateReport, VerifierReport, verdict

CANARY = "canary"


def grade(gate: GateReport, assembly: Assembly | None, report: VerifierReport | None) -> Grade:
    """The verdict (``assembly`` and ``report`` are None when the gate refused the answer)."""
    if not gate.passed:
        return verdict.refused(gate, "a WhyML module")
    if assembly is None or report is None:
        raise ValueError("an answer the gate passed needs its assembly and the verifier's report")
    source = verdict.Source(PROGRAM, assembly.text, assembly.agent_line)
    diagnostics = verdict.diagnostics(report, source, leave_out=[CANARY])
    units = verdict.tests(report, leave_out=[CANARY])
    metrics = verdict.metrics(units, len([p for p in report.procedures if p.name != CANARY]))
    if (unfinished := verdict.unfinished(report, diagnostics, metrics)) is not None:
        return unfinished
    if report.outcome_of(CANARY) == "verified":
        return verdict.inconsistent(diagnostics, metrics)
    return verdict.judged(units, diagnostics, metrics, "goals")
