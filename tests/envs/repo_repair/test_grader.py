"""The grader on synthetic reports: outcomes read from each phase, the cross-checks that turn a
report that contradicts itself or its step into `Status.HACK`, the sandbox's own verdicts, and
what the agent is told (hidden tests by name only)."""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from codegym.envs.repo_repair.grader import Expected, check, grade, read_report
from codegym.envs.repo_repair.runner import JUDGE

from codegym.error import SandboxError
from codegym.executor import RunResult, StepResult
from codegym.grade import Grade, Status

LOW = "tests/test_core.py::test_clamp_low"
HIGH = "tests/test_core.py::test_clamp_high"
PUSH = "tests/test_stack.py::test_push_pop"
EMPTY = "tests/test_stack.py::test_pop_empty"
EXPECTED = Expected(fail_to_pass=(LOW, HIGH), pass_to_pass=(PUSH, EMPTY))
ALL_PASS = {LOW: "passed", HIGH: "passed", PUSH: "passed", EMPTY: "passed"}
Event = dict[str, Any]


def phase(node: str, when: str, outcome: str, *, wasxfail: bool = False, longrepr: str = "") -> Event:
    return {"test": node, "when": when, "outcome": outcome, "wasxfail": wasxfail, "longrepr": longrepr}


def phases(node: str, outcome: str) -> list[Event]:
    """The events pytest's reporter sends for one test that ends with ``outcome``."""
    trace = f"E   assert {node} ... ({outcome})"
    if outcome == "skipped":  # (a skip mark: setup skips, no call)
        return [phase(node, "setup", "skipped", longrepr="Skipped: not here"), phase(node, "teardown", "passed")]
    if outcome == "error":  # (a fixture failed in setup: no call)
        return [phase(node, "setup", "failed", longrepr=trace), phase(node, "teardown", "passed")]
    call = {
        "passed": phase(node, "call", "passed"),
        "failed": phase(node, "call", "failed", longrepr=trace),
        "xfailed": phase(node, "call", "skipped", wasxfail=True, longrepr="XFAIL reason"),
        "xpassed": phase(node, "call", "passed", wasxfail=True),
    }[outcome]
    return [phase(node, "setup", "passed"), call, phase(node, "teardown", "passed")]


def events(
    outcomes: Mapping[str, str], *, collected: Iterable[str] | None = None, exit_status: int | None = None
) -> list[Event]:
    """A well-formed report: collection, every test's phases, and the session's exit status
    (1 when a test failed or errored, else 0, unless given)."""
    if exit_status is None:
        exit_status = 1 if any(o in ("failed", "error") for o in outcomes.values()) else 0
    found: list[Event] = [{"collected": list(outcomes if collected is None else collected)}]
    for node, outcome in outcomes.items():
        found += phases(node, outcome)
    return [*found, {"exit": exit_status}]


def output(
    items: Iterable[Event | bytes],
    ending: str = "closed",
    *,
    verified: Iterable[str] | None = None,
    judged: bool = True,
    **verdict: Any,
) -> bytes:
    """What the harness returns for these events (bytes are sent as they are), and, where
    ``judged``, the runner's verdict: ``verified`` (by default every test whose call passed),
    and ``verdict``'s other fields."""
    items = list(items)
    frames = [item if isinstance(item, bytes) else json.dumps(item).encode() for item in items]
    if verified is None:
        verified = [
            e["test"] for e in items if isinstance(e, dict) and e.get("when") == "call" and e.get("outcome") == "passed"
        ]
    if judged:
        fields = {
            "verified": sorted(set(verified)),
            "checked": sorted(set(verified)),
            "problem": None,
            "tampered": None,
        }
        frames.append(JUDGE + json.dumps({**fields, **verdict}).encode())
    return marshal.dumps((ending, frames))


def result(harness_output: bytes | None, exit_code: int | None = 0, **step: Any) -> RunResult:
    steps = (StepResult(argv=("python", "-m", "codegym.envs.repo_repair.runner", "{}"), exit_code=exit_code, **step),)
    return RunResult(steps=steps, harness_output=harness_output)


