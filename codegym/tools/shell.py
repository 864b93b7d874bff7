"""The runner behind the ``bash`` tool: run one shell command in the workspace and print its output, capped.

The sandbox runs it as ``python -m codegym.tools.shell`` with the current directory at the workspace root and the
arguments as a JSON object on stdin: ``command`` (a string for ``bash -c``; ``/bin/sh -c`` where bash is missing),
``timeout_s`` (seconds, default `DEFAULT_TIMEOUT_S`) and ``output_bytes`` (the most bytes of output to print,
default `DEFAULT_OUTPUT_BYTES`).

The command runs in a session of its own with stdin from ``/dev/null``, its stdout and stderr both appended to one
log file, ``.codegym/output/NNNN.log`` (the next number after the highest there). The runner waits for the shell
process itself, not for its output to end, so a background process holding the log open does not hold it up. Past
``timeout_s`` the whole process group is killed with SIGKILL and a line saying so ends the output. An output of at
most ``output_bytes`` is printed whole and its log deleted; a longer one is printed as its head and tail, half of
``output_bytes`` each, cut where no UTF-8 character is split, around the line::

    [... 1234 bytes elided; the full output is in .codegym/output/0007.log ...]

and the log is kept for the model to read. Nothing is printed for an empty output.

When the command ends, or its time-out kills its process group, what it leaves running (``cmd &``, ``setsid -f``, a
daemon's double fork: the runner is their subreaper, so none escapes) is killed, each process counted.

Exit status, as for a shell: the command's own; 128+N when it was killed by signal N; 124 when it ran past
``timeout_s`` (as with ``timeout(1)``). Status 2 with a message starting ``error:`` means the runner itself refused:
arguments that are not JSON, or missing or of the wrong type, or a command it could not start.

What the caller should not read from the text is reported on the runner's own stderr, which the command does not
hold: given a ``report`` argument (a nonce the command never sees), `main` ends its stderr with one line, the nonce,
a space and a JSON object of `Outcome`'s facts (``timed_out``, ``elided_bytes``, ``background_killed``), written
once every process of the command is dead.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import math
import os
import select
import signal
import subprocess
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from codegym.tools.program import STATE, ToolError, emit, read_args, state_dir

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_OUTPUT_BYTES = 16_000
TIMEOUT_STATUS = 124
ARGUMENT_ERROR = 2
REPORT = "report"  # `main`'s argument naming the nonce of its report line
KILL_ROUNDS = 20  # scans for processes left running: each kills those found, one may have forked meanwhile
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37
_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Outcome:
    """What one command did.

    Attributes:
        text: The output to show (possibly cut, see the module docstring).
        status: The exit status.
        timed_out: Whether it ran past ``timeout_s`` (and its process group was killed).
        elided_bytes: Bytes of its output left out of ``text`` (kept in its log).
        background_killed: Processes it left running when it ended (outside the process group a time-out
            killed), killed then; None where they could not all be found (no ``/proc`` that lists children, no
            subreaper, or some still there after `KILL_ROUNDS` scans: the sandbox's kill of the tree ends them).
    """

    text: str
    status: int
    timed_out: bool = False
    elided_bytes: int = 0
    background_killed: int | None = 0


def run(args: Mapping[str, Any], root: str) -> tuple[str, int]:
    """Run one command.

    Args:
        args: The parsed arguments: ``command``, and optionally ``timeout_s`` and ``output_bytes``.
        root: The workspace root, the command's current directory.

    Returns:
        The output to show (possibly cut, see the module docstring) and the exit status.
    """
    outcome = execute(args, root)
    return outcome.text, outcome.status


def execute(args: Mapping[str, Any], root: str) -> Outcome:
    """Run one command as `run` does, and say what became of it."""
    try:
        command, timeout_s, output_bytes = _parse(args)
        folder = state_dir(root, "output")
        name, fd = _new_log(folder)
    except ToolError as e:
        return Outcome(f"error: {e}", ARGUMENT_ERROR)
    path = os.path.join(folder, name)
    try:
        status, timed_out, left = _execute(command, timeout_s, fd, os.path.realpath(root))
        text, elided = _render(fd, path, f"{STATE}/output/{name}", output_bytes)
        return Outcome(text, status, timed_out, elided, left)
    except ToolError as e:
        _remove_log(fd, path)
        return Outcome(f"error: {e}", ARGUMENT_ERROR)
    finally:
        os.close(fd)


def main() -> None:
    """Read the arguments from stdin, print the output, write the report (given a ``report`` nonce), exit with the
    command's status."""
    args = read_args()
    nonce = args.pop(REPORT, None) if isinstance(args, dict) else None
    outcome = execute(args, os.getcwd())
    emit(outcome.text)
    if isinstance(nonce, str):
        facts = {key: value for key, value in asdict(outcome).items() if key not in ("text", "status")}
        sys.stderr.flush()
        os.write(2, f"\n{nonce} {json.dumps(facts)}\n".encode())
    if outcome.status:
        sys.exit(outcome.status)


def _parse(args: Mapping[str, Any]) -> tuple[str, float, int]:
    if not isinstance(args, Mapping):
        raise ToolError("the arguments must be a JSON object with the keys command, timeout_s and output_bytes")
    unknown = sorted(set(args) - {"command", "timeout_s", "output_bytes"})
    if unknown:
        raise ToolError(
            f"unknown argument(s) {', '.join(map(repr, unknown))}; the arguments are command, timeout_s, output_bytes"
        )
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolError(f"command must be a non-empty string (the shell command to run), not {command!r}")
    timeout_s = args.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or not 0 < timeout_s < math.inf:
        raise ToolError(f"timeout_s must be a positive number of seconds, not {timeout_s!r}")
    output_bytes = args.get("output_bytes", DEFAULT_OUTPUT_BYTES)
    if isinstance(output_bytes, bool) or not isinstance(output_bytes, int) or output_bytes < 0:
        raise ToolError(f"output_bytes must be a non-negative integer, not {output_bytes!r}")
    return command, float(timeout_s), output_bytes


def _new_log(folder: str) -> tuple[str, int]:
    """Make the next numbered log file; return its name and a descriptor open for appending."""
    numbers = [
        int(stem) for stem, ext in map(os.path.splitext, os.listdir(folder)) if ext == ".log" and stem.isdecimal()
    ]
    number = max(numbers, default=0) + 1
    for _ in range(1000):  # only a file made meanwhile could take the name
        name = f"{number:04d}.log"
        try:
            return name, os.open(os.path.join(folder, name), _FLAGS, 0o644)
        except FileExistsError:
            number += 1
        except OSError as e:
            raise ToolError(f"cannot make the output log {STATE}/output/{name}: {e.strerror}") from e
    raise ToolError(f"cannot find a free name for the output log in {STATE}/output/")


def _execute(command: str, timeout_s: float, log: int, cwd: str) -> tuple[int, bool, int | None]:
    """Run the command with its output appended to ``log``: its exit status, whether it timed out, and how many
    processes it left running (see `Outcome`)."""
    import shutil  # only here: the runner's other paths do not need it

    shell = shutil.which("bash") or "/bin/sh"
    # (a caller's own children, where one runs us in its process, are not the command's)
    ours = _children(os.getpid()) if _children_listed() else None
    with _subreaper() as reaping:
        try:
            process = subprocess.Popen(
                [shell, "-c", command],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own process group, so a timeout can kill all of it
            )
        except (OSError, ValueError) as e:  # ValueError: a NUL or an unencodable character in the command
            raise ToolError(f"cannot start the command: {e}") from e
        try:
            timed_out = not _exits_within(process.pid, timeout_s)
            if timed_out:
                _kill_group(process.pid)
            returncode = process.wait()
        finally:
            if process.returncode is None:  # interrupted while waiting: leave nothing running
                _kill_group(process.pid)
                process.wait()
        left = _kill_left(ours, process.pid if timed_out else None) if reaping and ours is not None else None
    if timed_out:
        os.write(log, _timeout_note(log, timeout_s))
        return TIMEOUT_STATUS, True, left
    return (128 - returncode if returncode < 0 else returncode), False, left


@contextlib.contextmanager
def _subreaper() -> Iterator[bool]:
    """Make this process the subreaper of what it starts meanwhile (an orphan becomes its child, not init's, so
    none escapes `_kill_left`); yields whether it is one. Restores the setting it found."""
    libc = _libc()
    found = ctypes.c_int(0)
    if libc is None or libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(found), 0, 0, 0) != 0:
        yield False
        return
    made = libc.prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), 0, 0, 0) == 0
    try:
        yield made
    finally:
        if made and not found.value:
            libc.prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(0), 0, 0, 0)


