"""The sandbox's side of a metered run (stdlib only): ``python -m codegym.meter.runner``.

One step runs one program on one input, counted. ``python -m codegym.meter.runner KIND INPUT
[COMMAND...]``:

- ``python``: this process, the **runner** (trusted), reads the report's key from its stdin
  (no file holds it: no step of the program's can read it) and forks the **program**
  (hostile) with INPUT as its stdin and pipes as its stdout and report channel; then reads
  both, waits for it, and prints one JSON report on its own stdout, which only it writes.
  The program's output never reaches the harness, only its digest (`output_digest`), size
  and head. The program process is killed by the kernel (SIGSYS) if it tries to start a
  process or thread (see `codegym.executor._linux.no_processes_program`) and runs ``main.py`` under the bytecode
  meter (`codegym.meter._opcount`: the count is written to the report channel in C, signed
  with the key).
- ``native``: the runner forbids new processes (threads stay: valgrind counts them), points
  stdin at INPUT and the program's stderr at /dev/null, and becomes valgrind's cachegrind on
  COMMAND (its branch predictor simulated: `codegym.meter.native` weighs the misses), with
  valgrind's log on the step's stderr through a descriptor valgrind keeps out of the
  program's reach: the step's stdout is the program's output, its stderr valgrind's alone.
  Before it becomes valgrind, the runner **seals** the per-line files earlier metered steps
  of the job left (a line ``codegym-meter seal NAME SHA256`` each, first on its stderr): no
  program has run since cachegrind wrote them, and this step's program could rewrite them.
  (The step's own process runs valgrind, which reads /proc/self: in the `container`
  tier only a step's own process may.) A program that ``exec``s another leaves valgrind no
  summary to print: no count, which fails.
- ``python-wall`` and ``native-wall``: the program as it is, with no meter (and no new thread
  either: parallelism must not pass for speed), forked as for ``python``; the report has its
  wall-clock time as the runner measured it, from the fork to the wait.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import stat
import sys
import time
from typing import Any

PROGRAM = "main.py"
MAX_OUTPUT = 64 << 20  # the program's stdout, hashed as it comes
MAX_REPORT = 4 << 20
HEAD = 200
SEAL = "codegym-meter seal"
VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes", "--vgdb=no",
            "--trace-children=no", "--error-limit=no")  # fmt: skip
# Modules a program commonly imports, loaded before the count starts: importing one costs
# nothing counted, the same for every program.
PRELOADED = ("array", "bisect", "collections", "functools", "heapq", "itertools", "math", "operator", "re",
             "string", "fractions", "decimal", "statistics", "random", "io")  # fmt: skip


def main() -> None:
    kind, input_path, *command = sys.argv[1:]
    if kind == "native":
        _become_valgrind(input_path, command)
    key = os.read(0, 256).strip()
    out_r, out_w = os.pipe()
    report_r, report_w = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _program(kind, input_path, command, out_w, report_w, key, close=(out_r, report_r))
    os.close(out_w)
    os.close(report_w)
    output, report = _read_both(out_r, report_r)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    result: dict[str, Any] = {
        "wall_s": wall,
        "key": key.decode(),
        "exit_code": os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        **output,
        "report": report.decode("utf-8", "replace"),
    }
    sys.stdout.write(json.dumps(result))
    sys.stdout.flush()


def _program(kind: str, input_path: str, command: list[str], out: int, report: int, key: bytes,
             close: tuple[int, ...]) -> None:  # fmt: skip
    """The program's process: never returns."""
    try:
        for fd in close:
            os.close(fd)
        stdin = os.open(input_path, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.dup2(out, 1)
        os.close(stdin)
        os.close(out)
        _refuse_processes(threads=kind == "native")
        if kind == "python":
            _run_python(report, key)
        elif kind == "python-wall":
            _run_python_plain()
        else:  # native-wall
            os.execv(command[0], command)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.write(2, f"codegym meter: {type(e).__name__}: {e}\n".encode())
    os._exit(127)


def _become_valgrind(input_path: str, command: list[str]) -> None:
    """The ``native`` kind: this process becomes cachegrind on ``command``; never returns."""
    profile = f"{input_path}.cachegrind"  # (checked against the log's total: the program can write it)
    _seal_profiles(besides=profile)
    stdin = os.open(input_path, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.close(stdin)
    log = os.dup(2)  # (the step's stderr, for valgrind alone)
    os.set_inheritable(log, True)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    _refuse_processes(threads=True)
    os.execvp(VALGRIND[0], [*VALGRIND, f"--log-fd={log}", f"--cachegrind-out-file={profile}", *command])


def _seal_profiles(besides: str) -> None:
    """Write the digest of each regular ``*.cachegrind`` file here but ``besides`` to stderr
    (`SEAL` lines), for the harness to check what it collects against."""
    for name in sorted(os.listdir(".")):
        if not name.endswith(".cachegrind") or name == besides:
            continue
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                digest = hashlib.sha256()
                while chunk := os.read(fd, 1 << 20):
                    digest.update(chunk)
                os.write(2, f"{SEAL} {name} {digest.hexdigest()}\n".encode())
        finally:
            os.close(fd)


def _refuse_processes(*, threads: bool) -> None:
    from codegym.executor import _linux as linux

    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.SeccompFilter(linux.no_processes_program(threads=threads)).install()


def _load_program() -> Any:
    """``main.py`` compiled, as ``__main__`` of this process."""
    import builtins
    import types

    with open(PROGRAM, "rb") as handle:
        code = compile(handle.read(), PROGRAM, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = PROGRAM
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.argv = [PROGRAM]
    sys.path[0] = os.getcwd()
    return code, module.__dict__


def _run_python_plain() -> None:
    code, namespace = _load_program()
    status = 0
    try:
        exec(code, namespace)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else int(e.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    os._exit(status)


def _run_python(report: int, key: bytes) -> None:
    import importlib

    from codegym.meter import _opcount  # type: ignore[attr-defined]

    for name in PRELOADED:
        importlib.import_module(name)
    sys.modules["random"].seed(0)  # (a randomized program costs the same every run)
    sys.dont_write_bytecode = True
    sys.pycache_prefix = "/nonexistent"  # (imports compile from source: loading bytecode is refused)
    code, namespace = _load_program()
    key_r, key_w = os.pipe()
    os.write(key_w, key)
    os.close(key_w)
    _opcount.run(code, namespace, report, key_r, PROGRAM)  # (ends the process)


def _read_both(out: int, report: int) -> tuple[dict[str, Any], bytes]:
    """The program's output (digested: its tokens' sha256, its size, its head) and the
    report channel, both read to their end."""
    digest = hashlib.sha256()
    head, size, carry = b"", 0, b""
    chunks: list[bytes] = []
    report_size = 0
    open_fds = {out, report}
    while open_fds:
        for fd in select.select(list(open_fds), [], [])[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
                os.close(fd)
            elif fd == out:
                size += len(chunk)
                head = (head + chunk)[:HEAD] if len(head) < HEAD else head
                if size <= MAX_OUTPUT:
                    carry = _digest_tokens(digest, carry + chunk)
            elif report_size < MAX_REPORT:
                chunks.append(chunk)
                report_size += len(chunk)
    _digest_tokens(digest, carry + b" ")
    # (the digest is `output_digest`'s, made as the output comes)
    output = {"output_sha256": digest.hexdigest(), "output_bytes": size, "output_head": head.decode("utf-8", "replace"),
              "output_over": size > MAX_OUTPUT}  # fmt: skip
    return output, b"".join(chunks)


def output_digest(data: bytes) -> str:
    """The sha256 of ``data``'s whitespace-separated tokens, each followed by a space: what a
    token checker compares, digested."""
    return hashlib.sha256(b"".join(token + b" " for token in data.split())).hexdigest()


def _digest_tokens(digest: Any, data: bytes) -> bytes:
    """Feed ``data``'s complete whitespace-separated tokens to ``digest``, each followed by a
    space; return the unfinished last one."""
    tokens = data.split()
    if not tokens:
        return b""
    last = b"" if data[-1:].isspace() else tokens.pop()
    for token in tokens:
        digest.update(token + b" ")
    return last


if __name__ == "__main__":
    main()
