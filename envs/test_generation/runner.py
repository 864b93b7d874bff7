"""The sandbox's side of a test-generation run: the submitted tests against one program.

Runs as ``python -m codegym.envs.test_generation.runner``, one job per (tests, program)
pair, in three processes that share the sandbox:

- the **runner** (this module's `main`, trusted): never runs submitted code. It forks the
  other two, times the tests, and writes the one report the harness reads (fd 4).
- the **program** (trusted code, the reference or a mutant): forked first, it reads the
  program from the job's channel (fd 3, which nobody else holds), turns non-dumpable (so no
  other process of the sandbox can read its memory or reopen its descriptors) and answers
  calls with plain builtin values (`codec`).
- the **tests** (hostile): forked before the runner learns anything about the program, they
  hold only their ends of the call pipes and of the event pipe. The function under test is a
  proxy object, the same in every run: source, code object, module, file and ``id`` are
  those of the proxy, whichever program answers. `random` is seeded the same in every run.

What the tests report of themselves is their behaviour, and they cannot tell which program
answers except by its answers: a test that inspects the function gains nothing.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import linecache
import os
import random
import select
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

from codegym.envs.python_function import codec
from codegym.envs.test_generation.check import collect, pytest_module

from codegym.executor import _linux as linux
from codegym.executor.channel import READ_SIZE, Channel, ChannelClosed

CONFIG = "runner.json"  # the entry point's name and the tests' file: the same in every run
PROGRAM_FILE = "program.py"  # the name the program's code objects carry (never a file here)
MAX_EVENT = 1 << 14
MAX_EVENTS = 512
MAX_TRACE = 600


def main() -> None:
    """The runner: fork the program, take the tests' file out of its reach, fork the tests;
    report what the tests said."""
    linux.prctl(linux.PR_SET_DUMPABLE, 0)  # the tests may not reopen fd 4 through /proc
    config = json.loads(_read(CONFIG))
    calls_in, calls_out = os.pipe()  # tests -> program
    replies_in, replies_out = os.pipe()  # program -> tests
    control_in, control_out = os.pipe()  # runner -> program: "go", then "coverage"
    status_in, status_out = os.pipe()  # program -> runner
    program = _fork(lambda: _program(calls_in, replies_out, control_in, status_out))
    for fd in (3, calls_in, replies_out, control_in, status_out):
        os.close(fd)  # fd 3 (the program's source) is the program's alone from here
    source = _read(config["tests"])
    os.unlink(config["tests"])  # (a program under test never reads its tests: Code-A1's loop)
    os.write(control_out, b"go\n")
    events_in, events_out = os.pipe()
    keep = (calls_out, replies_in, events_out)
    tests = _fork(lambda: _tests(config, source, calls_out, replies_in, events_out, keep=keep))
    for fd in keep:
        os.close(fd)
    report = _supervise(tests, program, events_in, status_in, control_out)
    Channel(3, 4, blocking=True).send(json.dumps(report).encode())


def _fork(child: Callable[[], None]) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:
        child()
    except BaseException:  # (a child never returns into the runner's code)
        os._exit(70)
    os._exit(0)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


# --- the runner ----------------------------------------------------------------------------


def _supervise(tests: int, program: int, events: int, status: int, control: int) -> dict[str, Any]:
    """Wait for the program to load, then collect the tests' events under the budgets the
    program's message carried (read only now: the tests were forked before it came). The
    processes are killed, not waited for: the sandbox reaps them once the report is sent."""
    loaded = _read_line(status, time.monotonic() + 30.0)
    if loaded is None or loaded.get("kind") != "loaded":
        _kill(tests)
        error = "the program did not load" if loaded is None else str(loaded.get("error", "failed"))[:MAX_TRACE]
        return {"phase": "program", "error": error}
    per_test_s, deadline = float(loaded["per_test_s"]), time.monotonic() + float(loaded["budget_s"])
    results, ended = _collect(events, per_test_s, deadline)
    _kill(tests)
    coverage = _coverage(control, status) if loaded.get("coverage") else None
    _kill(program)
    return {"phase": "tests", "results": results, "ended": ended, "coverage": coverage}


def _collect(events: int, per_test_s: float, deadline: float) -> tuple[list[dict[str, Any]], str]:
    """The tests' results, and how their run ended: ``complete`` (they said so), ``crashed``
    (their process ended first), ``timeout`` (a test ran past its time), ``budget`` (the run
    did), ``garbled`` (an event that is not one) or ``flooded`` (too many)."""
    results: list[dict[str, Any]] = []
    reader = _LineReader(events)
    running: str | None = None
    while True:
        limit = min(deadline, time.monotonic() + per_test_s)
        line = reader.next(limit)
        if line is None:
            why = "budget" if time.monotonic() >= deadline else "timeout"
            if reader.closed:
                why = "crashed"
            if running is not None:
                results.append({"name": running, "passed": False, "trace": _ENDINGS[why]})
            return results, why
        event = _event(line)
        if event is None or len(results) >= MAX_EVENTS:
            return results, "garbled" if event is None else "flooded"
        if event.get("kind") == "end":
            return results, "complete"
        if event.get("kind") == "start":
            running = str(event.get("name", ""))[:200]
            continue
        results.append({"name": str(event.get("name", ""))[:200], "passed": event.get("passed") is True,
                        "trace": str(event.get("trace") or "")[:MAX_TRACE] or None})  # fmt: skip
        running = None


_ENDINGS = {
    "crashed": "the tests' process ended during this test",
    "timeout": "this test did not finish in time",
    "budget": "the tests ran out of time",
}


def _event(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return event if type(event) is dict and event.get("kind") in ("start", "result", "end") else None


class _LineReader:
    """Lines from a pipe the tests write, each bounded, every wait with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def next(self, deadline: float) -> bytes | None:
        while b"\n" not in self.buffer:
            if self.closed or len(self.buffer) > MAX_EVENT:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                return None
            chunk = os.read(self.fd, READ_SIZE)
            self.closed = not chunk
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def _read_line(fd: int, deadline: float) -> dict[str, Any] | None:
    line = _LineReader(fd).next(deadline)
    try:
        return json.loads(line) if line is not None else None
    except ValueError:
        return None


