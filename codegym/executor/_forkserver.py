"""The fork server and the step processes it starts (stdlib only; see ``_worker.py``).

The fork server is forked from the worker's supervisor before the first job, so its memory
never holds a job. It is pid 1 of the worker's pid namespace: it forks one process per step,
confines it, and when the step ends kills and reaps whatever the step left behind.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import fcntl
import io
import os
import pickle
import resource
import signal
import socket
import sys
import traceback
import types
from typing import Any, NoReturn

from codegym.executor import _linux as linux
from codegym.executor.base import Limits

WORK = "/sandbox"
CANDIDATE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": WORK,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
}


CONFINED = b"+"  # the first byte a step writes on its setup pipe once it is wholly confined


class ForkServer:
    """Forks one submission process per step request, and is the init of them all.

    It is pid 1 of the worker's pid namespace, forked from the supervisor before the first
    job, so its memory holds no job: a request carries argv, environment, limits and uid,
    and the step's descriptors ride along as SCM_RIGHTS. When the step's process exits (or
    the supervisor kills it), pid 1 kills every other process of the namespace and reaps
    them all, so nothing a step starts outlives it, and each step is a single fork.

    Between steps it keeps one *spare*: a process forked and confined ahead of time (own
    session, unprivileged uid, no_new_privs, seccomp) that waits for the next request, so
    the fork and the costly part of confinement are off the step's critical path. The
    spare is forked only after the previous step's processes are all dead and reaped.
    """

    def __init__(self, sock: socket.socket, seccomp: dict[str, linux.SeccompFilter], uid: int | None) -> None:
        self.sock = sock
        self.seccomp = seccomp
        self.uid = uid
        self.spare: _Spare | None = None

    def serve(self) -> NoReturn:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.prctl(linux.PR_SET_DUMPABLE, 0)  # its /proc entries stay root's
        linux.set_name("codegym-init")
        # /proc of this pid namespace, once for every step: they share the worker's mounts.
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        self.spare = self._fork_spare()
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 8)
            except OSError:
                os._exit(0)
            if not data:
                os._exit(0)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            pid = self._start(data, fds)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            socket.send_fds(self.sock, [b"p"], [pidfd])
            os.close(pidfd)
            status = _reap_all(pid)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            self.sock.send(pickle.dumps((status, cpu, after.ru_maxrss)))
            self.spare = self._fork_spare()

    def _start(self, data: bytes, fds: list[int]) -> int:
        """Hand the request to the spare when it fits, else fork and confine afresh."""
        request = pickle.loads(data)
        spare, self.spare = self.spare, None
        if spare is not None:
            if spare.fits(request, self.uid):
                try:
                    socket.send_fds(spare.sock, [data], fds)
                    spare.sock.close()
                    return spare.pid
                except OSError:
                    pass  # it died waiting: its exit is reaped with this step's leftovers
            spare.sock.close()
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            Submission(request, self.seccomp).prepare_and_run(fds)
        return pid

    def _fork_spare(self) -> _Spare:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            ours.close()
            Submission.wait_as_spare(theirs, self.seccomp, self.uid)
        theirs.close()
        return _Spare(pid, ours)


class _Spare:
    """A pre-confined step process waiting for its request on ``sock``."""

    policy = "kill"  # the sockets policy it is confined with: almost every step's

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid = pid
        self.sock = sock

    def fits(self, request: dict[str, Any], uid: int | None) -> bool:
        return request["sockets"] == self.policy and request["uid"] == uid


def _reap_all(pid: int) -> int:
    """As pid 1: wait for ``pid``, then kill and reap every other process of the namespace."""
    status = 0
    while True:
        try:
            reaped, reaped_status = os.waitpid(-1, 0)
        except ChildProcessError:
            return status
        if reaped == pid:
            status = reaped_status
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # whatever the step left running dies with it


class Submission:
    """A step's process: confined (its own session, an unprivileged uid, no_new_privs,
    seccomp, limits), then exec'd or run in this warm interpreter. It shares the worker's
    mount namespace, which it cannot change, and sees the job's fresh work dir and /tmp
    there. Confinement comes in two halves: `_prepare` needs only the uid and the sockets
    policy (a spare does it ahead of time), `_attach` needs the request and its descriptors.
    """

    def __init__(self, request: dict[str, Any], seccomp: dict[str, linux.SeccompFilter]) -> None:
        self.argv: tuple[str, ...] = request["argv"]
        self.env = dict(CANDIDATE_ENV, **dict(request["env"]))
        self.limits: Limits = request["limits"]
        self.uid: int | None = request["uid"]
        self.seccomp = seccomp[request["sockets"]]

    @staticmethod
    def wait_as_spare(sock: socket.socket, seccomp: dict[str, linux.SeccompFilter], uid: int | None) -> NoReturn:
        """Confine this process ahead of time, then wait for a request and run it. A failure
        to confine is reported on the request's setup pipe, like a fresh fork's."""
        try:
            _prepare(uid, seccomp[_Spare.policy], name="codegym-spare")
            failure = None
        except BaseException:
            failure = traceback.format_exc()
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        except BaseException:
            os._exit(126)  # the server's hand-off fails, and it forks afresh
        sock.close()
        try:
            if failure is not None:
                raise RuntimeError(f"the spare could not be confined:\n{failure}")
            submission = Submission(pickle.loads(data), seccomp)
        except BaseException:
            os.write(fds[3], traceback.format_exc().encode())
            os._exit(127)
        submission.run(fds)

    def prepare_and_run(self, fds: list[int]) -> NoReturn:
        try:
            _prepare(self.uid, self.seccomp, name="codegym-step")
        except BaseException:
            os.write(fds[3], traceback.format_exc().encode())
            os._exit(127)
        self.run(fds)

    def run(self, fds: list[int]) -> NoReturn:
        setup_w = fds[3]
        try:
            setup_w = self._attach(fds)
        except BaseException:
            os.write(setup_w, traceback.format_exc().encode())
            os._exit(127)
        os.write(setup_w, CONFINED)  # what follows on the pipe, if anything, is an exec failure
        if self.argv[0] == "python":
            os.close(setup_w)
            _run_python(self.argv, self.env)
        try:
            os.execvpe(self.argv[0], self.argv, self.env)
        except OSError as e:
            os.write(setup_w, f"cannot execute {self.argv[0]!r}: {e}".encode())
        os._exit(127)

    def _attach(self, fds: list[int]) -> int:
        """Wire the step's descriptors, apply its limits, enter the work dir."""
        linux.set_name("codegym-step")
        stdin_r, out_w, err_w, setup_w, *channel = fds
        setup_w = _move_high(setup_w, 100)
        for target, fd in enumerate((stdin_r, out_w, err_w, *channel)):
            os.dup2(fd, target)
        first_free = 5 if channel else 3
        os.closerange(first_free, setup_w)
        os.closerange(setup_w + 1, 1 << 16)
        limits = self.limits
        cpu = max(1, int(limits.cpu_s + 0.999))
        for which, soft, hard in (
            (resource.RLIMIT_CPU, cpu, cpu + 1),
            (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
            (resource.RLIMIT_STACK, limits.stack_bytes, limits.stack_bytes),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_NPROC, limits.processes, limits.processes),
        ):
            resource.setrlimit(which, (soft, hard))
        os.chdir(WORK)
        return setup_w


