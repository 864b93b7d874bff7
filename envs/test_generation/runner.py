"""The sandbox's side of a test-generation job: the submitted tests against each program.

Runs as ``python -m codegym.envs.test_generation.runner``, one job per submission (or per
matrix cell), in processes that share the sandbox:

- the **runner** (this module's `main`, trusted): never runs submitted code and never holds
  a program. It forks the holder, then for each run forks a fresh tests process, times the
  tests, reads the program's transcript, and finally writes the one report the harness
  reads (fd 4).
- the **holder** and its **program processes** (trusted code: the reference and its mutants;
  see `codegym.envs.test_generation.holder`): forked before the tests' file is read, they
  alone hold the programs, each run's program in a process of its own.
- the **tests** (hostile): a fresh process per run, forked from the runner, holding only
  their ends of that run's call pipes and of the event pipe. The function under test is a
  proxy object, the same in every run: source, code object, module, file and ``id`` are
  those of the proxy, whichever program answers. `random` is seeded the same in every run.

Runs: the reference first; when the tests pass there, a traced rerun of it (coverage, when
asked for), then each mutant. The tests may start no process or thread; between runs the
runner (a subreaper) kills whatever is left of them and empties the writable folders, so
nothing of one run's tests lives into the next. A mutant run's report carries
where its transcript first differs from the reference's *in the program's answer to the same
call* (`codegym.envs.test_generation.transcript.divergence`): the grader counts a kill only
there, so a test that fails a mutant by its clock, by chance or by what an earlier run left
kills nothing that a test of the same calls' answers would not.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import linecache
import os
import random
import select
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codegym.envs.python_function import codec
from codegym.envs.test_generation import processes
from codegym.envs.test_generation.check import Statement, collect, compile_tests, pytest_module
from codegym.envs.test_generation.holder import LOAD_WAIT_S, holder
from codegym.envs.test_generation.processes import Lane, LineReader
from codegym.envs.test_generation.transcript import Comparison, Transcript, divergence

from codegym.executor import _linux as linux
from codegym.executor.channel import Channel, ChannelClosed

CONFIG = "runner.json"  # the entry point, the tests' file and the number of runs
MAX_EVENTS = 512
MAX_TRACE = 600
MUTANT_SLOWDOWN = 10.0  # a mutant run's time limits: this many times the reference run's wall time
STOP_WAIT_S = 10.0


def main() -> None:
    """The runner: fork the holder, take the tests' file out of its reach, run the tests
    against each program; report what happened."""
    linux.prctl(linux.PR_SET_DUMPABLE, 0)  # the tests may not reopen fd 4 through /proc
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # what the tests leave running comes to us
    config = json.loads(_read(CONFIG))
    lanes = [Lane.open() for _ in range(int(config["runs"]))]
    orders_in, orders_out = os.pipe()
    news_in, news_out = os.pipe()
    ours = [orders_out, news_in, *(fd for lane in lanes for fd in (*lane.tests_ends, lane.transcript[0]))]

    def hold() -> None:
        processes.close(ours)
        holder(lanes, orders_in, news_out)

    holder_pid = processes.fork(hold)
    processes.close([3, orders_in, news_out, *(fd for lane in lanes for fd in lane.program_ends)])
    source = _read(config["tests"])
    os.unlink(config["tests"])  # (a program under test never reads its tests: Code-A1's loop)
    os.write(orders_out, b"go\n")
    tests = _Tests(source, _compiled(source, config["tests"]))
    session = _Session(config, tests, lanes, holder_pid, orders_out, LineReader(news_in))
    Channel(3, 4, blocking=True).send(json.dumps(session.report()).encode())


@dataclass(frozen=True)
class _Tests:
    """The submitted tests: their text, and their statements compiled once for every run
    (None when they do not compile: each run then fails as the tests' own process finds)."""

    source: str
    statements: list[Statement] | None


def _compiled(source: str, filename: str) -> list[Statement] | None:
    try:
        return compile_tests(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


# --- the runner ----------------------------------------------------------------------------


@dataclass
class _Outcome:
    """One run as the runner saw it."""

    results: list[dict[str, Any]] = field(default_factory=list)
    ended: str = "program"
    transcript: Transcript = field(default_factory=Transcript)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    memory_bytes: int = 0
    lines: list[int] | None = None

    @property
    def passed(self) -> bool:
        return self.ended == "complete" and bool(self.results) and all(r["passed"] for r in self.results)

    def row(self) -> dict[str, Any]:
        return {"results": self.results, "ended": self.ended, "calls": len(self.transcript.calls),
                "wall_s": self.wall_s, "cpu_s": self.cpu_s, "memory_bytes": self.memory_bytes}  # fmt: skip


class _Session:
    def __init__(self, config: dict[str, Any], tests: _Tests, lanes: list[Lane], holder_pid: int, orders: int,
                 news: LineReader) -> None:  # fmt: skip
        self.config, self.tests, self.lanes = config, tests, lanes
        self.holder_pid, self.orders, self.news = holder_pid, orders, news
        self.next_lane = 0
        self.writable = (os.getcwd(), tempfile.gettempdir())
        self.plan: list[tuple[int, bool]] = []  # each lane's (program, coverage), in the order of the runs

    def report(self) -> dict[str, Any]:
        """Every run, in order; the reference's first, and the others only when it passed."""
        ready = processes.read_message(self.news, time.monotonic() + LOAD_WAIT_S)
        if ready is None or ready.get("kind") != "ready":
            return {"phase": "program", "error": "the programs did not load"}
        per_test_s, budget_s = float(ready["per_test_s"]), float(ready["budget_s"])
        programs = len(self.lanes) - (1 if ready.get("coverage") else 0)
        self.plan = [
            (0, False),
            *([(0, True)] if ready.get("coverage") else []),
            *((p, False) for p in range(1, programs)),
        ]
        reference = self._run(0, per_test_s, budget_s)
        if reference.ended == "program":
            return {"phase": "program", "error": reference.transcript.error or "it did not load in time"}
        rows = [reference.row()]
        if not reference.passed:
            return {"phase": "tests", "runs": rows, "coverage": None}
        lines = self._run(0, per_test_s, budget_s, coverage=True).lines if ready.get("coverage") else None
        per_test_s = min(per_test_s, max(0.5, MUTANT_SLOWDOWN * reference.wall_s))
        budget_s = min(budget_s, MUTANT_SLOWDOWN * reference.wall_s + 1.0)
        if not any(call.answer is not None for call in reference.transcript.calls):
            return {"phase": "tests", "runs": rows, "coverage": lines}  # (no answer to differ from: nothing to kill)
        for program in range(1, programs):
            run = self._run(program, per_test_s, budget_s, against=reference.transcript)
            rows.append({**run.row(), "divergence": divergence(
                reference.transcript, run.transcript, cpu_s=run.cpu_s, memory_bytes=run.memory_bytes,
                reference_memory_bytes=reference.memory_bytes)})  # fmt: skip
        return {"phase": "tests", "runs": rows, "coverage": lines}

    def _run(self, program: int, per_test_s: float, budget_s: float, *, coverage: bool = False,
             against: Transcript | None = None) -> _Outcome:  # fmt: skip
        """One run; against the reference's transcript, it ends once its verdict is known."""
        lane_index, lane = self.next_lane, self.lanes[self.next_lane]
        self.next_lane += 1
        following = lane_index + 1
        ahead = None
        if against is not None and following < len(self.plan):  # (mutant runs follow: load the next one now)
            ahead = {"lane": following, "program": self.plan[following][0], "coverage": self.plan[following][1]}
        processes.say(self.orders, {"start": lane_index, "program": program, "coverage": coverage, "next": ahead})
        outcome = _Outcome()
        trail = LineReader(lane.transcript[0])
        started = time.monotonic()
        if _loaded(trail, outcome.transcript, started + min(LOAD_WAIT_S, budget_s + 1.0)):
            events_in, events_out = os.pipe()
            keep = (*lane.tests_ends, events_out)
            tests_pid = processes.fork(lambda: _run_tests(self.config, self.tests, lane, events_out, keep))
            processes.close(list(keep))
            comparison = Comparison(against) if against is not None else None
            outcome.results, outcome.ended = _collect(events_in, trail, outcome.transcript, per_test_s,
                                                      started + budget_s, comparison)  # fmt: skip
            outcome.wall_s = time.monotonic() - started
            processes.kill(tests_pid)
            processes.reap_children(spare=(self.holder_pid,))  # the tests, and whatever they left
            with contextlib.suppress(ChildProcessError):
                os.waitpid(tests_pid, 0)
            processes.close([events_in])
            processes.empty(self.writable)  # (no run reads what an earlier one wrote)
        else:
            processes.close(list(lane.tests_ends))
        self._stop(lane_index, outcome)
        _drain(trail, outcome.transcript)
        return outcome

    def _stop(self, lane_index: int, outcome: _Outcome) -> None:
        processes.say(self.orders, {"stop": lane_index})
        stopped = processes.read_message(self.news, time.monotonic() + STOP_WAIT_S) or {}
        outcome.cpu_s = float(stopped.get("cpu_s") or 0.0)
        outcome.memory_bytes = int(stopped.get("memory_bytes") or 0)
        lines = stopped.get("lines")
        outcome.lines = [int(n) for n in lines] if isinstance(lines, list) else None


def _loaded(trail: LineReader, transcript: Transcript, deadline: float) -> bool:
    while not transcript.loaded and transcript.error is None:
        line = trail.next(deadline)
        if line is None:
            return False
        transcript.feed([line])
    return transcript.loaded


def _drain(trail: LineReader, transcript: Transcript) -> None:
    """The transcript's last lines (its writer is gone: the pipe ends), then close it."""
    deadline = time.monotonic() + 1.0
    while not trail.closed and time.monotonic() < deadline and select.select([trail.fd], [], [], 0.2)[0]:
        trail.fill()
    transcript.feed(trail.lines())
    processes.close([trail.fd])


def _collect(events: int, trail: LineReader, transcript: Transcript, per_test_s: float, deadline: float,
             comparison: Comparison | None = None) -> tuple[list[dict[str, Any]], str]:  # fmt: skip
    """The tests' results, and how their run ended: ``complete`` (they said so), ``crashed``
    (their process ended first), ``timeout`` (a test ran past its time), ``budget`` (the run
    did), ``garbled`` (an event that is not one) or ``flooded`` (too many); with a
    ``comparison`` (a mutant run), also ``moot`` (the tests asked otherwise than on the
    reference: no kill can follow) or ``decided`` (a test failed after the program answered
    otherwise: killed). The program's transcript is read as it comes."""
    results: list[dict[str, Any]] = []
    reader = LineReader(events)
    running: str | None = None
    while True:
        if comparison is not None:
            state = comparison.update(transcript)
            if state == "moot" or (state == "answer" and not all(r["passed"] for r in results)):
                return results, "moot" if state == "moot" else "decided"
        line = _next_event(reader, trail, transcript, min(deadline, time.monotonic() + per_test_s))
        if line is None:
            why = "crashed" if reader.closed else "budget" if time.monotonic() >= deadline else "timeout"
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


def _next_event(reader: LineReader, trail: LineReader, transcript: Transcript, deadline: float) -> bytes | None:
    while b"\n" not in reader.buffer:
        if reader.closed or len(reader.buffer) > processes.MAX_LINE:
            return None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        ready = select.select([reader.fd, *([] if trail.closed else [trail.fd])], [], [], remaining)[0]
        if trail.fd in ready:
            trail.fill()
            transcript.feed(trail.lines())
        if reader.fd in ready:
            reader.fill()
    line, _, reader.buffer = reader.buffer.partition(b"\n")
    return line


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


# --- the tests -----------------------------------------------------------------------------


def _run_tests(config: dict[str, Any], tests: _Tests, lane: Lane, events: int, keep: tuple[int, ...]) -> None:
    """Run the submitted tests; hostile from the first line of theirs on."""
    linux.prctl(linux.PR_SET_DUMPABLE, 0)  # (a matrix's hostile program may not open our pipes through /proc)
    processes.close_all_but(keep)
    processes.no_more_processes()  # (nothing of one run's tests lives on into the next)
    calls, answers = lane.tests_ends
    channel = Channel(answers, calls, blocking=True)
    entry = str(config["entry_point"])
    proxy = _proxy(channel, entry)
    sys.modules["pytest"] = pytest_module()
    random.seed(0)
    namespace: dict[str, Any] = {"__name__": "test_submission", entry: proxy, "candidate": proxy}
    source = tests.source
    linecache.cache[config["tests"]] = (len(source), None, source.splitlines(True), config["tests"])
    report = _Reporter(events)
    for name, run in collect(tests.statements or source, namespace, filename=config["tests"]):
        report.say({"kind": "start", "name": name})
        try:
            run()
            report.say({"kind": "result", "name": name, "passed": True})
        except BaseException as e:  # (a test that raises anything, sys.exit included, failed)
            report.say({"kind": "result", "name": name, "passed": False, "trace": _failure(e, config["tests"])})
    report.say({"kind": "end"})


class _Reporter:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def say(self, event: dict[str, Any]) -> None:
        processes.write_line(self.fd, json.dumps(event).encode())


def _failure(error: BaseException, filename: str) -> str:
    """The error, and the test's line where it surfaced."""
    text = processes.describe(error, MAX_TRACE)
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
            answer = channel.recv()
        except ChannelClosed:
            raise RuntimeError("the function under test is gone (its process ended)") from None
        value = codec.decode(answer[1:])
        if answer[:1] == b"R":
            return value
        kind, message = value if type(value) is list and len(value) == 2 else ("Exception", repr(value))
        raise _exception(str(kind), str(message))

    function.__name__ = function.__qualname__ = entry
    return function


def _exception(kind: str, message: str) -> BaseException:
    """What the program raised, as the builtin exception of its name (else `Exception`)."""
    found = getattr(builtins, kind, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found(message)
    return Exception(f"{kind}: {message}")
