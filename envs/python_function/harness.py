"""The grader's side: run the task's tests, calling the submission through a proxy.

Runs in the job's grader process, outside the submission's sandbox (stdlib only). Every
reply from the submission is decoded by `codec` into plain builtins before a test sees it,
and every wait has a deadline. Returns a JSON report; `grader.grade` turns it into a Grade.

A test is code (an assert, run here with the proxy bound to the entry point's name) or a
call: arguments, the expected return value and how to compare them (`matches`: ``exact``,
``apps`` or ``close`` with an ``atol``, EvalPlus's rule). `record` calls a reference with
each call test's arguments and reports what it returned (EvalPlus's expected outputs);
`grade_suite` collects what `codegym.envs.python_function.suite` reports of a unittest
suite (BigCodeBench), and checks it.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import json
import marshal
import math
import secrets
import time
from typing import Any

from codegym.envs.python_function import codec

from codegym.executor.base import Harness, Job, Step
from codegym.executor.channel import Channel, ChannelClosed, ChannelTimeout, ChannelViolation

MAX_REPR = 300
CANDIDATE = "codegym.envs.python_function.candidate"
# A python-function job's one step: the candidate module, answering this harness's calls.
STEPS = (Step(argv=("python", "-m", CANDIDATE), channel=True),)


class CandidateGone(Exception):
    """The submission died, hung or broke the protocol: no later test can run."""

    def __init__(self, reason: str, *, violation: bool = False) -> None:
        super().__init__(reason)
        self.violation = violation


class NotReady(BaseException):
    """The submission's first message was not "ready": no test can run, and ``report`` says
    why. A BaseException, so that no test's ``except Exception`` takes it for a failure."""

    def __init__(self, report: bytes) -> None:
        super().__init__("the submission did not load")
        self.report = report


class Greeting:
    """The submission's first message: "ready" once its module has loaded, or why not.

    It is read when the first call's reply is awaited, not before that call is sent: the
    call waits in the channel while the submission loads, which saves a round trip. If no
    test makes a call, it is read after the tests.
    """

    def __init__(self, channel: Channel, deadline: float) -> None:
        self.channel = channel
        self.deadline = deadline
        self.received_at: float | None = None  # perf_counter() when it came

    def expect(self) -> None:
        """Read it, once; raise `NotReady` unless it is "ready"."""
        if self.received_at is None:
            report = _greeting_report(self.channel, self.deadline)
            self.received_at = time.perf_counter()
            if report is not None:
                raise NotReady(report)


class CandidateRaised(Exception):
    """The submission raised; re-raised as the builtin exception type where there is one."""

    frames: list[list[Any]] = []


def _raised(kind: str, message: str, frames: list[list[Any]]) -> CandidateRaised:
    base = getattr(builtins, kind, None)
    bases: tuple[type, ...] = (CandidateRaised,)
    if isinstance(base, type) and issubclass(base, Exception) and base is not Exception:
        bases = (CandidateRaised, base)
    error_type = type(kind, bases, {})
    error = error_type(f"{kind}: {message}")
    error.frames = frames
    return error


class Proxy:
    """Stands in for the submission's function inside the tests."""

    def __init__(self, channel: Channel, name: str, deadline: float, greeting: Greeting) -> None:
        self.channel = channel
        self.name = name
        self.deadline = deadline
        self.greeting = greeting
        self.last: tuple[str, Any] | None = None
        self.last_args: str | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        request = codec.encode_call(self.name, args, kwargs)
        with contextlib.suppress(ChannelClosed):  # it exited: its greeting or the read below says why
            self.channel.send(request)
        # (while the submission answers)
        self.last_args = codec.encode([list(args), kwargs]).decode()
        shown = ", ".join([*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())])
        call = f"{_callee(self.name)}({shown})"
        self.greeting.expect()
        try:
            reply = codec.decode(self.channel.recv(timeout=max(0.0, self.deadline - time.monotonic())))
        except ChannelClosed as e:
            raise CandidateGone("the submission's process ended during a call") from e
        except ChannelTimeout as e:
            raise CandidateGone("the submission did not answer before the deadline") from e
        except (ChannelViolation, codec.Malformed) as e:
            raise CandidateGone(f"the submission broke the call protocol: {e}", violation=True) from e
        if type(reply) is not dict or reply.get("kind") not in ("return", "raise", "not_plain"):
            raise CandidateGone("the submission sent a malformed reply", violation=True)
        if reply["kind"] == "not_plain":
            raise _raised("TypeError", str(reply.get("message", "")), [])
        if reply["kind"] == "raise":
            frames = reply["frames"] if type(reply.get("frames")) is list else []
            raise _raised(str(reply.get("type", "Exception")), str(reply.get("message", "")), frames)
        self.last = (call, reply.get("value"))
        return reply.get("value")


