"""A unittest suite run against ``solution.py`` in the submission's process (stdlib only).

Runs inside the sandbox as ``python -m codegym.envs.python_function.suite``, for tasks whose
tests are a `unittest.TestCase` class (BigCodeBench). Such tests patch modules the solution
uses and take objects no process boundary carries, so they cannot call the submission through
the proxy: they run beside it, as BigCodeBench runs them (the solution's code, then the test
code, in one module named ``__test__``).

The trade-off, and what stands against it: the tests are not in the work dir, nor in any file
of the submission's view; the harness (`codegym.envs.python_function.harness.grade_suite`)
sends them over the job's channel with a fresh nonce once the runner has started, and reads
the report back over it. Every frame must carry the nonce (a submission that writes its own
report before it knows it is caught), every expected test must be reported exactly once, and
the runner checks at the end that none of unittest's functions, nor this module's, nor the
builtins, was replaced while the tests ran. In front of those, a static layer
(`codegym.envs.python_function.suite_checks`) refuses as ``HACK`` a solution that imports the
collector, frames, unittest or the interpreter's internals, reaches frames or the module table,
or defines the methods that decide a comparison (an ``__eq__`` that always agrees). What it
cannot see (an attribute named by a computed string) remains possible in principle: where that
matters, train on the proxy-graded formats, whose tests never share the submission's process.
"""

from __future__ import annotations

import builtins
import io
import json
import marshal
import os
import sys
import time
import traceback
import types
import unittest
import unittest.case
import unittest.mock
import unittest.result
import unittest.suite
from typing import Any

from codegym.envs.python_function.candidate import syntax_error

from codegym.executor.channel import Channel

FILENAME = "solution.py"
TESTS = "__test__.py"  # (how the tests' frames are named in traces)
MAX_TRACE = 1500


class Report:
    """The runner's frames: each a JSON event tagged with the run's nonce."""

    def __init__(self, channel: Channel, nonce: str) -> None:
        self.channel = channel
        self.nonce = nonce

    def send(self, **event: Any) -> None:
        self.channel.send(json.dumps({**event, "nonce": self.nonce}, default=repr).encode())


class Recorder(unittest.TestResult):
    """Reports each test's outcome as it ends; ``names`` maps a test's id to its name."""

    def __init__(self, report: Report, names: dict[str, str]) -> None:
        super().__init__()
        self.report = report
        self.names = names
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.started = 0.0
        self.class_error = ""

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self.started = time.perf_counter()

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        name = self.names.get(test.id())
        if name is None:
            return
        outcome, trace = self.outcomes.pop(test.id(), ("passed", ""))
        self.report.send(test=name, outcome=outcome, trace=trace[-MAX_TRACE:],
                         time_s=time.perf_counter() - self.started)  # fmt: skip
        self.names.pop(test.id())

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:
        super().addFailure(test, err)
        self.outcomes[test.id()] = ("failed", self.failures[-1][1])

    def addError(self, test: unittest.TestCase, err: Any) -> None:
        super().addError(test, err)
        if test.id() in self.names:
            self.outcomes[test.id()] = ("error", self.errors[-1][1])
        else:  # a class's or module's set-up or tear-down (the suite names it)
            self.class_error = f"{test.id()}: {self.errors[-1][1]}"

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.outcomes[test.id()] = ("skipped", reason)  # (a skip passes nothing: it may come from the solution)

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self.outcomes[test.id()] = ("failed", "unexpected success of a test marked as an expected failure")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None and test.id() not in self.outcomes:
            kind = "failed" if issubclass(err[0], test.failureException) else "error"
            self.outcomes[test.id()] = (kind, f"{subtest.id()}: {err[0].__name__}: {err[1]}")


class _Sink:
    """Where the tests' and the solution's prints go (BigCodeBench swallows them too)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def main() -> None:
    channel = Channel(3, 4, blocking=True)
    spec = marshal.loads(channel.recv())  # from the harness, trusted
    report = Report(channel, spec["nonce"])
    with open(FILENAME, "rb") as handle:
        source = handle.read().decode("utf-8", errors="replace")
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
    except SyntaxError as e:
        report.send(**syntax_error(e))
        return
    tests = compile(spec["source"], TESTS, "exec", dont_inherit=True)  # (parsed when the task was loaded)
    module = types.ModuleType("__test__")
    module.__dict__.update({"__file__": TESTS, "sys": sys, "os": os, "environ": os.environ})
    sys.modules["__test__"] = module
    before = watched()
    for part in (code, tests):
        try:
            with _quiet():
                exec(part, module.__dict__)
        except Exception as e:
            where = "" if part is code else " (in the tests' code, after the solution's)"
            report.send(kind="load_error", type=type(e).__name__, message=f"{_message(e)}{where}", frames=_frames(e))
            return
    report.send(kind="ready")
    _run(report, module, spec["classes"])
    now = watched()
    changed = sorted(name for name, value in before.items() if now.get(name) is not value)
    report.send(kind="done", tampered=changed[:10])


def _run(report: Report, module: types.ModuleType, classes: list[tuple[str, list[tuple[str, str]]]]) -> None:
    """Run each class's tests as one suite (its class set-up once), reporting each test."""
    for class_name, methods in classes:
        names: dict[str, str] = {}
        cases = []
        found = module.__dict__.get(class_name)
        for name, method in methods:
            if not (isinstance(found, type) and issubclass(found, unittest.TestCase) and hasattr(found, method)):
                report.send(test=name, outcome="error", trace=f"{class_name}.{method} is not defined", time_s=0.0)
                continue
            case = found(method)
            names[case.id()] = name
            cases.append(case)
        recorder = Recorder(report, names)
        with _quiet():
            unittest.TestSuite(cases).run(recorder)
        for name in list(recorder.names.values()):  # (never run: a class set-up failed)
            report.send(test=name, outcome="error", trace=recorder.class_error or "not run", time_s=0.0)


class _quiet:
    """stdout and stderr to a sink, stdin empty, while the solution or the tests run."""

    def __enter__(self) -> None:
        self.saved = sys.stdout, sys.stderr, sys.stdin
        sys.stdout = sys.stderr = _Sink()  # type: ignore[assignment]
        sys.stdin = io.StringIO()

    def __exit__(self, *exc: object) -> None:
        sys.stdout, sys.stderr, sys.stdin = self.saved


def watched() -> dict[str, object]:
    """The functions that run, judge and report a test: unittest's, this module's, the
    channel's and the builtins. One a solution replaces is found at the end."""
    found: dict[str, object] = {}
    owners = (
        unittest.case, unittest.case.TestCase, getattr(unittest.case, "_Outcome", None), unittest.suite,
        unittest.suite.TestSuite, unittest.suite.BaseTestSuite, unittest.result.TestResult, Recorder, Report, Channel,
        json, json.encoder, marshal, builtins, time,
    )  # fmt: skip
    for owner in filter(None, owners):
        for name, value in vars(owner).items():
            if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
                found[f"{getattr(owner, '__name__', owner)}.{name}"] = value
    found["sys.modules[unittest]"] = sys.modules.get("unittest")
    return found


def _frames(error: BaseException) -> list[list[object]]:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    return [[f.lineno or 0, f.name, (f.line or "")[:200]] for f in frames[-10:]]


def _message(error: BaseException) -> str:
    try:
        return str(error)[:MAX_TRACE]
    except Exception:
        return "<unprintable>"