def _coverage(control: int, status: int) -> list[int] | None:
    """The program's executed lines, asked for once the tests are done."""
    try:
        os.write(control, b"coverage\n")
    except OSError:
        return None
    reply = _read_line(status, time.monotonic() + 1.0)  # (a program still stuck in a call: none)
    lines = reply.get("lines") if reply else None
    return [int(n) for n in lines] if isinstance(lines, list) else None


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


# --- the program ---------------------------------------------------------------------------


def _program(calls: int, replies: int, control: int, status: int) -> None:
    linux.prctl(linux.PR_SET_DUMPABLE, 0)  # no other process may read our memory
    if _LineReader(control).next(time.monotonic() + 30.0) != b"go":
        return
    channel = Channel(3, 4, blocking=True)
    spec = json.loads(channel.recv())
    os.close(3)
    os.close(4)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # (what the program prints is nobody's to read)
    os.dup2(null, 2)
    executed: set[int] = set()
    try:
        function = _load(spec["program"], spec["entry_point"])
    except Exception as e:
        _say(status, {"kind": "error", "error": f"{type(e).__name__}: {e}"})
        return
    if spec.get("coverage"):
        _trace_lines(executed)
    budgets = {"per_test_s": spec["per_test_s"], "budget_s": spec["budget_s"], "coverage": spec.get("coverage")}
    _say(status, {"kind": "loaded", **budgets})
    _serve(function, Channel(calls, replies, blocking=True), control, status, executed)


def _load(source: str, entry_point: str) -> Callable[..., Any]:
    module = types.ModuleType("solution")
    sys.modules["solution"] = module
    exec(compile(source, PROGRAM_FILE, "exec", dont_inherit=True), module.__dict__)
    function = getattr(module, entry_point)
    if not callable(function):
        raise TypeError(f"{entry_point} is not callable")
    return function


