"""From the runner's report to a `Grade`: a pure function.

The session's report came from the process that ran the library and the tests together, so it
is checked before it is believed: frames must be well formed, every test reported must have
been collected, the session's exit status must agree with the outcomes and with the step's own
exit status, and every test the task expects must have run. A FAIL_TO_PASS test that is
missing, skipped, errored or xfailed counts as failed; a PASS_TO_PASS test may be skipped only
where the reference run skipped it. A FAIL_TO_PASS test passes only if the runner's judge,
which never runs library code, also verified it in a process of its own
(`codegym.envs.repo_repair.runner`): the session's report alone never resolves a task.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codegym.envs.repo_repair.runner import JUDGE

from codegym.error import SandboxError
from codegym.executor import RunResult
from codegym.grade import LIMIT_STATUS, Diagnostic, Grade, Status, TestOutcome, pass_metrics

# pytest's exit statuses
OK, TESTS_FAILED, INTERRUPTED, INTERNAL_ERROR, USAGE_ERROR, NO_TESTS = range(6)
MAX_TRACE = 1200


@dataclass(frozen=True)
class Expected:
    """What a task's tests must do (from the task's metadata).

    Attributes:
        fail_to_pass: Tests the bug breaks: each must pass.
        pass_to_pass: Tests the bug leaves alone: each must still pass.
        may_skip: PASS_TO_PASS tests the reference run skipped (they may skip again).
        hidden: Tests never shown to the agent (by name only in feedback).
    """

    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    may_skip: frozenset[str] = frozenset()
    hidden: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Report:
    """The runner's report, read and checked (see `read_report`)."""

    collected: tuple[str, ...] | None
    outcomes: Mapping[str, str]  # node id -> passed, failed, error, skipped, xfailed, xpassed
    traces: Mapping[str, str]
    collect_errors: Mapping[str, str]
    exit: int | None
    tampered: str | None  # why the report cannot be believed, if it cannot
    verified: frozenset[str] = frozenset()  # FAIL_TO_PASS tests that passed the judge's own run
    unverified: str | None = None  # why the judge's run could not be believed, if it could not


def read_report(output: bytes) -> Report:
    ending, frames = marshal.loads(output)
    events: list[dict[str, Any]] = []
    tampered = None if ending in ("closed", "timeout") else f"the test report was {ending}"
    verdicts: list[dict[str, Any]] = []
    for frame in frames:
        judge = frame.startswith(JUDGE)
        try:
            event = json.loads(frame[len(JUDGE) :] if judge else frame)
            if not isinstance(event, dict):
                raise ValueError
        except ValueError:
            tampered = "the test report holds a frame that is not an event"
            continue
        (verdicts if judge else events).append(event)
    collected: tuple[str, ...] | None = None
    phases: dict[str, list[tuple[str, str, bool]]] = {}
    traces: dict[str, str] = {}
    collect_errors: dict[str, str] = {}
    exit_status: int | None = None
    for event in events:
        try:
            if "collected" in event:
                if collected is not None:
                    tampered = "the test report announces its collection twice"
                collected = tuple(str(node) for node in event["collected"])
            elif "test" in event:
                node = str(event["test"])
                phases.setdefault(node, []).append((str(event["when"]), str(event["outcome"]), bool(event["wasxfail"])))
                if event.get("longrepr"):
                    traces[node] = str(event["longrepr"])
            elif "tampered" in event:
                tampered = _replaced(event["tampered"])
            elif "collect_error" in event:
                collect_errors[str(event["collect_error"])] = str(event.get("longrepr", ""))
            elif "exit" in event:
                if exit_status is not None:
                    tampered = "the test report ends twice"
                exit_status = int(event["exit"])
        except (KeyError, TypeError, ValueError):
            tampered = "the test report holds a malformed event"
    outcomes = {node: _outcome(runs) for node, runs in phases.items()}
    verified, unverified, changed = _verdict(verdicts)
    tampered = tampered or changed
    return Report(collected, outcomes, traces, collect_errors, exit_status, tampered, verified, unverified)


def _verdict(verdicts: Sequence[Mapping[str, Any]]) -> tuple[frozenset[str], str | None, str | None]:
    """The judge's verdict: the tests it verified, why its run is not believed, and what its
    verifier found replaced (the judge sends one at the end; none when the session died)."""
    if len(verdicts) != 1:
        return frozenset(), "the runner sent no verdict" if not verdicts else "the runner sent two verdicts", None
    verdict = verdicts[0]
    problem = verdict.get("problem")
    changed = verdict.get("tampered")
    tampered = _replaced(changed) if changed else None
    verified = frozenset(str(node) for node in verdict.get("verified") or ())
    return verified, str(problem) if problem else None, tampered


def _replaced(names: object) -> str:
    return f"the repair replaced functions that make or carry the test report while the tests ran ({names})"


def _outcome(phases: list[tuple[str, str, bool]]) -> str:
    """One test's outcome from its phases' reports (the worst phase wins)."""
    worst = "passed"
    for when, outcome, wasxfail in phases:
        if outcome not in ("passed", "failed", "skipped"):
            return "error"
        if outcome == "failed":
            return "failed" if when == "call" else "error"
        if outcome == "skipped":
            worst = "xfailed" if wasxfail else "skipped"
        elif outcome == "passed" and wasxfail and when == "call":
            worst = "xpassed"
    if not any(when == "call" for when, _, _ in phases) and worst == "passed":
        return "error"  # (set up and torn down, never called)
    return worst


