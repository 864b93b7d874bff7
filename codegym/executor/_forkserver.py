"""The fork server and the step processes it starts (stdlib only; see ``_worker.py``).

The fork server is forked from the worker's supervisor before the first job, so its memory
never holds a job. It is pid 1 of the worker's pid namespace: it forks one process per step,
confines it, and when the step ends stops whatever the step left behind, then kills and reaps
it all once the supervisor is done with the step.

Its loop, and the confinement of each step process, run in C where ``_forkcore.c`` is built
(the install builds it): every spare shares the fork server's pages copy-on-write, and the
interpreter writes to hundreds of them on its way through a few calls, each write a page
copy on a step's path. The Python here is their specification, and what runs without a C
compiler (``LocalExecutor(native_fork_server=False)`` forces it; the executor contract
suite runs over both).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import fcntl
import functools
import io
import marshal
import os
import resource
import signal
import socket
import struct
import sys
import traceback
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NoReturn

from codegym.executor import _linux as linux
from codegym.executor.base import Limits
from codegym.executor.channel import ready

try:
    from codegym.executor import _forkcore  # built from _forkcore.c
except ImportError:  # not built (no C compiler at install): the same steps in Python
    _forkcore = None
FORKCORE_BUILT = _forkcore is not None

WORK = "/sandbox"  # the job's work dir in a worker's view (its own folder in the `container` tier)
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


SPARE_POLICY = "kill"  # the sockets policy a spare is confined with ahead of time: most steps'
MAX_FD = 1 << 16
CONFINED = b"+"  # the first byte a step writes on its setup pipe once it is wholly confined
KEEPER_NAME = "codegym-keeper"
SANDBOX_UID = 1000  # the submissions' uid in the nested user namespace of a plain user's worker
# What the fork server tells the supervisor, one datagram each, by their first byte.
SPARE = b"s"  # with a spare's socket and pidfd: hand it the next step's request
STARTED = b"p"  # with the pidfd of a step started for a request sent to the fork server
EXITED = b"x"  # then the step process's `EXIT` record
CLEAN = b"c"  # every process of the step is reaped
RELEASE = b"k"  # (from the supervisor) done with the step: kill what is left of it
LEARN = b"l"  # (from the supervisor) RELEASE after a rehearsal: the C loop learns from it first
WARM = b"w"  # (from the supervisor, to a spare, in place of its request) the worker is idle: warm up
EXIT = struct.Struct("=idq")  # the step process's wait status, CPU seconds (its tree's), max RSS in KiB
# A preloaded module's ``warm_up()``, which a spare calls when the supervisor says WARM.
WarmUp = Callable[[], object]


class ForkServer:
    """Forks one submission process per step request, and is the init of them all.

    It is pid 1 of the worker's pid namespace, forked from the supervisor before the first
    job, so its memory holds no job: a request carries argv, environment and limits, and the
    step's descriptors ride along as SCM_RIGHTS. When the step's
    process exits (or the supervisor kills it), pid 1 stops every other process of the
    namespace, then kills and reaps them all, so nothing a step starts outlives it.

    Every step process starts as a *spare*: forked with nothing of ours open, confined
    (own session, unprivileged uid, its sockets policy's seccomp filter on top of the deny
    list and no_new_privs it inherits from pid 1), then handed its request; if the worker
    stays idle a while first, the supervisor tells it to warm up meanwhile. Once
    the previous step's processes are killed, a spare is forked; it confines itself while
    they are reaped, and is then offered to the supervisor (its socket and pidfd), which
    hands it the next step's request itself: the fork, the costly part of confinement and
    this process are off the step's critical path. A step with another sockets policy is
    sent here instead (as ``policy NUL request``); the supervisor kills the unused spare,
    and the step gets a spare forked for it.

    Each step process has a *keeper* (`linux.spawn_address_space_keeper`) that holds its
    address space, so neither its exit nor an exec waits for a copy of this interpreter to
    be torn down. The exit is reported as soon as the step process is reaped and everything
    else in the namespace is stopped (SIGSTOP); once the supervisor has used the report (it
    replied, or wants the next step), everything is killed and reaped, and "clean" says
    so. The supervisor waits for that before it starts the next step.
    """

    def __init__(
        self,
        sock: socket.socket,
        seccomp: linux.SeccompFilter,
        sockets: dict[str, linux.SeccompFilter],
        uid: int | None,
        warm_ups: tuple[WarmUp, ...] = (),
        *,
        native: bool = True,
        tasks_fd: int = -1,
        host_proc: str | None = None,
        nest_user: bool = False,
        paths: Paths | None = None,
        new_ipc: bool = False,
    ) -> None:
        self.sock = sock
        self.seccomp = seccomp
        self.sockets = sockets
        self.uid = uid
        self.warm_ups = warm_ups
        self.native = native and FORKCORE_BUILT
        self.tasks_fd = tasks_fd  # the cgroup's pids.current: the C loop's shortcut (see _forkcore.c)
        self.reaped: dict[int, int] = {}  # wait statuses of children not waited for yet
        self.peak_rss_kb = 0  # the largest of the current step's processes reaped so far
        # (`userns` tier) the host's /proc, bound where it lets us mount ours, and the only
        # /proc there is where that is refused (a container masks parts of it).
        self.host_proc = host_proc
        self.own_proc = True  # whether /proc lists this namespace's processes
        self.nest_user = nest_user  # enter a user namespace of our own, as SANDBOX_UID
        # Each spare enters an IPC namespace of its own: System V objects and POSIX message
        # queues live in the namespace, and nothing of one step's may reach the next.
        self.new_ipc = new_ipc
        # (`container` tier) no namespaces: the folders a step may use, under Landlock
        self.paths = paths
        self.work = paths.work if paths else WORK
        self.env = dict(CANDIDATE_ENV, HOME=self.work, TMPDIR=paths.tmp) if paths else CANDIDATE_ENV
        self.step_landlock: linux.StepLandlock | None = None  # (made in `serve`: its Landlock layer)

    def _mount_proc(self) -> None:
        """/proc of this pid namespace, once for every step: they share the worker's mounts.
        Where a user namespace may not mount one, the host's stands in: it lists every
        process of the host's namespace, so then nothing relies on listing ours."""
        try:
            linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        except OSError:
            if self.host_proc is None:
                raise
            linux.bind(self.host_proc, "/proc", readonly=False)
            self.own_proc = False
        if self.host_proc is not None:
            linux.umount(self.host_proc)

    def _nest_user(self) -> None:
        """Become SANDBOX_UID of a user namespace of our own, with no capability: the
        submissions, forked from us, never run as uid 0 of their namespace (a plain user's
        worker has no other uid to give them). While we are not dumpable, our /proc files
        are not ours to write: the maps are written in between. Where each spare enters an
        IPC namespace of its own, we keep CAP_SYS_ADMIN (of this namespace only) for that, and
        each spare gives it up at once (see `_prepare`)."""
        linux.prctl(linux.PR_SET_DUMPABLE, 1)
        linux.unshare(linux.CLONE_NEWUSER)
        linux.write_id_maps("self", f"{SANDBOX_UID} 0 1", f"{SANDBOX_UID} 0 1")
        linux.drop_capabilities(keep=linux.CAP_SYS_ADMIN if self.new_ipc else None)
        linux.prctl(linux.PR_SET_DUMPABLE, 0)

    def serve(self) -> NoReturn:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.prctl(linux.PR_SET_DUMPABLE, 0)  # its /proc entries stay root's
        linux.set_name("codegym-init")
        if self.paths is None:
            self._mount_proc()
        else:  # no pid namespace: what a step leaves behind is still ours to reap
            linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
            self.own_proc = False
        if self.nest_user:
            self._nest_user()
        _step_defaults(self.env)
        if "tempfile" in sys.modules:  # (a preloaded module may have fixed it, for the worker's view)
            sys.modules["tempfile"].tempdir = self.env["TMPDIR"]  # type: ignore[attr-defined]
        _ready_streams()
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)  # this, the filter and Landlock, every step inherits
        self.seccomp.install()
        if self.paths is not None:
            writable = [self.paths.work, self.paths.tmp]
            linux.landlock(self.paths.readable, writable, read_only=self.paths.read_only)
            self.step_landlock = linux.StepLandlock(self.paths.readable, writable)
        if self.native:
            assert _forkcore is not None
            signal_uid = -1 if self.paths is None or self.uid is None else self.uid
            fd, policy = _forkcore.serve(
                self.sock.fileno(), SPARE_POLICY.encode(), self.tasks_fd, self.own_proc, signal_uid, self.work
            )
            self._be_spare(fd, policy.decode())
        self._serve_in_python()

    def _serve_in_python(self) -> NoReturn:
        """The loop in Python: the specification of `_forkcore.serve`, and what runs where
        that is not built (or ``native`` is off)."""
        spare = self._fork_spare()
        while True:
            spare.keeper()  # once it has said this, it is confined and waiting
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            self.peak_rss_kb = 0
            pidfd = os.pidfd_open(spare.pid)
            socket.send_fds(self.sock, [SPARE], [spare.sock.fileno(), pidfd])
            spare.sock.close()
            os.close(pidfd)
            status = self._wait_for(spare.pid)
            request = self._request()
            if request is not None:  # the supervisor killed the spare: its step needs another
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                status = self._wait_for(self._start_other(*request))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            self._signal_all(signal.SIGSTOP)  # whatever the step left running stops, and its keeper
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            self.sock.send(EXITED + EXIT.pack(status, cpu, self.peak_rss_kb))
            # The keeper's teardown of the step's address space would slow the supervisor's
            # reply, so everything dies only once the supervisor is done with the step.
            if self.sock.recv(16) not in (RELEASE, LEARN):  # (learning is the C loop's alone)
                os._exit(0)  # the supervisor is gone
            self._signal_all(signal.SIGKILL)
            old = self._killed()
            spare = self._fork_spare()  # after the kill: nothing old reaches it
            self._reap(old)  # while the spare confines itself
            self.sock.send(CLEAN)

    def _wait_for(self, pid: int) -> int:
        """Reap children (orphans among them) until ``pid`` is reaped; its status. The
        largest peak RSS among them is kept in ``peak_rss_kb`` (RUSAGE_CHILDREN's would be
        the largest of every step so far)."""
        while pid not in self.reaped:
            reaped, status, usage = os.wait4(-1, 0)
            self.reaped[reaped] = status
            self.peak_rss_kb = max(self.peak_rss_kb, usage.ru_maxrss)
        status = self.reaped[pid]
        self.reaped.clear()
        return status

    def _signal_all(self, sig: int) -> None:
        """Send ``sig`` to every process of the steps: as pid 1, every other process of the
        namespace; in the `container` tier (no namespace of ours, and we are the container's
        root), every process of the submissions' uid, from a child that takes that uid."""
        if self.paths is None or self.uid is None:
            _signal_all(sig)
            return
        helper = os.fork()
        if helper == 0:
            code = 1
            try:
                os.setgroups([])
                os.setgid(self.uid)
                os.setuid(self.uid)
                _signal_all(sig)  # (all of that uid but the helper itself)
                code = 0
            finally:
                os._exit(code)
        if os.waitstatus_to_exitcode(os.waitpid(helper, 0)[1]) != 0:
            raise OSError(f"could not signal the processes of uid {self.uid}")

    def _killed(self) -> set[int]:
        """After a SIGKILL to all: the processes to reap. Where /proc does not list ours,
        reap them all now: every one is, or is about to be, our child (an orphan's parent
        is pid 1), so once none is left, all are gone."""
        if self.own_proc:
            return _processes()
        with contextlib.suppress(ChildProcessError):
            while True:
                os.waitpid(-1, 0)
        return set()

    def _reap(self, pids: set[int]) -> None:
        """After a SIGKILL to all: reap children until none of ``pids`` is left. What else is
        reaped meanwhile (a spare that died) is kept for `_wait_for`."""
        while pids & _processes():
            try:
                reaped, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return
            if reaped not in pids:
                self.reaped[reaped] = status

    def _request(self) -> tuple[bytes, list[int]] | None:
        """A step request the supervisor sent us (before it killed the spare), if any."""
        if not ready(self.sock.fileno(), 0):  # (recv_fds ignores MSG_DONTWAIT)
            return None
        data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 8)
        if not data:
            os._exit(0)  # the supervisor is gone
        return data, fds

    def _start_other(self, data: bytes, fds: list[int]) -> int:
        """Start a step whose sockets policy is not the ready spare's (the request comes as
        ``policy NUL request``) in a spare forked for it, once the unused spare's keeper is
        gone; tell the supervisor its pidfd."""
        policy, _, request = data.partition(b"\0")
        self._signal_all(signal.SIGKILL)
        self._reap(self._killed())
        spare = self._fork_spare(policy.decode())
        spare.keeper()  # (it says so once confined, and needs its socket open for that)
        with contextlib.suppress(OSError):  # if it died, its silent setup pipe tells
            socket.send_fds(spare.sock, [request], fds)
        spare.sock.close()
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(spare.pid)
        socket.send_fds(self.sock, [STARTED], [pidfd])
        os.close(pidfd)
        return spare.pid

    def _fork_spare(self, policy: str = SPARE_POLICY) -> _Spare:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            ours.close()
            # Nothing of ours (a request's descriptors among them) may reach its keeper.
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, theirs.fileno())
            os.closerange(theirs.fileno() + 1, MAX_FD)
            self._be_spare(theirs.detach(), policy)
        theirs.close()
        return _Spare(pid, ours)

    def _be_spare(self, fd: int, policy: str) -> NoReturn:
        """In a spare just forked, with only ``fd`` (its socket) and /dev/null on 0-2 open."""
        try:
            sock = spare_socket(fd)
            Submission.wait_as_spare(
                sock,
                self.sockets[policy],
                self.uid,
                self.warm_ups,
                native=self.native,
                work=self.work,
                landlock=self.step_landlock,
                new_ipc=self.new_ipc,
            )
        finally:
            os._exit(127)  # never back into the fork server's loop