@functools.cache
def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _kill_left(ours: set[int], spared: int | None) -> int | None:
    """SIGKILL the processes the command left running (this process's children but ``ours``, those it had before
    the command, and everything under them), but those of the process group ``spared`` (a time-out's, already
    killed); how many, or None where some still ran after `KILL_ROUNDS` scans."""
    killed: list[int] = []
    for _ in range(KILL_ROUNDS):
        roots, done = _children(os.getpid()) - ours, set(killed)
        found = [pid for pid, group in _running_under(roots) if group != spared and pid not in done]
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        killed += found
    else:
        return None
    for pid in killed:  # (parents first: a killed child is ours to reap once its parent is gone)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    for pid in _children(os.getpid()) - ours:  # (the time-out's, killed too)
        state = _state(pid)
        if state is not None and (state[0] in "ZX" or state[1] == spared):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return len(killed)


def _running_under(roots: Iterable[int]) -> list[tuple[int, int]]:
    """The processes ``roots`` and all below them that are still running (zombies aside), parents first: each one's
    pid and process group."""
    found: list[tuple[int, int]] = []
    queue, seen = deque(roots), set()
    while queue:
        pid = queue.popleft()
        if pid in seen:
            continue
        seen.add(pid)
        state = _state(pid)
        if state is not None and state[0] not in "ZX":
            found.append((pid, state[1]))
            queue.extend(_children(pid))
    return found