def _callee(name: str) -> str:
    """How a call of ``name`` reads: ``Solution().method`` for a method of a class."""
    owner, _, method = name.rpartition(".")
    return f"{owner}().{method}" if owner else name


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def grade(channel: Channel, payload: bytes) -> bytes:
    """Harness entry (see `codegym.executor.Harness`); ``payload`` is the env's spec of the
    tests, marshal'd (builtins only, and the quickest to decode)."""
    spec = marshal.loads(payload)
    deadline = time.monotonic() + float(spec["time_budget_s"])
    greeting = Greeting(channel, deadline)
    try:
        results = _run_tests(spec, Proxy(channel, spec["entry_point"], deadline, greeting))
        greeting.expect()
    except NotReady as e:
        return e.report
    channel.close()  # the submission may exit while the report is written
    return _report("tests", results=results)


def _greeting_report(channel: Channel, deadline: float) -> bytes | None:
    """Read the submission's first message: None when it is "ready", else the report."""
    try:
        first = channel.recv(timeout=max(0.0, deadline - time.monotonic()))
        if first == codec.READY:  # (the usual first message, known without decoding it)
            return None
        hello = codec.decode(first)
    except ChannelClosed:
        return _report("load", error="the submission exited before it could be tested")
    except ChannelTimeout:
        return _report("load", error="the submission did not finish loading in time")
    except (ChannelViolation, codec.Malformed) as e:
        return _report("protocol", error=str(e))
    kind = hello.get("kind") if type(hello) is dict else None
    if kind == "syntax_error":
        return _syntax_error(hello)
    if kind == "load_error":
        return _report("load", error=f"{hello.get('type')}: {hello.get('message')}", frames=hello.get("frames"))
    if kind != "ready":
        return _report("protocol", error="the submission did not start the protocol")
    return None


def _syntax_error(hello: dict[str, Any]) -> bytes:
    """The report of a submission that does not compile: the message, where, and the line."""
    return _report("compile", error=str(hello.get("message")), line=hello.get("line"), column=hello.get("column"),
                   text=str(hello.get("text") or ""), end_column=hello.get("end_column"))  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _compiled(source: str, name: str, mode: str) -> Any:
    """Compiled test code; GRPO-style batches grade the same tests many times over."""
    return compile(source, name, mode)


@functools.lru_cache(maxsize=4096)
def _plan(code: str, name: str) -> tuple[Any, Any, str] | Any:
    """``assert A == B`` becomes (code of A, code of B, source of A) so that expected and
    got can be shown; any other test is compiled whole."""
    tree = ast.parse(code)
    statement = tree.body[0] if len(tree.body) == 1 else None
    if (
        isinstance(statement, ast.Assert)
        and isinstance(statement.test, ast.Compare)
        and len(statement.test.ops) == 1
        and isinstance(statement.test.ops[0], ast.Eq)
    ):
        left, right = statement.test.left, statement.test.comparators[0]
        return (
            compile(ast.Expression(left), name, "eval"),
            compile(ast.Expression(right), name, "eval"),
            ast.unparse(left),
        )
    return compile(tree, name, "exec")