def graded(
    outcomes: Mapping[str, str],
    expected: Expected = EXPECTED,
    *,
    exit_code: int | None = None,
    **options: Any,
) -> Grade:
    """The grade of a well-formed report whose step exited as the session did."""
    found = events(outcomes)
    if exit_code is None:
        exit_code = found[-1]["exit"]
    return grade(expected, result(output(found), exit_code), **options)


def passed(grade: Grade) -> dict[str, bool]:
    return {test.name: test.passed for test in grade.tests}


def test_every_test_passing_is_ok() -> None:
    g = graded(ALL_PASS)
    assert g.status is Status.OK
    assert g.metrics["fail_to_pass"] == g.metrics["pass_to_pass"] == 1.0
    assert g.metrics["pass_rate"] == 1.0
    assert passed(g) == dict.fromkeys((LOW, HIGH, PUSH, EMPTY), True)
    assert [t.tier for t in g.tests] == ["fail_to_pass", "fail_to_pass", "pass_to_pass", "pass_to_pass"]
    assert g.message.startswith("resolved")


def test_tests_outside_the_task_may_fail() -> None:
    g = graded({**ALL_PASS, "tests/test_other.py::test_flaky": "failed"})
    assert g.status is Status.OK


@pytest.mark.parametrize("outcome", ["missing", "skipped", "error", "xfailed", "xpassed", "failed"])
def test_a_fail_to_pass_test_that_does_not_pass(outcome: str) -> None:
    outcomes = {**ALL_PASS, LOW: outcome}
    if outcome == "missing":
        del outcomes[LOW]
    g = graded(outcomes)
    assert g.status is not Status.OK
    assert g.status is Status.WA
    assert passed(g) == {LOW: False, HIGH: True, PUSH: True, EMPTY: True}
    assert g.metrics["fail_to_pass"] == 0.5
    assert g.metrics["pass_to_pass"] == 1.0
    trace = next(t.trace for t in g.tests if t.name == LOW)
    assert trace is not None
    assert trace.startswith(outcome)


def test_a_fail_to_pass_test_may_not_skip_even_where_allowed() -> None:
    expected = Expected((LOW, HIGH), (PUSH, EMPTY), may_skip=frozenset({LOW}))
    assert graded({**ALL_PASS, LOW: "skipped"}, expected).status is Status.WA


def test_a_skipped_pass_to_pass_test_fails_unless_the_reference_skipped_it() -> None:
    g = graded({**ALL_PASS, PUSH: "skipped"})
    assert g.status is Status.WA
    assert passed(g)[PUSH] is False
    assert g.metrics["pass_to_pass"] == 0.5
    assert "1 PASS_TO_PASS tests broke (tests/test_stack.py::test_push_pop)" in g.message
    expected = Expected((LOW, HIGH), (PUSH, EMPTY), may_skip=frozenset({PUSH}))
    g = graded({**ALL_PASS, PUSH: "skipped"}, expected)
    assert g.status is Status.OK
    assert passed(g)[PUSH] is True


@pytest.mark.parametrize("outcome", ["failed", "error", "xfailed", "missing"])
def test_a_pass_to_pass_test_that_may_skip_must_still_not_fail(outcome: str) -> None:
    expected = Expected((LOW, HIGH), (PUSH, EMPTY), may_skip=frozenset({PUSH}))
    outcomes = {**ALL_PASS, PUSH: outcome}
    if outcome == "missing":
        del outcomes[PUSH]
    g = graded(outcomes, expected)
    assert g.status is Status.WA
    assert passed(g)[PUSH] is False


def test_an_xpassed_pass_to_pass_test_counts_as_passed() -> None:
    g = graded({**ALL_PASS, EMPTY: "xpassed"})
    assert g.status is Status.OK
    assert passed(g)[EMPTY] is True


def test_read_report_reads_each_outcome_from_its_phases() -> None:
    kinds = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    outcomes = {f"t.py::test_{kind}": kind for kind in kinds}
    report = read_report(output(events(outcomes)))
    assert report.tampered is None
    assert report.exit == 1
    assert report.collected == tuple(outcomes)
    assert dict(report.outcomes) == outcomes
    assert set(report.traces) == {"t.py::test_failed", "t.py::test_error", "t.py::test_skipped", "t.py::test_xfailed"}
    assert check(report, 1) is None
    assert check(report, 0) is not None


