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

Exit status, as for a shell: the command's own; 128+N when it was killed by signal N; 124 when it ran past
``timeout_s`` (as with ``timeout(1)``). Status 2 with a message starting ``error:`` means the runner itself refused:
arguments that are not JSON, or missing or of the wrong type, or a command it could not start.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
from collections.abc import Mapping
from typing import Any

from codegym.tools.program import STATE, ToolError, serve, state_dir

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_OUTPUT_BYTES = 16_000
TIMEOUT_STATUS = 124
ARGUMENT_ERROR = 2
_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def run(args: Mapping[str, Any], root: str) -> tuple[str, int]:
    """Run one command.

    Args:
        args: The parsed arguments: ``command``, and optionally ``timeout_s`` and ``output_bytes``.
        root: The workspace root, the command's current directory.

    Returns:
        The output to show (possibly cut, see the module docstring) and the exit status.
    """
    try:
        command, timeout_s, output_bytes = _parse(args)
        folder = state_dir(root, "output")
        name, fd = _new_log(folder)
    except ToolError as e:
        return f"error: {e}", ARGUMENT_ERROR
    path = os.path.join(folder, name)
    try:
        status = _execute(command, timeout_s, fd, os.path.realpath(root))
        return _render(fd, path, f"{STATE}/output/{name}", output_bytes), status
    except ToolError as e:
        _remove_log(fd, path)
        return f"error: {e}", ARGUMENT_ERROR
    finally:
        os.close(fd)


def main() -> None:
    """Read the arguments from stdin, print the output, exit with the command's status."""
    serve(run)


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


def _execute(command: str, timeout_s: float, log: int, cwd: str) -> int:
    """Run the command with its output appended to ``log``; return its exit status."""
    import shutil  # only here: the runner's other paths do not need it

    shell = shutil.which("bash") or "/bin/sh"
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
        if not _exits_within(process.pid, timeout_s):
            _kill_group(process.pid)
            process.wait()
            os.write(log, _timeout_note(log, timeout_s))
            return TIMEOUT_STATUS
        returncode = process.wait()
    finally:
        if process.returncode is None:  # interrupted while waiting: leave nothing running
            _kill_group(process.pid)
            process.wait()
    return 128 - returncode if returncode < 0 else returncode


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


def _render(log: int, path: str, shown: str, limit: int) -> str:
    """The output to print: all of it (the log then deleted), or its head and tail around an elision line.

    Read through the open descriptor: the command may have removed or replaced the log (``git clean -fdx`` does).
    """
    size = os.fstat(log).st_size  # later writes by a background process are not shown
    if size <= limit:
        _remove_log(log, path)
        return _read(log, 0, size).decode("utf-8", "replace")
    head = _utf8_head(_read(log, 0, limit // 2))
    tail_bytes = limit - limit // 2
    tail = _utf8_tail(_read(log, size - tail_bytes, tail_bytes))
    elided = size - len(head) - len(tail)
    where = f"the full output is in {shown}" if _is_log(log, path) else "the command removed the log of the full output"
    text = head.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}[... {elided} bytes elided; {where} ...]\n{tail.decode('utf-8', 'replace')}"


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
