"""Process and pipe primitives of a test-generation job (stdlib only, in the sandbox).

Every wait has a deadline and every line a bound: the runner and the holder read pipes whose
other end may be hostile (the tests) or stuck (a program in an endless loop).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import stat
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from codegym.executor import _isolate as isolate
from codegym.executor.channel import READ_SIZE

MAX_LINE = 1 << 14


@dataclass(frozen=True)
class Lane:
    """The pipes of one run: the tests' calls to the program, its answers, and its
    transcript (program to runner). Made by the runner before anything is forked, so each
    run talks over pipes no earlier run held."""

    calls: tuple[int, int]
    answers: tuple[int, int]
    transcript: tuple[int, int]

    @classmethod
    def open(cls) -> Lane:
        return cls(os.pipe(), os.pipe(), os.pipe())

    @property
    def program_ends(self) -> tuple[int, int, int]:
        return (self.calls[0], self.answers[1], self.transcript[1])

    @property
    def tests_ends(self) -> tuple[int, int]:
        return (self.calls[1], self.answers[0])


def fork(child: Callable[[], None]) -> int:
    """Fork ``child`` as the leader of a process group of its own (`kill` ends the group);
    it never returns into the caller's code."""
    pid = os.fork()
    if pid:
        return pid
    try:
        os.setpgid(0, 0)
        child()
    except BaseException:
        os._exit(70)
    os._exit(0)


def close(fds: tuple[int, ...] | list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def close_all_but(keep: tuple[int, ...]) -> None:
    """Close every descriptor from 3 up except ``keep``."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def kill(pid: int) -> None:
    """Kill ``pid`` and its process group (what it started, unless that left the group)."""
    for target in (-pid, pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(target, signal.SIGKILL)


def reap_children(spare: Collection[int] = (), *, rounds: int = 64) -> None:
    """Kill and reap every child of this process (a subreaper: orphaned descendants come
    here) except those in ``spare``, until none is left: what a run started does not live on
    into the next run. Where this process cannot read its own /proc/<pid>/task (a process a
    `container` tier step starts), only the killed processes' groups go: a descendant that
    left its group lives on until the job ends (it can slow the program down or kill it,
    which the verdict ignores: see `codegym.envs.test_generation.grader`)."""
    for _ in range(rounds):
        children = [pid for pid in _children() if pid not in spare]
        if not children:
            break
        for pid in children:
            kill(pid)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> list[int]:
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children", "rb") as handle:
            pids += [int(p) for p in handle.read().split()]
    return pids


class LineReader:
    """Lines from a pipe, each bounded, every wait with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.closed = False

    def next(self, deadline: float | None) -> bytes | None:
        """The next line, or None at the deadline, at end of file or past `MAX_LINE`."""
        while b"\n" not in self.buffer:
            if self.closed or len(self.buffer) > MAX_LINE:
                return None
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and (timeout <= 0 or not select.select([self.fd], [], [], timeout)[0]):
                return None
            self.fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def fill(self) -> None:
        """Read what is there (one read; the caller knows the pipe is readable)."""
        chunk = os.read(self.fd, READ_SIZE)
        self.closed = not chunk
        self.buffer += chunk

    def lines(self) -> list[bytes]:
        """Every complete line read so far."""
        *complete, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > MAX_LINE:
            self.buffer = b""
        return complete


def write_line(fd: int, line: bytes) -> None:
    """Write ``line`` and a newline, all of it."""
    view = memoryview(line + b"\n")
    while view:
        view = view[os.write(fd, view) :]


def say(fd: int, message: dict[str, Any]) -> None:
    """Write one JSON line (to a trusted reader; a reader gone is no error)."""
    with contextlib.suppress(OSError):
        write_line(fd, json.dumps(message).encode())


def describe(error: BaseException, limit: int = 600) -> str:
    """``str(error)``, cut to ``limit`` (an error whose ``__str__`` fails: ``<unprintable>``)."""
    try:
        return str(error)[:limit]
    except Exception:
        return "<unprintable>"


def read_message(reader: LineReader, deadline: float | None) -> dict[str, Any] | None:
    line = reader.next(deadline)
    try:
        message = json.loads(line) if line is not None else None
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def no_more_processes() -> None:
    """Refuse this process (and what it runs) any new process or thread: RLIMIT_NPROC of 0,
    which binds every user but the machine's root (whose tests' leftovers `reap_children`
    finds: /proc is readable in the tiers that run a step as root)."""
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def empty(folders: Collection[str]) -> None:
    """Remove everything in ``folders`` (a run's writable folders: what one run's tests
    write, the next run's never read), whatever modes the tests left on it."""
    for folder in folders:
        with contextlib.suppress(OSError):
            _unlock(folder)
            isolate.empty(folder)


def _unlock(path: str) -> None:
    """Make a folder tree ours to empty (the tests, of our uid, may have taken our rights;
    the folder itself may not be ours to change)."""
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IRWXU)
    for root, folders, _ in os.walk(path):
        for name in folders:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, name), stat.S_IRWXU)