@dataclass
class _Spare:
    """A step process confined ahead of its request, which it waits for on ``sock``."""

    pid: int
    sock: socket.socket
    _keeper: int | None = None

    def keeper(self) -> int:
        """Its keeper's pid, which it sends once confined (-1 if that failed or it died)."""
        if self._keeper is None:
            data = self.sock.recv(16)
            self._keeper = int(data) if data else -1
        return self._keeper


def spare_socket(fd: int) -> socket.socket:
    """An end of a spare's socket pair (the spare's, or the one the supervisor is offered) as
    a socket object, its kind named: given only the descriptor, Python asks the kernel for it
    with three system calls."""
    return socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, fd)


def warm_ups(modules: Iterable[str]) -> tuple[WarmUp, ...]:
    """The ``warm_up`` functions of the (imported) ``modules`` that define one.

    A spare is a fresh fork, so the first run of any code in it copies every page that code
    writes (reference counts, caches) and finds the CPU's caches cold. A module that a step
    runs can take that ahead of the request, off the step's path, by exercising its own code
    in ``warm_up()``. A spare runs it when the supervisor says WARM: once the worker has been
    idle a while (on a busy machine the work would only compete with the steps running
    meanwhile). It runs confined, knows nothing of any job, and must leave nothing behind
    that a step could see.
    """
    found = (getattr(sys.modules[name], "warm_up", None) for name in modules)
    return tuple(function for function in found if callable(function))