def test_a_teardown_failure_is_an_error_and_a_test_never_called_is_too() -> None:
    frames = [
        {"collected": ["t.py::a", "t.py::b"]},
        phase("t.py::a", "setup", "passed"),
        phase("t.py::a", "call", "passed"),
        phase("t.py::a", "teardown", "failed", longrepr="boom"),
        phase("t.py::b", "setup", "passed"),
        phase("t.py::b", "teardown", "passed"),
        {"exit": 1},
    ]
    assert dict(read_report(output(frames)).outcomes) == {"t.py::a": "error", "t.py::b": "error"}


def test_the_step_exiting_otherwise_than_the_session_is_a_hack() -> None:
    g = graded(ALL_PASS, exit_code=1)
    assert g.status is Status.HACK
    assert "ended with status 0 but its process exited with 1" in g.message
    assert graded({**ALL_PASS, LOW: "failed"}, exit_code=0).status is Status.HACK


def test_results_for_a_test_never_collected_are_a_hack() -> None:
    frames = events(ALL_PASS, collected=[HIGH, PUSH, EMPTY])
    g = grade(EXPECTED, result(output(frames), 0))
    assert g.status is Status.HACK
    assert f"never collected ({LOW})" in g.message


def test_a_test_collected_twice_is_a_hack() -> None:
    frames = events(ALL_PASS, collected=[LOW, LOW, HIGH, PUSH, EMPTY])
    assert grade(EXPECTED, result(output(frames), 0)).status is Status.HACK


def test_success_with_a_failing_test_is_a_hack() -> None:
    frames = events({**ALL_PASS, PUSH: "failed"}, exit_status=0)
    g = grade(EXPECTED, result(output(frames), 0))
    assert g.status is Status.HACK
    assert "pytest reported success" in g.message


def test_success_with_a_collected_test_that_never_ran_is_a_hack() -> None:
    frames = events(ALL_PASS, collected=[LOW, HIGH, PUSH, EMPTY, "tests/test_other.py::test_x"])
    assert grade(EXPECTED, result(output(frames), 0)).status is Status.HACK


def test_failure_with_no_failing_test_is_a_hack() -> None:
    frames = events(ALL_PASS, exit_status=1)
    g = grade(EXPECTED, result(output(frames), 1))
    assert g.status is Status.HACK
    assert "pytest reported failing tests, but the report has none" in g.message


@pytest.mark.parametrize(
    "bad",
    [b"not json", b"\xff\xfe", b"[1, 2]", b'"text"', b"42"],
    ids=["text", "not-utf8", "list", "string", "number"],
)
def test_a_frame_that_is_not_an_event_is_a_hack(bad: bytes) -> None:
    frames = [*events(ALL_PASS)[:-1], bad, {"exit": 0}]
    g = grade(EXPECTED, result(output(frames), 0))
    assert g.status is Status.HACK
    assert "not an event" in g.message


@pytest.mark.parametrize(
    "bad",
    [
        {"test": LOW, "outcome": "passed", "wasxfail": False},  # (no "when")
        {"collected": 5},
        {"exit": "zero"},
    ],
    ids=["test-without-phase", "collected-not-a-list", "exit-not-a-number"],
)
def test_a_malformed_event_is_a_hack(bad: Event) -> None:
    frames = [*events(ALL_PASS)[:-1], bad, {"exit": 0}]
    assert grade(EXPECTED, result(output(frames), 0)).status is Status.HACK


def test_a_report_collected_or_ended_twice_is_a_hack() -> None:
    frames = events(ALL_PASS)
    twice = grade(EXPECTED, result(output([frames[0], *frames]), 0))
    assert twice.status is Status.HACK
    assert "collection twice" in twice.message
    ended = grade(EXPECTED, result(output([*frames, {"exit": 0}]), 0))
    assert ended.status is Status.HACK
    assert "ends twice" in ended.message


