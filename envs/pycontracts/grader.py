"""Pure grading of a PyContracts answer: the gate, the hidden tests, then CrossHair's claims as
the replay confirmed them.

- The gate refused the answer: ``HACK`` with each construct and its line (``CE`` when it does
  not parse); nothing ran.
- The hidden tests are graded as PythonFunction grades them (the same harness ran them);
  their status stands when it is not ``OK``.
- CrossHair's step: a limit that fired is ``TLE``/``MLE``/``OLE``, a crash ``RE``. A report
  missing or not carrying the episode's nonce, or a canary not refuted with its own value,
  is ``HACK``: the answer shares CrossHair's process, and CrossHair did not work in it. The
  modules failing to load under CrossHair is ``RE``.
- Every input CrossHair reported, and each of the task's boundary probes
  (`codegym.envs.pycontracts.probes`), was run concretely (`codegym.envs.pycontracts.replay`):
  one that meets the preconditions and on which the answer raises, breaks a postcondition
  (the harness evaluates it) or returns other than the reference, is a confirmed
  counterexample: ``WA``. A claim that does not reproduce counts for nothing; a probe the
  reference itself raises on is not counted.
- Otherwise: a search stopped by its CPU time before its budget of paths was spent is
  ``TLE``; a postcondition's search none of whose paths ran to the end (each cut short by
  its own time, or running what CrossHair cannot run symbolically) checked nothing: ``RE``;
  else ``OK``. CrossHair searches and does not prove: ``OK`` means that no
  counterexample was found within the budget. A claim that does not reproduce is shown as a
  warning and changes nothing (a postcondition's search stops at its first claim; the diff's
  search, over the same inputs, does not stop at one).

One test per contract unit follows the hidden tests: each postcondition, "no exception" and
(with the diff) "same as the reference", each failing with the first input that broke it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codegym.envs.pycontracts import gate as gates
from codegym.envs.pycontracts.assembly import Assembly
from codegym.envs.pycontracts.report import CrossHairReport, Finding
from codegym.envs.python_function import codec
from codegym.envs.python_function import grader as tests_grader
from codegym.envs.python_function.harness import matches

from codegym.executor import RunResult
from codegym.grade import Diagnostic, Grade, Status, TestOutcome, pass_metrics, step_failure
from codegym.task import Task
from codegym.verifier import GateReport, verdict

MAX_SHOWN = 300
MAX_WARNINGS = 3
MAX_NAMED = 3  # failed contract checks the message names
CONTRACT_CHECKS = "Contract checks"  # the units' count line in the feedback (`TestOutcome.group`)
NO_EXCEPTION = "contract: no exception"
SAME_AS_REFERENCE = "contract: same as the reference"


@dataclass(frozen=True)
class Runs:
    """What the env gathered for one answer (`PyContractsEnv.launch`).

    Attributes:
        gate: The gate's report (nothing else ran when it refused the answer).
        assembly: The module CrossHair checked.
        check: The job of the hidden tests (step 0) and CrossHair (step 1).
        report: What CrossHair's step reported (None when it did not run).
        cases: The inputs replayed, in order: CrossHair's, then the boundary probes.
        replay: The job that ran the answer on each case.
        reference: The job that ran the reference on each case.
        diff: Whether CrossHair compared the answer with the reference.
        probed: How many of ``cases`` (the last ones) are boundary probes (`probes`).
    """

    gate: GateReport
    assembly: Assembly | None = None
    check: RunResult | None = None
    report: CrossHairReport | None = None
    cases: tuple[tuple[Any, ...], ...] = ()
    replay: RunResult | None = None
    reference: RunResult | None = None
    diff: bool = True
    probed: int = 0


@dataclass(frozen=True)
class Case:
    """What the replay saw of one input."""

    args: tuple[Any, ...]
    met: bool = False
    returned: Any = None
    raised: str | None = None
    broken: Mapping[int, str] = field(default_factory=dict)
    reference: Any = None
    reference_ok: bool = False
    frames: tuple[tuple[int, str, str], ...] = ()

    @property
    def failed(self) -> bool:
        return self.raised is not None


def grade(task: Task, runs: Runs) -> Grade:
    """The verdict on an answer (see the module docstring)."""
    if not runs.gate.passed:
        return _refused(runs.gate)
    if runs.check is None:
        raise ValueError("an answer the gate passed needs its check job's result")
    tests = tests_grader.grade(task, runs.check)
    units, diagnostics, status, message = _contracts(task, runs, runs.check)
    outcomes = (*tests.tests, *units)
    metrics = {**pass_metrics(outcomes), "verified_fraction": pass_metrics(outcomes)["pass_rate"],
               "crosshair_paths": float(runs.report.paths if runs.report else 0),
               "counterexamples": float(sum(not u.passed for u in units))}  # fmt: skip
    resources = dict(tests.resources)
    if len(runs.check.steps) > 1:
        resources["crosshair_cpu_s"] = runs.check.steps[1].cpu_s
    if tests.status is not Status.OK:
        status, message = tests.status, tests.message
        diagnostics = _once([*tests.diagnostics, *diagnostics])
    return Grade(status, outcomes, tuple(diagnostics), metrics, message=message, resources=resources)


def _refused(gate: GateReport) -> Grade:
    """The gate's refusal, each thing said once: an answer that does not parse, or lacks the
    task's function, is ``CE`` with the reason in the message (no diagnostic repeating it)."""
    if gate.unreadable is None:
        return verdict.refused(gate, "Python")
    reason = gate.unreadable
    message = reason if reason.startswith(gates.MISNAMED) else f"the answer is not Python: {reason}"
    return Grade(Status.CE, message=message, metrics=pass_metrics(()))


