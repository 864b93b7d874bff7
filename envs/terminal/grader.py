"""The verdict on a terminal task: the tests' own outcomes, counted against the pristine tests.

Pure functions of what the verifier's run gave (`Outcome`) and the tests the pristine test
files define (`expected`, the node ids a run over the untouched environment collected). The
reward is 1.0 iff every expected test passed; the pass rate is a metric and a reward
component's base. What the command printed and its exit status decide nothing: the
harness's verdict plugin reports each test over a channel the box's init reads.

- Every expected test reported, all passed: ``OK``. Some failed (or errored, or were
  skipped, or were never collected because collection failed): ``WA``.
- An expected test reported by no session, with nothing that explains it (no collection
  error, the session finished): ``HACK``, the tests did not all run. The same for a test
  reported twice, or more pytest sessions than the pristine run had (a second reporter).
- The verifier ran past its time: ``TLE``; a session that never finished: ``RE``.
- A task whose tests are not pytest's (no test collected in the pristine run) is judged by
  the reward file the test command wrote in the verifier's fresh ``/logs/verifier``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from codegym.grade import Grade, Status, TestOutcome, pass_metrics

PHASES = ("setup", "call", "teardown")
GROUP = "Tests"  # (feedback counts them under this: a terminal task's tests are neither public nor shown)


@dataclass(frozen=True)
class Outcome:
    """What the verifier's run gave, as the grader reads it.

    Attributes:
        channel: The verdict plugin's JSON lines.
        exit_code: The test command's exit status (None: killed).
        timed_out: Whether it ran past the verifier's time.
        reward_file: The contents of ``/logs/verifier/reward.txt`` (or ``.json``), if any.
        output_tail: The end of the command's output (for a non-pytest task's message).
        channel_overflow: The plugin wrote more than the channel holds.
    """

    channel: bytes
    exit_code: int | None
    timed_out: bool = False
    reward_file: str | None = None
    output_tail: str = ""
    channel_overflow: bool = False


@dataclass
class Session:
    """One pytest session's reports, by its token."""

    collected: list[str] = field(default_factory=list)
    collect_errors: list[str] = field(default_factory=list)
    phases: dict[str, dict[str, tuple[str, bool, str, float]]] = field(default_factory=dict)
    finished: int | None = None


def read_sessions(channel: bytes) -> dict[str, Session]:
    """The sessions of a channel, in order of their first line (malformed lines are skipped)."""
    sessions: dict[str, Session] = {}
    for raw in channel.splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict) or not isinstance(record.get("session"), str):
            continue
        session = sessions.setdefault(record["session"], Session())
        event = record.get("event")
        if event == "collected" and isinstance(record.get("ids"), list):
            session.collected += [str(i) for i in record["ids"]]
        elif event == "collect_error":
            session.collect_errors.append(f"{record.get('where', '')}: {record.get('message', '')}".strip())
        elif event == "report" and isinstance(record.get("id"), str):
            phase = (str(record.get("outcome")), bool(record.get("xfail")), str(record.get("message") or ""),
                     float(record.get("duration") or 0.0))  # fmt: skip
            session.phases.setdefault(record["id"], {})[str(record.get("when"))] = phase
        elif event == "finish":
            session.finished = int(record.get("exitstatus", -1))
    return sessions


@dataclass(frozen=True)
class Expected:
    """What the pristine test files define, from a run over the untouched machine.

    Attributes:
        ids: The tests it collected, in order.
        sessions: Its pytest sessions (0: the tests are not pytest's; the reward file judges).
        uncollected: Test files it could not collect (they import what the agent is to
            write): a graded run must collect at least one test from each, and they all count.
    """

    ids: tuple[str, ...] = ()
    sessions: int = 0
    uncollected: tuple[str, ...] = ()


def expected_tests(channel: bytes) -> Expected:
    """The `Expected` tests of a pristine run's channel."""
    sessions = read_sessions(channel)
    ids: list[str] = []
    files: list[str] = []
    for session in sessions.values():
        ids += [i for i in session.collected if i not in ids]
        for error in session.collect_errors:
            where = error.split(": ", 1)[0].split("::", 1)[0]
            if where.endswith(".py") and where not in files:
                files.append(where)
    return Expected(tuple(ids), len(sessions), tuple(files))