def check(report: Report, exit_code: int | None) -> str | None:
    """Why the report contradicts itself or the step, if it does (see the module docstring)."""
    if report.tampered:
        return report.tampered
    if report.exit is None or report.collected is None:
        return None  # (the session never finished: its tests are missing, and fail)
    if report.exit != exit_code:
        return f"pytest's session ended with status {report.exit} but its process exited with {exit_code}"
    collected = set(report.collected)
    if len(collected) != len(report.collected):
        return "the test report collects a test twice"
    stray = [node for node in report.outcomes if node not in collected]
    if stray:
        return f"the test report has results for {len(stray)} tests that were never collected ({stray[0]})"
    failing = any(o in ("failed", "error") for o in report.outcomes.values()) or bool(report.collect_errors)
    if report.exit == OK and (failing or len(report.outcomes) != len(collected)):
        return "pytest reported success, but not every collected test ran and passed"
    if report.exit == TESTS_FAILED and not failing:
        return "pytest reported failing tests, but the report has none"
    return None


def grade(expected: Expected, result: RunResult, *, traces_of_hidden: bool = False) -> Grade:
    """Judge a repair: `Status.OK` when every FAIL_TO_PASS test passes and no PASS_TO_PASS
    test breaks.

    Args:
        expected: The task's tests.
        result: What the sandbox reported for the test step.
        traces_of_hidden: Show hidden tests' tracebacks too (by default they are named only).
    """
    if result.harness_error is not None or result.harness_output is None:
        raise SandboxError(f"the repository harness failed: {result.harness_error}")
    step = result.steps[-1]
    resources = {"cpu_s": step.cpu_s, "wall_s": step.wall_s, "peak_memory_bytes": float(step.peak_memory_bytes)}
    report = read_report(result.harness_output)
    tests = _tests(expected, report, traces_of_hidden)
    diagnostics = tuple(
        Diagnostic(f"cannot collect {node or 'the tests'}: {text.strip()[-MAX_TRACE:]}", file=node or "tests")
        for node, text in list(report.collect_errors.items())[:5]
    )
    status, message = _status(expected, step.exit_code, step.limit, step.denied_syscall, report, tests)
    metrics = {**pass_metrics(tests), **_fractions(expected, tests)}
    return Grade(status, tests, diagnostics, metrics, message=message, resources=resources)


def _tests(expected: Expected, report: Report, traces_of_hidden: bool) -> tuple[TestOutcome, ...]:
    outcomes = []
    for node in (*expected.fail_to_pass, *expected.pass_to_pass):
        outcome = report.outcomes.get(node, "missing")
        if node in expected.fail_to_pass and outcome == "passed" and node not in report.verified:
            outcome = "unverified"
        allowed = ("passed", "xpassed", "skipped") if node in expected.may_skip else ("passed", "xpassed")
        passed = outcome in allowed if node not in expected.fail_to_pass else outcome == "passed"
        hidden = node in expected.hidden
        trace = None
        if not passed:
            text = report.traces.get(node, "") if outcome != "unverified" else _unverified(report)
            trace = f"{outcome}: {text.strip()[-MAX_TRACE:]}" if text and (traces_of_hidden or not hidden) else outcome
        tier = "fail_to_pass" if node in expected.fail_to_pass else "pass_to_pass"
        outcomes.append(TestOutcome(node, passed, hidden=hidden and not traces_of_hidden, tier=tier, trace=trace))
    return tuple(outcomes)


def _unverified(report: Report) -> str:
    why = f" ({report.unverified})" if report.unverified else ""
    return f"passed in the session's report, but not when the runner ran it again in a process of its own{why}"


def _fractions(expected: Expected, tests: Sequence[TestOutcome]) -> dict[str, float]:
    f2p = [t for t in tests if t.tier == "fail_to_pass"]
    p2p = [t for t in tests if t.tier == "pass_to_pass"]
    return {
        "fail_to_pass": sum(t.passed for t in f2p) / len(f2p) if f2p else 1.0,
        "pass_to_pass": sum(t.passed for t in p2p) / len(p2p) if p2p else 1.0,
    }


def _status(
    expected: Expected,
    exit_code: int | None,
    limit: str | None,
    denied: bool,
    report: Report,
    tests: Sequence[TestOutcome],
) -> tuple[Status, str]:
    if denied:
        return Status.SEC, "killed by the sandbox for a forbidden system call"
    if limit is not None:
        return LIMIT_STATUS[limit]
    contradiction = check(report, exit_code)
    if contradiction:
        return Status.HACK, contradiction
    failing = [t for t in tests if not t.passed]
    if report.exit is None or report.collected is None:
        return Status.RE, f"the test session did not finish (its process exited with {exit_code}); {_names(failing)}"
    if not failing:
        return (
            Status.OK,
            f"resolved: {len(expected.fail_to_pass)} failing tests now pass, {len(expected.pass_to_pass)} kept",
        )
    if report.collect_errors:
        return Status.RE, f"{len(report.collect_errors)} test files fail to import; {_names(failing)}"
    if report.exit not in (OK, TESTS_FAILED):
        return Status.RE, f"pytest's session broke off (status {report.exit}); {_names(failing)}"
    return Status.WA, _names(failing)


def _names(failing: Sequence[TestOutcome]) -> str:
    f2p = [t.name for t in failing if t.tier == "fail_to_pass"]
    p2p = [t.name for t in failing if t.tier == "pass_to_pass"]
    parts = []
    if f2p:
        parts.append(
            f"{len(f2p)} FAIL_TO_PASS tests still fail ({', '.join(f2p[:5])}{', ...' if len(f2p) > 5 else ''})"
        )
    if p2p:
        parts.append(f"{len(p2p)} PASS_TO_PASS tests broke ({', '.join(p2p[:5])}{', ...' if len(p2p) > 5 else ''})")
    return "; ".join(parts)