@dataclass(frozen=True)
class Paths:
    """The `container` tier's folders: a step works in ``work`` and ``tmp`` (its TMPDIR),
    which it may change, and may read and execute what is ``readable``; nothing else. The
    device nodes among them it may also write, but those in ``read_only``."""

    work: str
    tmp: str
    readable: list[str]
    read_only: tuple[str, ...] = ()


Request = tuple[tuple[str, ...], dict[str, str], tuple[tuple[int, int, int], ...]]
RLIMIT = struct.Struct("=iQQ")  # resource, soft, hard: a request's rlimits as _forkcore.c reads them


@functools.lru_cache(maxsize=64)
def encode_request(
    argv: tuple[str, ...],
    env: tuple[tuple[str, str], ...],
    limits: Limits,
    *,
    memory_slack: int | None = None,
    sharing_uid: int = 1,
) -> bytes:
    """A step's request as the supervisor sends it: its rlimits (a count, then `RLIMIT`
    records), then argv and extra environment in builtins only (marshal), so that the step's
    process decodes it without constructing or importing anything. (Its sockets policy is
    the spare's, or goes to the fork server with it: see `ForkServer._start_other`.) Cached:
    a worker runs the same few commands under the same limits over and over.

    ``memory_slack``: where no cgroup limits memory, each process of the step gets
    RLIMIT_DATA of its memory limit plus this much (what the warm interpreter it is forked
    from already holds); None: a cgroup does it. ``sharing_uid``: how many processes besides
    the step's own count against its RLIMIT_NPROC (its keeper; and the fork server, where it
    shares the step's uid).
    """
    cpu = max(1, int(limits.cpu_s + 0.999))
    nproc = limits.processes + sharing_uid
    rlimits = [
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_STACK, limits.stack_bytes, limits.stack_bytes),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NPROC, nproc, nproc),
    ]
    if memory_slack is not None:
        data = limits.memory_bytes + memory_slack
        rlimits.append((resource.RLIMIT_DATA, data, data))
    header = bytes([len(rlimits)]) + b"".join(RLIMIT.pack(*rlimit) for rlimit in rlimits)
    return header + marshal.dumps((tuple(argv), dict(env)))