def _prepare(uid: int | None, seccomp: linux.SeccompFilter, *, name: str) -> None:
    """The half of confinement that needs no request: session, uid, no_new_privs, seccomp."""
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    linux.set_name(name)
    os.setsid()
    set_oom_score_adj(1000)
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    linux.prctl(linux.PR_SET_DUMPABLE, 1)  # after setuid, which resets it
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    seccomp.install()


def set_oom_score_adj(value: int) -> None:
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    except PermissionError:
        pass  # lowering needs CAP_SYS_RESOURCE, which some hosts withhold even from root
    finally:
        os.close(fd)


def _move_high(fd: int, at_least: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, at_least)
    os.close(fd)
    return high


def _run_python(argv: tuple[str, ...], env: dict[str, str]) -> NoReturn:
    """Run ``python file.py`` or ``python -m preloaded_module`` in this interpreter."""
    os.environ.clear()
    os.environ.update(env)
    # Unlike a stock interpreter, let SIGXFSZ kill: a file-size limit is reported as such.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    code = 0
    try:
        if argv[1] == "-m":
            sys.argv = [argv[2], *argv[3:]]
            sys.modules[argv[2]].main()
        else:
            sys.argv = list(argv[1:])
            _run_script(os.path.join(WORK, argv[1]))
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = code or 120
    os._exit(code)


def _run_script(path: str) -> None:
    """What ``python path`` does, minus the interpreter start (runpy costs milliseconds)."""
    with open(path, "rb") as handle:
        source = handle.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.path[0] = os.path.dirname(path)
    exec(code, module.__dict__)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1