def _once(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` without repeats: one per line where the hidden tests' and the
    counterexample's say where the answer raised (the first kept)."""
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.line is None or all(d.line != diagnostic.line or d.file != diagnostic.file for d in kept):
            kept.append(diagnostic)
    return list(dict.fromkeys(kept))


def _contracts(task: Task, runs: Runs, check: RunResult) -> tuple[tuple[TestOutcome, ...], list[Diagnostic], Status,
                                                                   str]:  # fmt: skip
    """The contract units, their diagnostics, and the status and message CrossHair's part
    gives (as if the hidden tests had passed)."""
    step = check.steps[1] if len(check.steps) > 1 else None
    if step is None or step.skipped:
        return (), [], Status.RE, "CrossHair did not run"
    if (failure := step_failure(step)) is not None:
        return (), [], failure[0], f"CrossHair's run: {failure[1]}"
    report = runs.report
    if report is None or report.ended == "missing":
        why = report.detail if report else "no report"
        return (), [], Status.HACK, f"CrossHair's report is missing or forged ({why}): the answer shares its process"
    if report.ended == "error":
        lines = [Diagnostic(f"{text} (in {name})", line=line) for line, name, text in report.frames]
        return (), lines, Status.RE, f"the answer did not load beside CrossHair: {report.detail}"
    if not report.canary:
        return (), [], Status.HACK, ("CrossHair did not refute its canary (a postcondition false for one input): "
                                     "something in the answer's process stopped it from working")  # fmt: skip
    cases = _cases(runs)
    units = _units(task, runs, cases)
    warnings = _unconfirmed(report.findings, cases)
    failed = [u for u in units if not u.passed]
    if failed:
        shown = "; ".join(f"{u.name.removeprefix('contract: ')} on {u.call}" for u in failed[:MAX_NAMED])
        more = f"; and {len(failed) - MAX_NAMED} more" if len(failed) > MAX_NAMED else ""
        message = f"{len(failed)} of {len(units)} contract checks failed on a counterexample: {shown}{more}"
        return units, [*_frames(cases), *warnings], Status.WA, message
    cut = [s.name for s in report.searches if s.cut]
    if cut:
        return units, warnings, Status.TLE, (f"CrossHair ran out of time before spending its budget on "
                                             f"{', '.join(cut)}: no verdict")  # fmt: skip
    unchecked = [s.name for s in report.searches if s.name != "diff" and not s.refuted and not s.checked]
    if unchecked:
        return units, warnings, Status.RE, (f"CrossHair ran no path of {', '.join(unchecked)} to its end (each was "
                                            "cut short by its time, or ran what CrossHair cannot run symbolically): "
                                            "nothing was checked")  # fmt: skip
    message = (f"all {len(task.tests)} tests and {len(units)} contract checks passed; CrossHair found no "
               f"counterexample in {len(report.searches)} searches ({report.paths} paths): it searched, it did not "
               "prove")  # fmt: skip
    return units, warnings, Status.OK, message


def _cases(runs: Runs) -> dict[str, Case]:
    """Each replayed input by its key (``repr`` of its arguments)."""
    seen_all = replayed(runs.replay)
    outputs = _recorded(runs.reference)
    cases = {}
    first_probe = len(runs.cases) - runs.probed
    for index, args in enumerate(runs.cases):
        seen = seen_all[index] if index < len(seen_all) else {}
        output = outputs[index] if index < len(outputs) else {}
        reference_ok = "value" in output
        if index >= first_probe and not reference_ok:
            continue  # (a probe the reference itself fails on, or did not reach: it judges nothing)
        broken = {int(i): str(why) for i, why in seen.get("broken", ())}
        raised = seen.get("raised") or (seen.get("gone") and f"did not return: {seen['gone']}")
        frames = tuple((int(line), str(name), str(text)) for line, name, text in seen.get("frames") or ())
        expected = _decoded(output.get("value")) if reference_ok else None
        cases[repr(args)] = Case(args, bool(seen.get("met")), _decoded(seen.get("returned")), raised, broken, expected,
                                 reference_ok, frames)  # fmt: skip
    return cases


def replayed(result: RunResult | None) -> list[dict[str, Any]]:
    """What a replay job's harness reported of each input, in order ([] when it reported none)."""
    if result is None or result.harness_output is None:
        return []
    report = json.loads(result.harness_output)
    return list(report.get("cases", ())) if report.get("phase") == "replay" else []


def _recorded(result: RunResult | None) -> list[dict[str, Any]]:
    if result is None or result.harness_output is None:
        return []
    report = json.loads(result.harness_output)
    return list(report.get("outputs", ())) if report.get("phase") == "record" else []


def _decoded(text: str | None) -> Any:
    return None if text is None else codec.decode(text.encode())


def _units(task: Task, runs: Runs, cases: Mapping[str, Case]) -> tuple[TestOutcome, ...]:
    entry = str(task.metadata["entry_point"])
    met = [c for c in cases.values() if c.met]
    units = []
    for index in range(len(task.metadata["post"])):  # (never their text: the contract is hidden)
        broken = next((c for c in met if index in c.broken), None)
        units.append(_unit(f"contract: post {index + 1}", entry, broken, lambda c, i=index: (
            _expected(c), f"{_short(c.returned)}, {_breaks(c.broken[i], i)}")))  # fmt: skip
    raised = next((c for c in met if c.failed), None)
    units.append(_unit(NO_EXCEPTION, entry, raised, lambda c: ("a return value (the input meets every precondition)",
                                                               str(c.raised))))  # fmt: skip
    if runs.diff or runs.probed:
        differs = next((c for c in met if _differs(c)), None)
        units.append(_unit(SAME_AS_REFERENCE, entry, differs, lambda c: (
            _expected(c), str(c.raised) if c.failed else _short(c.returned))))  # fmt: skip
    return tuple(units)


def _expected(case: Case) -> str:
    if case.reference_ok:
        return f"{_short(case.reference)} (what the reference returns)"
    return "a result that meets the hidden contract"


def _breaks(why: str, index: int) -> str:
    """How the answer's result broke hidden postcondition ``index`` (``why``: the replay's
    "is False", or "raised <type>")."""
    if why == "is False":
        return f"which breaks hidden postcondition {index + 1}"
    return f"on which checking hidden postcondition {index + 1} {why}"


def _unit(name: str, entry: str, case: Case | None, shown: Any) -> TestOutcome:
    if case is None:
        return TestOutcome(name, True, status=Status.OK.value, group=CONTRACT_CHECKS)
    expected, got = shown(case)
    call = f"{entry}({', '.join(_short(a) for a in case.args)})"
    return TestOutcome(name, False, call=call, expected=expected, got=got, status=Status.WA.value,
                       call_args=codec.encode([list(case.args), {}]).decode(), group=CONTRACT_CHECKS)  # fmt: skip


def _differs(case: Case) -> bool:
    if not case.reference_ok:
        return False
    return case.failed or not matches(case.returned, case.reference, "exact")


def _reproduced(finding: Finding, cases: Mapping[str, Case]) -> bool:
    """Whether the input of ``finding`` shows the answer wrong when run (any unit)."""
    case = cases.get(finding.key or "")
    return case is not None and case.met and (case.failed or bool(case.broken) or _differs(case))


def _unconfirmed(findings: Sequence[Finding], cases: Mapping[str, Case]) -> list[Diagnostic]:
    warnings = []
    for finding in findings:
        if _reproduced(finding, cases):
            continue
        case = cases.get(finding.key or "")
        why = ("its input could not be read" if case is None and finding.args is None
               else "the input does not meet the preconditions" if case is not None and not case.met
               else "the answer meets the contract on it when run")  # fmt: skip
        warnings.append(Diagnostic(f"not counted: CrossHair reported {finding.call or 'an input'} ({finding.detail}), "
                                   f"but {why}", file="crosshair", severity="warning"))  # fmt: skip
    return list(dict.fromkeys(warnings))[:MAX_WARNINGS]


def _frames(cases: Mapping[str, Case]) -> list[Diagnostic]:
    """Where the answer raised, on the first input that made it raise."""
    for case in cases.values():
        if case.met and case.frames:
            line, name, text = case.frames[-1]
            return [Diagnostic(f"{case.raised} (in {name}: `{text}`)", line=line)]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
