"""The programs' side of a test-generation job: the holder, and a program process per run.

The **holder** is forked by the runner before the tests' file is read. It alone reads the
job's programs (the reference and its mutants, or a matrix cell's one program) from the
job's channel (fd 3, which nobody else holds), turns non-dumpable (no other process of the
sandbox can read its memory or reopen its descriptors) and, on the runner's orders, forks
one **program process** per run: it loads one program and answers the tests' calls with
plain builtin values (`codec`), writing each call and answer to its transcript
(`codegym.envs.test_generation.transcript`). When the run ends, the holder stops the program
process and its descendants and tells the runner what it measured: the CPU time and peak
memory the program used (``wait4``: numbers the tests cannot change).

Orders and news are JSON lines between the runner and the holder; the tests hold neither pipe.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
import types
from collections.abc import Callable, Collection, Sequence
from typing import Any

from codegym.envs.python_function import codec
from codegym.envs.test_generation import processes
from codegym.envs.test_generation.processes import Lane, LineReader
from codegym.envs.test_generation.transcript import answer_digest, digest

from codegym.executor import _linux as linux
from codegym.executor.channel import Channel, ChannelClosed

PROGRAM_FILE = "program.py"  # the name the program's code objects carry (never a file here)
MAX_MESSAGE = 600
LOAD_WAIT_S = 30.0


def holder(lanes: Sequence[Lane], orders: int, news: int) -> None:
    """Serve the runner's orders: ``{"start": lane, "program": i, "coverage": bool, "next":
    {"lane": ..., "program": ..., "coverage": ...} or None}`` and ``{"stop": lane}``, until
    its pipe closes. The next run's program process is started at once, so that it loads
    while this run's tests run (it is reachable only over its own lane's pipes)."""
    linux.prctl(linux.PR_SET_DUMPABLE, 0)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # (what a program leaves running is ours to kill)
    reader = LineReader(orders)
    if reader.next(time.monotonic() + LOAD_WAIT_S) != b"go":
        return
    spec = json.loads(Channel(3, 4, blocking=True).recv())
    processes.close([3, 4])
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 3)  # (fds 3 and 4 stay the channel's numbers: pipes made later get others)
    os.dup2(null, 4)
    os.dup2(null, 1)  # (what a program prints is nobody's to read)
    os.dup2(null, 2)
    programs, entry = list(spec["programs"]), str(spec["entry_point"])
    processes.say(news, {"kind": "ready", "per_test_s": spec["per_test_s"], "budget_s": spec["budget_s"],
                         "coverage": spec["coverage"]})  # fmt: skip
    running: dict[int, _Running] = {}
    while (order := processes.read_message(reader, None)) is not None:
        if "start" in order:
            ahead = order.get("next") or {}
            now = (order["start"], order["program"], order.get("coverage"))
            for lane, program, coverage in (now, (ahead.get("lane"), ahead.get("program"), ahead.get("coverage"))):
                if lane is not None and int(lane) not in running:
                    running[int(lane)] = _start(programs[int(program)], entry, lanes[int(lane)], bool(coverage))
        elif "stop" in order and int(order["stop"]) in running:
            stopped = running.pop(int(order["stop"]))
            processes.say(news, stopped.stop(spare=[r.pid for r in running.values()]))


class _Running:
    """A program process, and the pipes the holder asks it for its coverage over."""

    def __init__(self, pid: int, control: int, back: int, coverage: bool) -> None:
        self.pid, self.control, self.back, self.coverage = pid, control, back, coverage

    def stop(self, spare: Collection[int]) -> dict[str, Any]:
        """Kill it and its descendants (orphaned to us; not the processes of ``spare``)."""
        lines = self._coverage() if self.coverage else None
        processes.kill(self.pid)
        _, _, usage = os.wait4(self.pid, 0)
        processes.reap_children(spare)
        processes.close([self.control, self.back])
        return {"kind": "stopped", "cpu_s": usage.ru_utime + usage.ru_stime, "memory_bytes": usage.ru_maxrss * 1024,
                "lines": lines}  # fmt: skip

    def _coverage(self) -> list[int] | None:
        try:
            os.write(self.control, b"coverage\n")
        except OSError:
            return None
        reply = processes.read_message(LineReader(self.back), time.monotonic() + 1.0)  # (one stuck in a call: none)
        lines = reply.get("lines") if reply else None
        return [int(n) for n in lines] if isinstance(lines, list) else None


def _start(source: str, entry: str, lane: Lane, coverage: bool) -> _Running:
    control_in, control_out = os.pipe()
    back_in, back_out = os.pipe()
    keep = (*lane.program_ends, control_in, back_out)
    pid = processes.fork(lambda: _program(source, entry, lane, control_in, back_out, coverage, keep))
    processes.close([*lane.program_ends, control_in, back_out])
    return _Running(pid, control_out, back_in, coverage)


# --- a program process ---------------------------------------------------------------------


def _program(source: str, entry: str, lane: Lane, control: int, back: int, coverage: bool,
             keep: tuple[int, ...]) -> None:  # fmt: skip
    processes.close_all_but(keep)
    calls, answers, transcript = lane.program_ends
    try:
        function = _load(source, entry)
    except Exception as e:
        error = f"{type(e).__name__}: {processes.describe(e, MAX_MESSAGE)}"
        processes.write_line(transcript, b"E " + error.encode("utf-8", "replace")[:MAX_MESSAGE])
        return
    executed: set[int] = set()
    if coverage:
        _trace_lines(executed)
    processes.write_line(transcript, b"L")
    _serve(function, Channel(calls, answers, blocking=True), control, back, transcript, executed)


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


def _serve(function: Callable[..., Any], channel: Channel, control: int, back: int, transcript: int,
           executed: set[int]) -> None:  # fmt: skip
    poller = select.poll()
    poller.register(channel.read_fd, select.POLLIN)
    poller.register(control, select.POLLIN)
    while True:
        ready = {fd for fd, _ in poller.poll()}
        if control in ready:
            sys.settrace(None)
            processes.say(back, {"kind": "coverage", "lines": sorted(executed)})
            return
        try:
            request = channel.recv()
        except ChannelClosed:
            poller.unregister(channel.read_fd)
            continue
        started = time.process_time()
        processes.write_line(transcript, b"c %s %r" % (digest(request).encode(), started))
        answer, answer_id = _answer(function, request)
        processes.write_line(transcript, b"r %s %r" % (answer_id.encode(), time.process_time() - started))
        channel.send(answer)


def _answer(function: Callable[..., Any], request: bytes) -> tuple[bytes, str]:
    """The answer to one call, and its digest: ``R`` and the returned value, or ``X`` and
    what was raised (its type's name and message)."""
    try:
        call = codec.decode(request)
    except (codec.Malformed, ValueError):
        call = None
    if type(call) is not list or len(call) != 2 or type(call[0]) is not list or type(call[1]) is not dict:
        return _raised("TypeError", "a malformed call")
    try:
        value = function(*call[0], **call[1])
    except MemoryError:
        raise
    except Exception as e:
        return _raised(type(e).__name__, processes.describe(e, MAX_MESSAGE))
    try:
        encoded = codec.encode(value)
    except codec.NotPlain as e:
        return _raised("TypeError", f"not a plain value: {e}")
    return b"R" + encoded, answer_digest(b"R", encoded, value)


def _raised(kind: str, message: str) -> tuple[bytes, str]:
    encoded = codec.encode([kind, message])
    return b"X" + encoded, answer_digest(b"X", encoded)