def _trace_lines(executed: set[int]) -> None:
    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            executed.add(frame.f_lineno)
        return local

    def calls(frame: types.FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == PROGRAM_FILE else None

    sys.settrace(calls)


def _serve(function: Callable[..., Any], channel: Channel, control: int, status: int, executed: set[int]) -> None:
    poller = select.poll()
    poller.register(channel.read_fd, select.POLLIN)
    poller.register(control, select.POLLIN)
    while True:
        ready = {fd for fd, _ in poller.poll()}
        if control in ready:
            sys.settrace(None)
            _say(status, {"kind": "coverage", "lines": sorted(executed)})
            return
        try:
            request = codec.decode(channel.recv())
        except ChannelClosed:
            poller.unregister(channel.read_fd)
            continue
        except (codec.Malformed, ValueError):
            request = None
        channel.send(_answer(function, request))


def _answer(function: Callable[..., Any], request: Any) -> bytes:
    if type(request) is not list or len(request) != 2 or type(request[0]) is not list or type(request[1]) is not dict:
        return codec.encode({"kind": "raise", "type": "TypeError", "message": "a malformed call"})
    try:
        return codec.encode({"kind": "return", "value": function(*request[0], **request[1])})
    except codec.NotPlain as e:
        return codec.encode({"kind": "raise", "type": "TypeError", "message": f"not a plain value: {e}"})
    except MemoryError:
        raise
    except Exception as e:
        return codec.encode({"kind": "raise", "type": type(e).__name__, "message": _message(e)})


def _message(error: BaseException) -> str:
    try:
        return str(error)[:MAX_TRACE]
    except Exception:
        return "<unprintable>"


def _say(fd: int, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, json.dumps(message).encode() + b"\n")


# --- the tests -----------------------------------------------------------------------------


def _tests(config: dict[str, Any], source: str, calls: int, replies: int, events: int, keep: tuple[int, ...]) -> None:
    """Run the submitted tests; hostile from the first line of theirs on."""
    _close_all_but(keep)
    channel = Channel(replies, calls, blocking=True)
    entry = str(config["entry_point"])
    proxy = _proxy(channel, entry)
    sys.modules["pytest"] = pytest_module()
    random.seed(0)
    namespace: dict[str, Any] = {"__name__": "test_submission", entry: proxy, "candidate": proxy}
    linecache.cache[config["tests"]] = (len(source), None, source.splitlines(True), config["tests"])
    report = _Reporter(events)
    for name, run in collect(source, namespace, filename=config["tests"]):
        report.say({"kind": "start", "name": name})
        try:
            run()
            report.say({"kind": "result", "name": name, "passed": True})
        except BaseException as e:  # (a test that raises anything, sys.exit included, failed)
            report.say({"kind": "result", "name": name, "passed": False, "trace": _failure(e, config["tests"])})
    report.say({"kind": "end"})


def _close_all_but(keep: tuple[int, ...]) -> None:
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


class _Reporter:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def say(self, event: dict[str, Any]) -> None:
        data = json.dumps(event).encode() + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


def _failure(error: BaseException, filename: str) -> str:
    """The error, and the test's line where it surfaced."""
    text = _message(error)
    described = f"{type(error).__name__}: {text}" if text else type(error).__name__
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    if frames:
        described = f"line {frames[-1].lineno}: {(frames[-1].line or '').strip()}\n{described}"
    return described


# --- what the tests see --------------------------------------------------------------------


def _proxy(channel: Channel, entry: str) -> Callable[..., Any]:
    """The function under test: sends each call to the program and returns its answer."""

    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            request = codec.encode([list(args), kwargs])
        except codec.NotPlain as e:
            raise TypeError(f"only plain values cross to the function under test: {e}") from None
        channel.send(request)
        try:
            reply = codec.decode(channel.recv())
        except ChannelClosed:
            raise RuntimeError("the function under test is gone (its process ended)") from None
        if type(reply) is dict and reply.get("kind") == "return":
            return reply.get("value")
        raise _exception(str(reply.get("type")), str(reply.get("message", "")))

    function.__name__ = function.__qualname__ = entry
    return function


def _exception(kind: str, message: str) -> BaseException:
    """What the program raised, as the builtin exception of its name (else `Exception`)."""
    found = getattr(builtins, kind, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found(message)
    return Exception(f"{kind}: {message}")