def grade(outcome: Outcome, expected: Expected) -> Grade:
    """The grade of one verifier run (see the module docstring)."""
    if expected.sessions == 0:
        return _grade_reward_file(outcome)
    sessions = read_sessions(outcome.channel)
    wanted = _wanted(sessions, expected)
    tests, problems = _outcomes(sessions, wanted, expected.uncollected)
    tests += tuple(
        TestOutcome(name=f"{short_name(path)} (collects no test)", passed=False, status="error", group=GROUP)
        for path in problems["uncollected"]
    )
    metrics = pass_metrics(tests)
    passed = all(t.passed for t in tests)
    if outcome.timed_out:
        return Grade(Status.TLE, tests, metrics=metrics, message="the tests ran past the verifier's time limit")
    if outcome.channel_overflow:
        return Grade(Status.HACK, tests, metrics=metrics, message="the tests' report channel overflowed")
    if len(sessions) > max(expected.sessions, 1) or problems["twice"]:
        message = f"{len(sessions)} pytest sessions reported (the pristine tests run {expected.sessions})"
        if problems["twice"]:
            message = f"a test was reported more than once: {problems['twice'][0]}"
        return Grade(Status.HACK, tests, metrics=metrics, message=message)
    missing = problems["missing"]
    if missing or problems["uncollected"]:
        collect_errors = [e for s in sessions.values() for e in s.collect_errors]
        if collect_errors or problems["uncollected"]:
            first = collect_errors[0][:300] if collect_errors else short_name(problems["uncollected"][0])
            return Grade(Status.WA, tests, metrics=metrics, message=f"the tests could not be collected: {first}")
        if not sessions or any(s.finished is None for s in sessions.values()):
            message = f"the test run ended before {len(missing)} of {len(wanted)} tests ran"
            return Grade(Status.RE, tests, metrics=metrics, message=message)
        message = f"{len(missing)} of {len(wanted)} expected tests did not run (first: {missing[0]})"
        return Grade(Status.HACK, tests, metrics=metrics, message=message)
    if passed:
        return Grade(Status.OK, tests, metrics=metrics, message=f"all {len(tests)} tests passed")
    failing = [t for t in tests if not t.passed]
    return Grade(Status.WA, tests, metrics=metrics, message=f"{len(failing)} of {len(tests)} tests failed")


def _wanted(sessions: dict[str, Session], expected: Expected) -> tuple[str, ...]:
    """The pristine run's tests, and those this run collected from the files it could not."""
    found = [i for s in sessions.values() for i in s.collected if i.split("::", 1)[0] in expected.uncollected]
    return (*expected.ids, *dict.fromkeys(i for i in found if i not in expected.ids))


def _outcomes(
    sessions: dict[str, Session], wanted: Sequence[str], uncollected: Sequence[str] = ()
) -> tuple[tuple[TestOutcome, ...], dict[str, list[str]]]:
    seen: dict[str, dict[str, tuple[str, bool, str, float]]] = {}
    twice: list[str] = []
    for session in sessions.values():
        for test_id, phases in session.phases.items():
            if test_id in seen:
                twice.append(test_id)
            seen[test_id] = phases
    tests: list[TestOutcome] = []
    missing: list[str] = []
    for test_id in wanted:
        phases = seen.get(test_id)
        if phases is None:
            missing.append(test_id)
            tests.append(TestOutcome(name=short_name(test_id), passed=False, status="not run", group=GROUP))
            continue
        tests.append(_outcome(test_id, phases))
    files = {test_id.split("::", 1)[0] for test_id in wanted}
    empty = [path for path in uncollected if path not in files]
    return tuple(tests), {"missing": missing, "twice": twice, "uncollected": empty}


def _outcome(test_id: str, phases: dict[str, tuple[str, bool, str, float]]) -> TestOutcome:
    """A test passes when its call passed (or failed as an expected failure) and no phase
    failed; a skip is not a pass."""
    failed = next((p for p in PHASES if p in phases and phases[p][0] in ("failed", "error")), None)
    call = phases.get("call")
    if failed is not None:
        message = phases[failed][2]
        status = "error" if failed != "call" else "failed"
        passed = False
    elif call is not None and call[0] == "passed":
        status, message, passed = "passed", "", True
    elif (call or phases.get("setup", ("", False, "", 0.0)))[1]:  # an expected failure
        status, message, passed = "xfail", "", True
    else:
        status, message, passed = "skipped", (call or phases.get("setup", ("", False, "", 0.0)))[2], False
    duration = sum(p[3] for p in phases.values())
    return TestOutcome(
        name=short_name(test_id), passed=passed, status=status, trace=message or None, time_s=duration, group=GROUP
    )


def short_name(test_id: str) -> str:
    """``test_outputs.py::test_x`` of ``/tests/test_outputs.py::test_x``."""
    path, sep, rest = test_id.partition("::")
    return f"{path.rsplit('/', 1)[-1]}{sep}{rest}"


def _grade_reward_file(outcome: Outcome) -> Grade:
    if outcome.timed_out:
        return Grade(Status.TLE, message="the tests ran past the verifier's time limit")
    value = _reward_value(outcome.reward_file)
    if value is None:
        tail = outcome.output_tail.strip().splitlines()[-1:] if outcome.output_tail else []
        return Grade(Status.RE, message="the tests wrote no reward" + (f": {tail[0][:200]}" if tail else ""))
    metrics = {"pass_rate": value, "reward_file": value}
    status = Status.OK if value >= 1.0 else Status.WA
    return Grade(status, metrics=metrics, message=f"the tests' reward: {value:g}")


def _reward_value(text: str | None) -> float | None:
    """reward.txt's number, or reward.json's ``reward`` (a mean of its values otherwise)."""
    if text is None:
        return None
    text = text.strip()
    try:
        return max(0.0, min(1.0, float(text)))
    except ValueError:
        pass
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict):
        if isinstance(data.get("reward"), int | float):
            return max(0.0, min(1.0, float(data["reward"])))
        values = [float(v) for v in data.values() if isinstance(v, int | float)]
        return max(0.0, min(1.0, sum(values) / len(values))) if values else None
    return None