@pytest.mark.parametrize("ending", ["garbled", "overflow"])
def test_a_report_that_did_not_end_cleanly_is_a_hack(ending: str) -> None:
    g = grade(EXPECTED, result(output(events(ALL_PASS), ending), 0))
    assert g.status is Status.HACK
    assert f"the test report was {ending}" in g.message


def test_a_tampered_event_is_a_hack() -> None:
    frames = [*events(ALL_PASS)[:-1], {"tampered": ["runner.CallInfo.from_call"]}, {"exit": 0}]
    g = grade(EXPECTED, result(output(frames), 0))
    assert g.status is Status.HACK
    assert "runner.CallInfo.from_call" in g.message


def test_a_session_that_never_ended_is_a_runtime_error() -> None:
    # The process died inside test_clamp_high's call: no more events, no exit status.
    frames = [
        {"collected": [LOW, HIGH, PUSH, EMPTY]},
        *phases(LOW, "passed"),
        phase(HIGH, "setup", "passed"),
    ]
    # The runner dies with its session: no verdict, so no FAIL_TO_PASS test counts as passed.
    g = grade(EXPECTED, result(output(frames, judged=False), None, signal=9))
    assert g.status is Status.RE
    assert "did not finish" in g.message
    assert passed(g) == {LOW: False, HIGH: False, PUSH: False, EMPTY: False}
    assert g.metrics["fail_to_pass"] == 0.0
    assert g.metrics["pass_to_pass"] == 0.0
    assert HIGH in g.message


def test_a_session_that_never_collected_is_a_runtime_error() -> None:
    g = grade(EXPECTED, result(output([]), 1))
    assert g.status is Status.RE
    assert not any(passed(g).values())


def test_a_test_file_that_cannot_be_imported_is_a_runtime_error() -> None:
    frames = [
        {"collect_error": "tests/test_core.py", "longrepr": "ImportError: cannot import name 'clamp'"},
        *events({PUSH: "passed", EMPTY: "passed"}, exit_status=2),
    ]
    g = grade(EXPECTED, result(output(frames), 2))
    assert g.status is Status.RE
    assert "1 test files fail to import" in g.message
    assert [d.file for d in g.diagnostics] == ["tests/test_core.py"]
    assert "cannot import name 'clamp'" in g.diagnostics[0].message


def test_a_session_that_broke_off_is_a_runtime_error() -> None:
    frames = events({LOW: "passed", PUSH: "passed", EMPTY: "passed"}, collected=[LOW, HIGH, PUSH, EMPTY], exit_status=2)
    g = grade(EXPECTED, result(output(frames), 2))
    assert g.status is Status.RE
    assert "status 2" in g.message


@pytest.mark.parametrize(
    ("limit", "status"), [("wall", Status.TLE), ("cpu", Status.TLE), ("memory", Status.MLE), ("output", Status.OLE)]
)
def test_a_step_that_hit_a_limit(limit: str, status: Status) -> None:
    frames = events({LOW: "passed"}, collected=[LOW, HIGH, PUSH, EMPTY])[:-1]
    g = grade(EXPECTED, result(output(frames), None, signal=9, limit=limit))
    assert g.status is status
    assert not all(passed(g).values())


def test_a_limit_wins_over_a_report_that_passes() -> None:
    g = grade(EXPECTED, result(output(events(ALL_PASS)), 0, limit="wall"))
    assert g.status is Status.TLE
    assert g.message == "wall-clock time limit exceeded"


def test_a_forbidden_system_call() -> None:
    frames = events({LOW: "passed"}, collected=[LOW, HIGH, PUSH, EMPTY])[:-1]
    g = grade(EXPECTED, result(output(frames), None, signal=31))
    assert g.status is Status.SEC
    assert "forbidden system call" in g.message
    # It wins over everything, a tampered report included.
    assert grade(EXPECTED, result(output([b"junk"], "garbled"), None, signal=31)).status is Status.SEC


def test_no_harness_output_is_the_sandboxs_fault() -> None:
    with pytest.raises(SandboxError, match="harness failed"):
        grade(EXPECTED, result(None, 0))
    crashed = RunResult(steps=(StepResult(argv=("python",), exit_code=0),), harness_error="Traceback ...")
    with pytest.raises(SandboxError, match="Traceback"):
        grade(EXPECTED, crashed)