def decode_request(data: bytes) -> Request:
    end = 1 + data[0] * RLIMIT.size
    argv, env = marshal.loads(data[end:])
    return argv, env, tuple(RLIMIT.iter_unpack(data[1:end]))


def _processes() -> set[int]:
    """As pid 1: every other process of the namespace, zombies included."""
    return {int(name) for name in os.listdir("/proc") if name.isdigit()} - {1}


def _signal_all(sig: int) -> None:
    """As pid 1: send ``sig`` to every other process of the namespace."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, sig)


class Submission:
    """A step's process: confined (its own session, an unprivileged uid, no_new_privs,
    seccomp, limits), then exec'd or run in this warm interpreter. It shares the worker's
    mount namespace, which it cannot change, and sees the job's fresh work dir and /tmp
    there. Confinement comes in two halves: `_prepare` needs only the uid and the sockets
    policy (a spare does it ahead of time), `attach` needs the request and its descriptors.
    """

    def __init__(self, argv: tuple[str, ...], extra_env: dict[str, str]) -> None:
        self.argv = argv
        self.extra_env = _in_temp_dir(extra_env)

    @staticmethod
    def wait_as_spare(
        sock: socket.socket,
        sockets: linux.SeccompFilter,
        uid: int | None,
        warm_ups: tuple[WarmUp, ...],
        *,
        native: bool,
        work: str = WORK,
        landlock: linux.StepLandlock | None = None,
        new_ipc: bool = False,
    ) -> NoReturn:
        """Confine this process ahead of its request, then wait for the request and run it;
        each WARM that comes first, run the ``warm_ups`` (the supervisor sends it once the
        worker has been idle a while). A failure of either is reported on the request's
        setup pipe. ``native``: confine it and take the request with `_forkcore.prepare`
        and `_forkcore.attach`, which do what `_prepare` and `attach` do. ``work``: the
        folder the step runs in; ``landlock``: the `container` tier's step layer, ``new_ipc``:
        enter an IPC namespace of our own (see `_prepare`)."""
        keeper = -1
        try:
            if native:
                assert _forkcore is not None
                rules = (landlock.attr, landlock.rules) if landlock else (b"", b"")
                keeper = _forkcore.prepare(
                    -1 if uid is None else uid, sockets.program, b"codegym-spare", *rules, new_ipc
                )
            else:
                keeper = _prepare(uid, sockets, name="codegym-spare", landlock=landlock, new_ipc=new_ipc)
            failure = None
        except BaseException:
            failure = traceback.format_exc()
        try:
            sock.send(str(keeper).encode())  # "confined", and which process not to wait for
        except BaseException:
            os._exit(126)
        while (request := Submission._wait_for_request(sock, keeper, failure, native=native, work=work)) is None:
            if failure is None:
                try:
                    for warm_up in warm_ups:
                        warm_up()
                except BaseException:
                    failure = traceback.format_exc()
        argv, extra_env, setup_w = request
        Submission(argv, extra_env).start(setup_w)

    @staticmethod
    def _wait_for_request(
        sock: socket.socket, keeper: int, failure: str | None, *, native: bool, work: str
    ) -> tuple[tuple[str, ...], dict[str, str], int] | None:
        """The step's argv, environment and setup pipe once its request has come and it is
        wholly confined (or ``failure`` reported); None for a WARM."""
        if not native or failure is not None:
            return Submission._take_request(sock, keeper, failure, work)
        assert _forkcore is not None
        taken = _forkcore.attach(sock.fileno(), keeper)  # (it exits on any failure)
        if taken is None:
            return None
        rest, setup_w = taken
        try:
            argv, extra_env = marshal.loads(rest)
        except BaseException:
            os.write(setup_w, traceback.format_exc().encode())
            os._exit(127)
        return argv, extra_env, setup_w

    @staticmethod
    def _take_request(
        sock: socket.socket, keeper: int, failure: str | None, work: str
    ) -> tuple[tuple[str, ...], dict[str, str], int] | None:
        """`_forkcore.attach` in Python: wait for the request, then confine the step for it
        (or report ``failure``, the spare's own); its argv, environment and setup pipe, or
        None for a WARM."""
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
            if data == WARM and not fds:  # (a request comes with its descriptors)
                return None
            if not data or len(fds) < 4:
                raise EOFError("no request")
        except BaseException:
            os._exit(126)  # not wanted after all
        sock.close()
        setup_w = fds[3]
        try:
            if failure is not None:
                raise RuntimeError(f"the step's process could not be confined:\n{failure}")
            argv, extra_env, rlimits = decode_request(data)
            setup_w = attach(fds, keeper, rlimits, work)
        except BaseException:
            os.write(setup_w, traceback.format_exc().encode())
            os._exit(127)
        os.write(setup_w, CONFINED)  # what follows on the pipe, if anything, is an exec failure
        return argv, extra_env, setup_w

    def start(self, setup_w: int) -> NoReturn:
        """Run the step, wholly confined (``setup_w`` has said so): in this interpreter, or
        exec'd, with an exec failure reported on ``setup_w``."""
        if self.argv[0] == "python":
            os.close(setup_w)
            _run_python(self.argv, self.extra_env)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # exec keeps what Python ignores
        try:
            os.execvpe(self.argv[0], self.argv, dict(os.environ, **self.extra_env))  # (the fork server's)
        except OSError as e:
            os.write(setup_w, f"cannot execute {self.argv[0]!r}: {e}".encode())
        os._exit(127)


def attach(fds: list[int], keeper: int, rlimits: tuple[tuple[int, int, int], ...], work: str = WORK) -> int:
    """Wire the step's descriptors, apply its limits (to its keeper too: it shares our
    memory, so it is confined as we are), enter the work dir. Returns the setup pipe's new
    descriptor. (`_forkcore.attach` does the same, and takes the request too.)"""
    linux.set_name("codegym-step")
    stdin_r, out_w, err_w, setup_w, *channel = fds
    setup_w = _move_high(setup_w, 100)
    for target, fd in enumerate((stdin_r, out_w, err_w, *channel)):
        os.dup2(fd, target)
    first_free = 5 if channel else 3
    os.closerange(first_free, setup_w)
    os.closerange(setup_w + 1, MAX_FD)
    for which, soft, hard in rlimits:
        resource.setrlimit(which, (soft, hard))
        resource.prlimit(keeper, which, (soft, hard))
    os.chdir(work)
    return setup_w


def _prepare(
    uid: int | None,
    sockets: linux.SeccompFilter,
    *,
    name: str,
    landlock: linux.StepLandlock | None = None,
    new_ipc: bool = False,
) -> int:
    """The half of confinement that needs no request: ``new_ipc``, a fresh IPC namespace
    (while we still hold CAP_SYS_ADMIN: as root, or a nested user's fork server's, which we
    give up here where no uid change does); session, uid, the sockets policy's filter
    (no_new_privs and the deny list come from the fork server); then the keeper of our
    address space, confined as we are. Returns the keeper's pid. (No parent-death signal is
    needed: if pid 1 dies, the kernel kills its whole namespace.) `_forkcore.prepare` does
    the same."""
    linux.set_name(KEEPER_NAME)  # the name the keeper is born with
    if new_ipc:
        linux.unshare(linux.CLONE_NEWIPC)
        if uid is None:
            linux.clear_capabilities()
    os.setsid()
    linux.prctl(linux.PR_SET_DUMPABLE, 1)  # (else our /proc files are root's, not a plain user's)
    set_oom_score_adj(1000)
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    linux.prctl(linux.PR_SET_DUMPABLE, 1)  # after setuid, which resets it
    sockets.install()
    if landlock is not None:  # the `container` tier: the fork server's helpers take our uid to signal
        landlock.restrict_self()  # us (none of them is ours to signal), and /proc is the container's
    keeper = linux.spawn_address_space_keeper()
    linux.set_name(name)
    return keeper


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


def _step_defaults(env: dict[str, str]) -> None:
    """What every step's process inherits from the fork server: the base environment, no
    blocked signal, and every signal's default disposition, whatever the process that
    started the worker ignored (a shell's background job ignores SIGINT and SIGQUIT). Unlike
    a stock interpreter, SIGXFSZ kills, so that a file-size limit is reported as such
    (SIGPIPE stays ignored for Python steps, as in any interpreter, and is restored before
    an exec)."""
    os.environ.clear()
    os.environ.update(env)
    for sig in signal.valid_signals():
        if sig not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGPIPE):
            with contextlib.suppress(OSError, ValueError):  # (those the C library keeps)
                signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())