def _run_tests(spec: dict[str, Any], proxy: Proxy) -> list[dict[str, Any]]:
    namespace: dict[str, Any] = {"__name__": "__grader__"}
    exec(_compiled(spec["prelude"], "prelude", "exec"), namespace)
    results: list[dict[str, Any]] = []
    gone: CandidateGone | None = None
    for test in spec["tests"]:
        namespace[spec["entry_point"]] = namespace["candidate"] = proxy
        if gone is not None:
            results.append({"name": test["name"], "passed": False, "ran": False, "trace": str(gone)})
            continue
        started = time.perf_counter()
        proxy.last = proxy.last_args = None
        try:
            outcome = _run_one(test, namespace)
        except CandidateGone as e:
            gone = e
            outcome = {"passed": False, "trace": str(e), "violation": e.violation}
        except CandidateRaised as e:
            outcome = {"passed": False, "trace": str(e), "frames": e.frames}
        except AssertionError as e:
            outcome = {"passed": False, "trace": f"AssertionError: {e}" if str(e) else "assertion failed"}
        except Exception as e:  # the test tripped over what the submission returned
            outcome = {"passed": False, "trace": f"{type(e).__name__}: {e}"}
        if proxy.last is not None and "got" not in outcome:
            outcome["call"], outcome["got"] = proxy.last[0], _short(proxy.last[1])
        if not outcome["passed"] and proxy.last_args is not None:
            outcome["args"] = proxy.last_args  # the failing call, for execution-grounded credit
        started = max(started, proxy.greeting.received_at or started)  # not the loading
        results.append({"name": test["name"], "ran": True, "time_s": time.perf_counter() - started, **outcome})
    return results


def _run_one(test: dict[str, Any], namespace: dict[str, Any]) -> dict[str, Any]:
    if "args" in test:  # a call test: the proxy, called with the test's arguments
        proxy: Proxy = namespace["candidate"]
        got = proxy(*test["args"])
        expected = test["expected"]
        passed = matches(got, expected, test.get("compare", "exact"), float(test.get("atol", 0.0)))
        call = proxy.last[0] if proxy.last else test["code"]
        return {"passed": passed, "call": call, "expected": _short(expected), "got": _short(got)}
    if test.get("setup"):
        exec(_compiled(test["setup"], test["name"], "exec"), namespace)
    plan = _plan(test["code"], test["name"])
    if isinstance(plan, tuple):
        left, right, call = plan
        got = eval(left, namespace)
        expected = eval(right, namespace)
        passed = bool(got == expected)
        return {"passed": passed, "call": call, "expected": _short(expected), "got": _short(got)}
    exec(plan, namespace)
    return {"passed": True}


def matches(got: Any, expected: Any, compare: str, atol: float = 0.0) -> bool:
    """Whether a call's return value ``got`` is the ``expected`` one, under a data set's rule:
    ``exact`` (equal, a tuple counting as the list JSON would make of it: LiveCodeBench),
    ``apps`` (APPS/TACO's: also equal to the single item of an expected list) or ``close``
    (EvalPlus's: equal, or floats within ``atol`` plus a relative 1e-7; 1e-6 where ``atol``
    is 0 and the expected value is floats) or ``typed`` (`same`: equal in value and type,
    floats within ``atol``, absolute and relative: output prediction's rule)."""
    if compare == "typed":
        return same(got, expected, atol)
    if compare == "close":
        if got == expected:
            return True
        atol = atol or (1e-6 if _floats(expected) else 0.0)
        return bool(atol) and _close(got, expected, atol)
    if type(got) is tuple:
        got = list(got)
    if got == expected or compare != "apps":
        return got == expected
    if type(expected) is list and expected:
        if got == expected[0]:
            return True
        if type(got) is list and got and type(got[0]) is tuple:
            return [list(item) for item in got] == expected[0]
    return False


def same(got: Any, expected: Any, tolerance: float = 0.0) -> bool:
    """Whether ``got`` equals ``expected`` in value and in type, all the way down: ``1`` is
    not ``1.0`` nor ``True``, a tuple is not a list; floats (and complex numbers) are equal
    within ``tolerance``, absolute or relative, and NaN equals NaN. Dict keys and set items
    are matched by equality, then their types compared."""
    kind = type(got)
    if kind is not type(expected):
        return False
    if kind is complex:
        return same(got.real, expected.real, tolerance) and same(got.imag, expected.imag, tolerance)
    if kind is float:
        return got == expected or (math.isnan(got) and math.isnan(expected)) or _near(got, expected, tolerance)
    if kind is list or kind is tuple:
        return len(got) == len(expected) and all(same(g, e, tolerance) for g, e in zip(got, expected, strict=True))
    if kind is dict:
        keys = {k: k for k in got}
        return len(got) == len(expected) and all(
            k in keys and type(keys[k]) is type(k) and same(got[k], v, tolerance) for k, v in expected.items()
        )
    if kind is set or kind is frozenset:
        items = {item: item for item in got}
        return len(got) == len(expected) and all(e in items and type(items[e]) is type(e) for e in expected)
    return bool(got == expected)