def _state(pid: int) -> tuple[str, int] | None:
    """Process ``pid``'s state letter and process group, from ``/proc`` (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0].decode(), int(fields[2])


def _children(pid: int) -> set[int]:
    """The child processes of ``pid`` (forked by any of its threads); none when it is gone."""
    children: set[int] = set()
    with contextlib.suppress(OSError):
        for thread in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{thread}/children", "rb") as f:
                children.update(map(int, f.read().split()))
    return children


def _children_listed() -> bool:
    """Whether ``/proc`` lists a process's children here (a kernel with CONFIG_PROC_CHILDREN, a /proc in view)."""
    pid = os.getpid()
    return os.path.exists(f"/proc/{pid}/task/{pid}/children")


def _exits_within(pid: int, timeout_s: float) -> bool:
    """Whether process ``pid`` exits within ``timeout_s``, woken the moment it does (Popen's
    own wait with a timeout polls, sleeping ever longer, and would add milliseconds)."""
    fd = os.pidfd_open(pid)
    try:
        return bool(select.select([fd], [], [], timeout_s)[0])
    finally:
        os.close(fd)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _timeout_note(log: int, timeout_s: float) -> bytes:
    size = os.fstat(log).st_size
    newline = size > 0 and os.pread(log, 1, size - 1) != b"\n"
    return f"{chr(10) if newline else ''}[the command timed out after {timeout_s:g} s and was killed]\n".encode()


def _render(log: int, path: str, shown: str, limit: int) -> tuple[str, int]:
    """The output to print: all of it (the log then deleted), or its head and tail around an elision line; and how
    many bytes that line elides.

    Read through the open descriptor: the command may have removed or replaced the log (``git clean -fdx`` does).
    """
    size = os.fstat(log).st_size  # later writes by a background process are not shown
    if size <= limit:
        _remove_log(log, path)
        return _read(log, 0, size).decode("utf-8", "replace"), 0
    head = _utf8_head(_read(log, 0, limit // 2))
    tail_bytes = limit - limit // 2
    tail = _utf8_tail(_read(log, size - tail_bytes, tail_bytes))
    elided = size - len(head) - len(tail)
    where = f"the full output is in {shown}" if _is_log(log, path) else "the command removed the log of the full output"
    text = head.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}[... {elided} bytes elided; {where} ...]\n{tail.decode('utf-8', 'replace')}", elided


def _read(log: int, offset: int, size: int) -> bytes:
    chunks = []
    while size > 0 and (chunk := os.pread(log, min(size, 1 << 30), offset)):
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _is_log(log: int, path: str) -> bool:
    """Whether ``path`` is still the file open as ``log``."""
    try:
        found, ours = os.stat(path, follow_symlinks=False), os.fstat(log)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (ours.st_dev, ours.st_ino)


def _remove_log(log: int, path: str) -> None:
    if _is_log(log, path):
        os.unlink(path)


def _utf8_head(data: bytes) -> bytes:
    """``data`` less a UTF-8 character cut off at its end."""
    start = len(data)
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: the last character starts here
            start = len(data) - back
            break
    else:
        return data
    lead = data[start]
    needed = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return data[:start] if len(data) - start < needed else data


def _utf8_tail(data: bytes) -> bytes:
    """``data`` less the continuation bytes of a UTF-8 character cut off at its start."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return data[skip:]


if __name__ == "__main__":
    main()