def _ready_streams() -> None:
    """Python steps' standard streams, made once in the fork server (every spare inherits
    them, unwritten) on a placeholder pipe: like a step's own descriptors, which replace it
    on fds 0-2, it is neither seekable nor a terminal, so the streams need nothing redone.
    The fork server's own descriptors 0-2 are put back."""
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    read, write = os.pipe()
    for fd, placeholder in ((0, read), (1, write), (2, write)):
        os.dup2(placeholder, fd)
    os.close(read)
    os.close(write)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    for fd, original in zip((0, 1, 2), saved, strict=True):
        os.dup2(original, fd)
        os.close(original)


def _in_temp_dir(env: dict[str, str]) -> dict[str, str]:
    """``env`` with a leading ``$TMPDIR`` of a value made the step's temp dir (see `Step.env`)."""
    if not any(value.startswith("$TMPDIR") for value in env.values()):
        return env
    tmp = os.environ["TMPDIR"]
    return {name: tmp + value[7:] if value.startswith("$TMPDIR") else value for name, value in env.items()}


def _run_python(argv: tuple[str, ...], extra_env: dict[str, str]) -> NoReturn:
    """Run ``python file.py``, ``python -c source`` or ``python -m preloaded_module`` in this
    interpreter."""
    if extra_env:  # (update() of an empty dict still walks the Mapping ABCs)
        os.environ.update(extra_env)
    code = 0
    try:
        if argv[1] == "-m":
            sys.argv = [argv[2], *argv[3:]]
            sys.modules[argv[2]].main()
        elif argv[1] == "-c":
            sys.argv = ["-c", *argv[3:]]
            _run_source(argv[2].encode(), "<string>", os.getcwd())
        else:
            sys.argv = list(argv[1:])
            _run_script(os.path.abspath(argv[1]))  # (the work dir is the current one)
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException as e:
        _print_own_traceback(e)
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = code or 120
    os._exit(code)


def _print_own_traceback(error: BaseException) -> None:
    """Print ``error`` as ``python file.py`` would: without the frames of this runner, which
    are not the program's (and would show the host's paths)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb)


def _run_script(path: str) -> None:
    """What ``python path`` does, minus the interpreter start (runpy costs milliseconds)."""
    with open(path, "rb") as handle:
        source = handle.read()
    _run_source(source, path, os.path.dirname(path))


def _run_source(source: bytes, filename: str, directory: str) -> None:
    """Run ``source`` as ``__main__`` with ``directory`` first on the path."""
    code = compile(source, filename, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    if filename != "<string>":
        module.__file__ = filename
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.path[0] = directory
    exec(code, module.__dict__)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1