def _near(got: float, expected: float, tolerance: float) -> bool:
    return bool(tolerance) and abs(got - expected) <= tolerance * max(1.0, abs(expected))


def _floats(value: Any) -> bool:
    if type(value) is float:
        return True
    return type(value) in (list, tuple) and bool(value) and all(type(item) is float for item in value)


def _close(got: Any, expected: Any, atol: float) -> bool:
    """``numpy.allclose(got, expected, rtol=1e-7, atol=atol)`` over nested sequences, in stdlib."""
    if type(got) in (list, tuple) and type(expected) in (list, tuple):
        return len(got) == len(expected) and all(_close(g, e, atol) for g, e in zip(got, expected, strict=True))
    if type(got) in (int, float) and type(expected) in (int, float):
        return got == expected or abs(got - expected) <= atol + 1e-7 * abs(expected)
    return got == expected


def assertion(out: Any, exp: Any, atol: float) -> None:
    """EvalPlus's check of one output, as its published tests define it with numpy: the
    prelude of such a test imports this instead (the grader has no third-party packages)."""
    assert matches(out, exp, "close", atol)


def _report(phase: str, **fields: Any) -> bytes:
    return json.dumps({"phase": phase, **fields}, default=repr).encode()


def harness_for(entry_point: str, prelude: str, tests: list[dict[str, Any]], time_budget_s: float) -> Harness:
    """This harness, testing ``entry_point`` with ``tests`` (each a name, code and setup; or
    a call test: name, code to show, ``args``, ``expected``, ``compare`` and ``atol``) after
    ``prelude``, all within ``time_budget_s``: the spec `grade` reads."""
    spec = {"entry_point": entry_point, "prelude": prelude, "tests": tests, "time_budget_s": time_budget_s}
    return Harness(f"{__name__}:grade", marshal.dumps(spec))


# --- a reference's outputs ------------------------------------------------------------------


def record(channel: Channel, payload: bytes) -> bytes:
    """Harness entry: call the submission (a task's reference) with each of the spec's
    ``calls`` (argument lists) and report what it returned, each value in `codec`'s encoding,
    or what it raised: ``{"phase": "record", "outputs": [{"value": ...} | {"error": ...}]}``."""
    spec = marshal.loads(payload)
    deadline = time.monotonic() + float(spec["time_budget_s"])
    greeting = Greeting(channel, deadline)
    proxy = Proxy(channel, spec["entry_point"], deadline, greeting)
    outputs: list[dict[str, str]] = []
    try:
        for args in spec["calls"]:
            try:
                outputs.append({"value": codec.encode(proxy(*args)).decode()})
            except CandidateRaised as e:
                outputs.append({"error": str(e)})
        greeting.expect()
    except NotReady as e:
        return e.report
    except CandidateGone as e:
        return _report("record", outputs=outputs, error=str(e))
    channel.close()
    return _report("record", outputs=outputs)


def recorder_for(entry_point: str, calls: list[list[Any]], time_budget_s: float) -> Harness:
    """`record`, calling ``entry_point`` with each of ``calls``."""
    spec = {"entry_point": entry_point, "calls": calls, "time_budget_s": time_budget_s}
    return Harness(f"{__name__}:record", marshal.dumps(spec))


# --- unittest suites ------------------------------------------------------------------------

SUITE_STEP = Step(argv=("python", "-m", "codegym.envs.python_function.suite"), channel=True)
MAX_EVENT = 1 << 16