def test_hidden_tests_carry_no_trace_unless_asked() -> None:
    expected = Expected((LOW, HIGH), (PUSH, EMPTY), hidden=frozenset({LOW, HIGH}))
    outcomes = {**ALL_PASS, LOW: "failed", PUSH: "failed"}
    g = graded(outcomes, expected)
    tests = {t.name: t for t in g.tests}
    assert tests[LOW].hidden
    assert tests[LOW].trace == "failed"
    assert not tests[PUSH].hidden
    assert tests[PUSH].trace == f"failed: E   assert {PUSH} ... (failed)"
    assert tests[LOW].public_view().trace is None
    shown = {t.name: t for t in graded(outcomes, expected, traces_of_hidden=True).tests}
    assert not shown[LOW].hidden
    assert shown[LOW].trace == f"failed: E   assert {LOW} ... (failed)"


def test_the_message_names_the_failing_tests() -> None:
    g = graded({**ALL_PASS, LOW: "failed", HIGH: "error", EMPTY: "failed"})
    assert g.status is Status.WA
    assert f"2 FAIL_TO_PASS tests still fail ({LOW}, {HIGH})" in g.message
    assert f"1 PASS_TO_PASS tests broke ({EMPTY})" in g.message
    assert PUSH not in g.message


def test_the_message_lists_at_most_five_names() -> None:
    many = tuple(f"tests/test_many.py::test_{n}" for n in range(7))
    g = graded(dict.fromkeys(many, "failed"), Expected(many, ()))
    assert "7 FAIL_TO_PASS tests still fail" in g.message
    assert many[4] in g.message
    assert many[5] not in g.message
    assert g.message.endswith(", ...)")


def test_resources_come_from_the_step() -> None:
    run = result(output(events(ALL_PASS)), 0, cpu_s=1.5, wall_s=2.0, peak_memory_bytes=1024)
    assert grade(EXPECTED, run).resources == {"cpu_s": 1.5, "wall_s": 2.0, "peak_memory_bytes": 1024.0}


def test_a_fail_to_pass_test_the_runner_did_not_verify_fails() -> None:
    """The session's report says it passed; the runner's own run of it did not."""
    g = grade(
        EXPECTED, result(output(events(ALL_PASS), verified=[HIGH], problem="its result came without its token"), 0)
    )
    assert g.status is Status.WA
    assert passed(g) == {LOW: False, HIGH: True, PUSH: True, EMPTY: True}
    trace = next(t.trace for t in g.tests if t.name == LOW)
    assert trace is not None and trace.startswith("unverified")
    assert "not when the runner ran it again" in trace and "without its token" in trace
    assert g.metrics["fail_to_pass"] == 0.5


@pytest.mark.parametrize("frames", [0, 2], ids=["none", "two"])
def test_without_exactly_one_verdict_no_fail_to_pass_test_passes(frames: int) -> None:
    verdict = JUDGE + json.dumps({"verified": [LOW, HIGH]}).encode()
    items: list[Event | bytes] = [*events(ALL_PASS), *[verdict] * frames]
    g = grade(EXPECTED, result(output(items, judged=False), 0))
    assert g.status is Status.WA
    assert passed(g) == {LOW: False, HIGH: False, PUSH: True, EMPTY: True}
    assert "sent no verdict" in str(g.tests[0].trace) or "two verdicts" in str(g.tests[0].trace)


def test_a_verifier_that_found_tampering_is_a_hack() -> None:
    g = grade(EXPECTED, result(output(events(ALL_PASS), tampered=["os.write"]), 0))
    assert g.status is Status.HACK
    assert "os.write" in g.message


def test_a_session_frame_cannot_pass_for_the_verdict() -> None:
    """Only the runner's frames start with its marker; a session event that names the
    verdict's fields is an event like any other."""
    forged = {"verified": [LOW, HIGH], "checked": [LOW, HIGH], "problem": None, "tampered": None}
    g = grade(EXPECTED, result(output([*events(ALL_PASS), forged], judged=False), 0))
    assert passed(g)[LOW] is False and passed(g)[HIGH] is False