def grade_suite(channel: Channel, payload: bytes) -> bytes:
    """Harness entry for a unittest suite run in the submission's process (see
    `codegym.envs.python_function.suite`): send it the tests and a fresh nonce, read its
    report and check it. A frame without the nonce, a test reported twice or never
    collected, an end announced before every test was reported, or the runner's own
    report of replaced unittest machinery, is a ``protocol`` report (HACK)."""
    spec = marshal.loads(payload)
    nonce = secrets.token_hex(16)
    deadline = time.monotonic() + float(spec["time_budget_s"])
    names: list[str] = [name for _, methods in spec["classes"] for name, _ in methods]
    with contextlib.suppress(ChannelClosed):  # (it died: reading says how)
        channel.send(marshal.dumps({"source": spec["source"], "classes": spec["classes"], "nonce": nonce}))
    try:
        hello = _suite_event(channel, nonce, deadline)
    except ChannelClosed:
        return _report("load", error="the submission exited before it could be tested")
    except ChannelTimeout:
        return _report("load", error="the submission did not finish loading in time")
    except (ChannelViolation, ValueError) as e:
        return _report("protocol", error=f"the test report was forged or garbled: {e}")
    kind = hello.get("kind")
    if kind == "syntax_error":
        return _syntax_error(hello)
    if kind == "load_error":
        return _report("load", error=f"{hello.get('type')}: {hello.get('message')}", frames=hello.get("frames"))
    if kind != "ready":
        return _report("protocol", error="the test runner did not start its report")
    return _suite_results(channel, nonce, deadline, names)


def _suite_results(channel: Channel, nonce: str, deadline: float, names: list[str]) -> bytes:
    reported: dict[str, dict[str, Any]] = {}
    ended: str | None = None  # why the report stopped before its end, if it did
    try:
        while True:
            event = _suite_event(channel, nonce, deadline)
            if event.get("kind") == "done":
                if set(reported) != set(names):
                    return _report("protocol", error="the test runner ended before reporting every test")
                if event.get("tampered"):
                    return _report("protocol", error=f"unittest's machinery was replaced: {event['tampered']}")
                break
            name = event.get("test")
            if name not in names or name in reported:
                return _report("protocol", error=f"the test report names test {name!r} twice or never collected it")
            reported[str(name)] = event
    except ChannelClosed:
        ended = "the submission's process ended before this test ran"
    except ChannelTimeout:
        ended = "the tests did not finish in time"
    except (ChannelViolation, ValueError) as e:
        return _report("protocol", error=f"the test report was forged or garbled: {e}")
    channel.close()
    results: list[dict[str, Any]] = []
    for name in names:
        event = reported.get(name)
        if event is None:
            results.append({"name": name, "passed": False, "ran": False, "trace": ended or "not run"})
            continue
        outcome = str(event.get("outcome"))
        trace = None if outcome == "passed" else f"{outcome}: {event.get('trace', '')}".strip()
        time_s = event.get("time_s")
        results.append({"name": name, "passed": outcome == "passed", "ran": True, "trace": trace,
                        "time_s": float(time_s) if isinstance(time_s, (int, float)) else None})  # fmt: skip
    if ended is not None:  # (every test may have been reported: the end, with its checks, was not)
        return _report("tests", results=results, incomplete=ended)
    return _report("tests", results=results)


def _suite_event(channel: Channel, nonce: str, deadline: float) -> dict[str, Any]:
    frame = channel.recv(timeout=max(0.0, deadline - time.monotonic()))
    if len(frame) > MAX_EVENT:
        raise ValueError(f"an event of {len(frame)} bytes")
    try:
        event = json.loads(frame)
    except (ValueError, RecursionError) as e:  # (the bytes are the submission's to choose)
        raise ValueError(f"a frame that is not JSON: {e}") from e
    if type(event) is not dict or event.get("nonce") != nonce:
        raise ValueError("an event without this run's nonce")
    return event


def suite_for(source: str, classes: list[tuple[str, list[tuple[str, str]]]], time_budget_s: float) -> Harness:
    """`grade_suite` for the unittest ``source`` and its ``classes``: ``(class name,
    [(test name, method name), ...])`` in the order they run."""
    spec = {"source": source, "classes": classes, "time_budget_s": time_budget_s}
    return Harness(f"{__name__}:grade_suite", marshal.dumps(spec))


def rehearsal() -> Job:
    """A made-up solution, tested as a submission is (see `codegym.executor.Job.preload`):
    each worker runs it once, so that its spares learn which pages a step writes."""
    test = {"name": "test_00", "code": "assert pair(1) == [1, {'k': (2, 1.5)}]", "setup": ""}
    return Job(
        steps=STEPS,
        files={"solution.py": b"def pair(a, b=2):\n    return [a, {'k': (b, 1.5)}]\n"},
        harness=harness_for("pair", "", [test], 10.0),
        preload=(CANDIDATE, __name__),
    )
