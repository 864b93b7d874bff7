"""Root-file-system boxes: a whole machine's files for one episode, over shared read-only layers.

A terminal task runs in its own environment (a Debian root with the task's packages and
files, built once into layers by `codegym.executor.layers`), not in codegym's toolchain view.
A `RootBox` is one such machine for one episode: an overlay of the layers (read-only,
shared by every episode) under an upper layer of its own (a tmpfs of the episode's disk
quota), with its own pid, mount, ipc, uts and net namespaces (loopback only), and a user
namespace in which root is an unprivileged host uid::

    box = RootBox(BoxSpec(layers=env.layers))
    box.run(("bash", "-c", "apt-get --version; echo hi > /app/x"), cwd="/app")
    box.snapshot(folder)   # the episode's changes, copied out (an upper layer)
    box.close()

Each command is a fresh process tree of the box's init (pid 1), confined as a container's
process is (the task's user; a container root's capabilities, over mapped files only;
no_new_privs; a seccomp deny list), its output capped and its time bounded. Processes it
leaves in the background live on (``background="keep"``: a service the tests will talk to)
or are killed when it returns (``"kill"``). A box can share another's network namespace
(``net_of``): the verifier reaches the agent's services over the episode's loopback and
nothing else of it. Runs as root (the `full` tier, or `userns` without CAP_SYS_ADMIN) or as a
plain user granted the boxes' ids as subordinate ids (`userns`); see `available`.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import os
import pwd
import queue
import resource
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from codegym.error import SandboxError
from codegym.executor import _cgroup, _workspace
from codegym.executor._wire import FrameReader, read_frame, write_frame
from codegym.executor.base import MiB

ID_BASE = 1_000_000_000  # inside uid/gid N is host uid/gid ID_BASE + N, in the box and in its layers
ID_COUNT = 65536
START_TIMEOUT_S = 30.0
REPLY_MARGIN_S = 10.0  # beyond a command's own timeout, for the init to kill it and reply
BOX_MODULES = ("codegym.executor._rootbox", "codegym.tools.editor", "codegym.tools.search")
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
Background = Literal["keep", "kill"]
_counter = itertools.count()
T = TypeVar("T")


class BoxLost(SandboxError):
    """The box's init died or stopped answering: an infrastructure failure, never the agent's."""


@dataclass(frozen=True)
class BoxSpec:
    """What a box is made of.

    Attributes:
        layers: The read-only layers, top first (overlayfs' lowerdir order).
        hostname: The box's hostname.
        memory_bytes: Memory of every process in the box together (where cgroups allow).
        processes: Processes in the box at once (where cgroups allow).
        disk_bytes: What the episode may write above its layers (its upper layer's tmpfs).
        shm_bytes: Size of /dev/shm.
        binds: ``(host path, path in the box, read-only)`` mounts over the layers.
        readonly: Folders of the box made read-only (the verifier's toolchain).
    """

    layers: tuple[str, ...]
    hostname: str = "codegym"
    memory_bytes: int = 2048 * MiB
    processes: int = 512
    disk_bytes: int = 1024 * MiB
    shm_bytes: int = 64 * MiB
    binds: tuple[tuple[str, str, bool], ...] = ()
    readonly: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a box needs at least one layer (a root file system)")
        for path in self.layers:
            if ":" in path or "," in path:
                raise ValueError(f"a layer's path may not hold ':' or ',' (overlayfs options): {path!r}")


@dataclass(frozen=True)
class CommandResult:
    """What one command did.

    Attributes:
        output: Its stdout and stderr together, capped: head and tail around an elision line.
        exit_code: Its exit status (None when it was killed or timed out).
        signal: The signal that killed it, if one did.
        timed_out: Whether it ran past its timeout (and was killed, with its process group).
        background_killed: Processes the box killed when it returned (``background="kill"``):
            every one still running then (but those of its process group, on a time-out: the
            time-out's); 0 with ``"keep"``, which kills none.
        elided_bytes: Bytes of output left out of ``output``.
        elapsed_s: Wall-clock seconds it took.
        channel: What it wrote on its verdict channel (descriptor 3), when it had one.
        channel_overflow: Whether the channel held more than its cap (the rest is dropped).
        collected: The file the command was asked to leave (``collect``), read by the box's
            init once every process of the command was gone; None where it left none, or a
            longer one.
    """

    output: str
    exit_code: int | None
    signal: int | None
    timed_out: bool
    elided_bytes: int
    elapsed_s: float
    channel: bytes = b""
    channel_overflow: bool = False
    collected: bytes | None = None
    background_killed: int = 0


Isolation = Literal["full", "userns"]
CAP_SYS_ADMIN = 21


def box_isolation() -> Isolation:
    """The strongest tier boxes run in here: ``full`` (root with CAP_SYS_ADMIN: the box's
    upper layer is a tmpfs of its quota, its cgroup limits memory and processes) or
    ``userns`` (root without it, where user namespaces are allowed: the box first enters a
    user namespace mapping every uid to itself; the quota is measured; limits come from a
    cgroup only where one is writable). ``$CODEGYM_ISOLATION`` may ask for ``userns``."""
    asked = os.environ.get("CODEGYM_ISOLATION", "auto")
    if asked == "userns" or not _has_capability(CAP_SYS_ADMIN):
        return "userns"
    return "full"


def _has_capability(number: int) -> bool:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> number & 1)
    return False


def available() -> str | None:
    """None where boxes can run here, else why not (in words)."""
    if os.geteuid() != 0:
        return _plain_user_unavailable()
    if not _has_capability(CAP_SYS_ADMIN) and not _user_namespaces_allowed():
        return (
            "root-file-system boxes need CAP_SYS_ADMIN (the `full` tier) or user namespaces (`userns`); here "
            "neither is allowed (codegym's `container` tier: a default Docker container or Kubernetes pod). "
            "`docker run --privileged` gives a container the `full` tier"
        )
    return None


def _plain_user_unavailable() -> str | None:
    """Why a plain user's boxes cannot run here, or None. Each box maps 65536 ids onto the
    layers' owners, host ids ``ID_BASE``.. (shifted as Docker's user-namespace remapping
    shifts them): a plain user needs them granted as subordinate ids, and Debian's newuidmap."""
    if not _user_namespaces_allowed():
        return "root-file-system boxes need user namespaces, which this machine does not allow a plain user"
    missing = [tool for tool in ("newuidmap", "newgidmap") if shutil.which(tool) is None]
    if missing:
        return f"root-file-system boxes need {' and '.join(missing)} for a plain user: install Debian's uidmap"
    if not _may_gain_privileges():
        return (
            "root-file-system boxes need newuidmap for a plain user, and newuidmap is setuid root: it cannot "
            "work under no_new_privs or without CAP_SETUID and CAP_SETGID in the bounding set (start the "
            "harness without them taken away)"
        )
    user = pwd.getpwuid(os.getuid()).pw_name
    for table in ("/etc/subuid", "/etc/subgid"):
        if not _grants(table, user, os.getuid()):
            return (
                f"root-file-system boxes need the ids {ID_BASE}..{ID_BASE + ID_COUNT - 1} (their layers' owners) "
                f"granted to {user} in {table}: as root, `usermod --add-subuids {ID_BASE}-{ID_BASE + ID_COUNT - 1} "
                f"--add-subgids {ID_BASE}-{ID_BASE + ID_COUNT - 1} {user}`"
            )
    return None


def _may_gain_privileges() -> bool:
    """Whether a setuid-root program we run gains CAP_SETUID and CAP_SETGID (no no_new_privs,
    both in the bounding set)."""
    fields = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            name, _, value = line.partition(":")
            fields[name] = value.strip()
    bounding = int(fields.get("CapBnd", "0"), 16)
    return fields.get("NoNewPrivs", "0") == "0" and bool(bounding >> 6 & 1) and bool(bounding >> 7 & 1)


def _grants(table: str, user: str, uid: int) -> bool:
    """Whether ``table`` (/etc/subuid's format: ``user:first:count``) grants ``user`` (or its
    uid) every id of the boxes' range."""
    try:
        with open(table) as handle:
            rows = [line.strip().split(":") for line in handle]
    except OSError:
        return False
    return any(
        len(row) == 3 and row[0] in (user, str(uid)) and row[1].isdigit() and row[2].isdigit()
        and int(row[1]) <= ID_BASE and int(row[1]) + int(row[2]) >= ID_BASE + ID_COUNT
        for row in rows
    )  # fmt: skip


@functools.cache
def _user_namespaces_allowed() -> bool:
    """Whether a process here may make a user namespace (`unshare --user true`)."""
    try:
        return (
            subprocess.run(["unshare", "--user", "true"], capture_output=True, timeout=10, check=False).returncode == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_root() -> str:
    """Where boxes keep their upper layers: ``$CODEGYM_CACHE/terminal/run`` (the user's own)."""
    base = os.environ.get("CODEGYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return os.path.join(base, "terminal", "run")


class RootBox:
    """One machine over ``spec.layers``; see the module docstring.

    Args:
        spec: Its layers and limits.
        net_of: A box whose network namespace this one joins (its loopback and services).

    Raises:
        SandboxError: Where boxes cannot run here (see `available`), or the box failed to start.
    """

    def __init__(
        self,
        spec: BoxSpec,
        *,
        net_of: RootBox | None = None,
        isolation: Isolation | None = None,
        launcher: tuple[str, ...] = (),
    ) -> None:
        reason = available()
        if reason is not None:
            raise SandboxError(reason)
        self.spec = spec
        self.isolation: Isolation = isolation or (net_of.isolation if net_of is not None else box_isolation())
        if self.isolation not in ("full", "userns"):
            raise ValueError(f"a box's isolation is 'full' or 'userns', not {self.isolation!r}")
        self.launcher = launcher
        self.closed = False
        self.owner = os.getpid()  # (a process forked from it holds a copy of this object, not the box)
        self.name = f"box-{os.getpid()}-{next(_counter)}"
        self.folder = os.path.join(run_root(), self.name)
        self.cgroup = _BoxCgroup(f"{os.getpid()}.{self.name}", spec)  # (named for `_cgroup.reap_stale`)
        self._mount_folder()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock = ours
        self.reader = FrameReader(ours.fileno())
        try:
            self.pidfd = _server(self.launcher).launch(self._config(net_of), theirs)
        except BaseException:
            self._cleanup()
            raise
        finally:
            theirs.close()
        kind, body = self._read(START_TIMEOUT_S)
        if kind != "ready":
            self.close()
            raise SandboxError(f"the box did not start:\n{body}")
        self.marks: list[tuple[str, float]] = body.get("marks", [])  # (its start's steps: monotonic times)
        self.launcher_pid = _pid_of(self.pidfd)  # (it holds the box's network and first user namespace)
        self.init_pid = self._host_pid()
        self.init_pidfd = os.pidfd_open(self.init_pid)
        _open_boxes.add(self)

    # --- the box's files -----------------------------------------------------------------------

    @property
    def upper(self) -> str:
        """The episode's upper layer (host path; read it only once its processes are dead or stopped)."""
        return os.path.join(self.folder, "upper")

    def _mount_folder(self) -> None:
        from codegym.executor import _linux as linux

        os.makedirs(run_root(), mode=0o700, exist_ok=True)
        os.chmod(run_root(), 0o700)
        _reap_stale(run_root())
        os.makedirs(self.folder, mode=0o700)
        if self.isolation == "full":  # (the quota: a tmpfs of its size; `userns` measures instead)
            linux.tmpfs(self.folder, self.spec.disk_bytes + 4 * MiB, mode=0o700)
        for name in ("upper", "work", "merged"):
            os.mkdir(os.path.join(self.folder, name), 0o755)

    def _config(self, net_of: RootBox | None) -> dict[str, Any]:
        spec = self.spec
        bottom = os.stat(spec.layers[-1])  # (the upper layer's root takes its owner and mode: the launcher's work)
        return {
            "modules": list(BOX_MODULES[1:]),
            "layers": list(spec.layers),
            "upper": self.upper,
            "upper_owner": [bottom.st_uid, bottom.st_gid, bottom.st_mode & 0o7777],
            "work": os.path.join(self.folder, "work"),
            "merged": os.path.join(self.folder, "merged"),
            "hostname": spec.hostname,
            # (the launcher's network namespace is its box's; a plain user may not open the init's)
            "net": "new" if net_of is None else f"/proc/{net_of.launcher_pid}/ns/net",
            "user": f"/proc/{_pid_of(net_of.pidfd)}/ns/user"
            if net_of is not None and self.isolation == "userns"
            else None,
            "binds": [list(bind) for bind in spec.binds],
            "readonly": list(spec.readonly),
            "id_base": ID_BASE,
            "userns": self.isolation == "userns",
            "id_count": ID_COUNT,
            "shm_bytes": spec.shm_bytes,
            "cgroup_procs": self.cgroup.procs_files(),
        }

    @property
    def over_quota(self) -> bool:
        """Whether the episode's files hold more than ``spec.disk_bytes``. In the `full` tier
        its upper layer is a tmpfs of that size (writes beyond fail with ENOSPC, this never
        holds); in `userns`, which cannot mount one, the layer is measured (call it after
        each command, and end an episode over its quota)."""
        if self.isolation == "full":
            return False
        return as_owner(_workspace._size, self.upper) > self.spec.disk_bytes

    def snapshot(self, dest: str, *, below: Sequence[str] = ()) -> None:
        """Copy the episode's upper layer to ``dest`` (made; ownership, modes, links,
        whiteouts and their extended attributes kept). ``below``: the layers at the top of
        ``spec.layers`` that hold earlier changes of the same machine (the copies a box made
        from a snapshot stands on, top first), merged under it into ``dest``: then ``dest``
        holds every change over the layers below them, as one upper layer (see
        `flatten_layers`). Stop (`stopped`) or kill the box's processes first: one still
        running could change files meanwhile, or remove one the copy is reading (which fails it)."""
        failure = as_owner(flatten_layers, (self.upper, *below), dest)
        if failure:
            raise SandboxError(f"cannot copy the box's files: {failure}")

    # --- commands ------------------------------------------------------------------------------

    def run(
        self,
        argv: Sequence[str],
        *,
        user: str = "root",
        cwd: str = "/",
        env: Mapping[str, str] | None = None,
        timeout_s: float = 30.0,
        output_bytes: int = 16_000,
        background: Background = "keep",
        channel: bool = False,
        tracing: bool = True,
        collect: str | None = None,
        collect_bytes: int = 64 * MiB,
    ) -> CommandResult:
        """Run ``argv`` in the box (see the module docstring); ``channel``: give it a verdict
        channel on descriptor 3; ``tracing``: allow ptrace (gdb, strace); ``collect``: the
        path of a file (a report) the box's init reads, up to ``collect_bytes``, and removes
        once the command and everything it started are gone (``background="kill"`` only: a
        process left running could still write it), in the result's ``collected``."""
        body: dict[str, Any] = {"argv": list(argv)}
        if collect is not None:
            if background != "kill":
                raise ValueError("collect needs background='kill': a process left running could still write the file")
            body.update(collect=collect, collect_bytes=int(collect_bytes))
        return self._command(body, user, cwd, env, timeout_s, output_bytes, background, channel, tracing)

    def write_files(self, files: Mapping[str, bytes]) -> None:
        """Write ``files`` (absolute path in the box -> content) as root's (mode 644, missing
        folders made), before any command runs: what a layer of them under the box's own
        would show."""
        if files:
            self._request(("write", {str(path): bytes(content) for path, content in files.items()}), 60.0)

    def tool(
        self,
        module: str,
        args: Mapping[str, Any],
        *,
        user: str = "root",
        cwd: str = "/",
        env: Mapping[str, str] | None = None,
        timeout_s: float = 30.0,
        output_bytes: int = 64_000,
    ) -> CommandResult:
        """Run one of codegym's preloaded tools (``codegym.tools.editor``, ``.search``) on
        the box's files, confined as a command is (paths are absolute, in the box)."""
        if module not in BOX_MODULES[1:]:
            raise ValueError(f"a box runs the tools {BOX_MODULES[1:]}, not {module!r}")
        body = {"module": module, "args": dict(args)}
        return self._command(body, user, cwd, env, timeout_s, output_bytes, "keep", False, False)

    def _command(
        self,
        body: dict[str, Any],
        user: str,
        cwd: str,
        env: Mapping[str, str] | None,
        timeout_s: float,
        output_bytes: int,
        background: Background,
        channel: bool,
        tracing: bool,
    ) -> CommandResult:
        environment = {"PATH": DEFAULT_PATH, "HOME": "/root", "TERM": "dumb", "LANG": "C.UTF-8"}
        environment.update(env or {})
        body.update(
            user=user, cwd=cwd, env=environment, timeout_s=float(timeout_s), output_bytes=int(output_bytes),
            background=background, channel=channel, tracing=tracing, rlimits=self._rlimits(),
        )  # fmt: skip
        reply = self._request(("run", body), timeout_s + REPLY_MARGIN_S)
        head, tail, total = reply["head"], reply["tail"], reply["total"]
        elided = total - len(head) - len(tail)
        output = head.decode(errors="replace")
        if elided > 0:
            if output and not output.endswith("\n"):
                output += "\n"
            output += f"[... {elided} bytes elided ...]\n"
        output += tail.decode(errors="replace")
        return CommandResult(
            output=output,
            exit_code=reply["exit"],
            signal=reply["signal"],
            timed_out=reply["timed_out"],
            elided_bytes=max(0, elided),
            elapsed_s=reply["elapsed_s"],
            channel=reply["channel"],
            channel_overflow=reply["channel_overflow"],
            collected=reply.get("collected"),
            background_killed=reply["background_killed"],
        )

    def _rlimits(self) -> list[tuple[int, int]]:
        """Every command's rlimits: no core files; where no cgroup limits the box, its
        processes (counted per user namespace: per box) and each process's memory."""
        limits = [(resource.RLIMIT_CORE, 0)]
        if not self.cgroup.group.paths:
            limits += [(resource.RLIMIT_NPROC, self.spec.processes), (resource.RLIMIT_AS, self.spec.memory_bytes)]
        return limits

    @property
    def limited_by(self) -> str:
        """What holds the box's memory and processes: its cgroup (``"cgroup v1"``, ``"v2"``)
        or, where none is writable, rlimits (processes per box, memory per process)."""
        version = self.cgroup.group.version
        return f"cgroup {version}" if self.cgroup.group.paths else "rlimits"

    def kill_all(self) -> None:
        """Kill every process in the box (its init stays, the files too)."""
        self._request(("kill", None), REPLY_MARGIN_S)

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """Stop every process in the box (SIGSTOP) for the block, then let them go on: its
        files hold still while they are copied (`snapshot`)."""
        self._request(("stop", None), REPLY_MARGIN_S)
        try:
            yield
        finally:
            if not self.closed:
                self._request(("continue", None), REPLY_MARGIN_S)

    def processes(self) -> list[int]:
        """The pids (in the box) of its processes other than its init."""
        return list(self._request(("processes", None), REPLY_MARGIN_S)["pids"])

    def listen(self, port: int = 0, *, backlog: int = 64) -> socket.socket:
        """A TCP socket listening on the box's loopback (``127.0.0.1:port``; 0: a free port),
        held by this process: what the box's programs connect to there reaches us, and nothing
        else of the box's network is ours. (A child made for the purpose joins the box's
        network namespace, through its user namespace where the box has one of its own, makes
        the socket and hands it back.)"""
        from codegym.executor import _linux as linux

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        launcher = _pid_of(self.pidfd)
        pid = os.fork()
        if pid == 0:  # (the child: no Python-level cleanup, whatever happens)
            code = 1
            try:
                ours.close()
                if self.isolation == "userns":  # (a plain user, or root without CAP_SYS_ADMIN: a container's)
                    with open(f"/proc/{launcher}/ns/user") as user:
                        linux.setns(user.fileno(), linux.CLONE_NEWUSER)
                with open(f"/proc/{launcher}/ns/net") as net:
                    linux.setns(net.fileno(), linux.CLONE_NEWNET)
                server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(("127.0.0.1", port))
                server.listen(backlog)
                socket.send_fds(theirs, [b"ok"], [server.fileno()])
                code = 0
            except BaseException as e:
                with contextlib.suppress(OSError):
                    theirs.sendall(f"error: {e}".encode())
            finally:
                os._exit(code)
        theirs.close()
        try:
            message, fds, _, _ = socket.recv_fds(ours, 4096, 1)
        finally:
            ours.close()
            os.waitpid(pid, 0)
        if message != b"ok" or not fds:
            raise SandboxError(f"cannot listen on the box's loopback: {message.decode(errors='replace')}")
        return socket.socket(fileno=fds[0])

    def interrupt(self) -> int:
        """SIGKILL the init's children from here, without asking the init (which may be busy
        running the command they belong to: it then sees it end and replies as for any
        command). Returns how many were signalled. With ``background="kill"`` the init then
        kills what else the command left."""
        if self.closed:
            return 0
        signalled = 0
        for pid in _children_of(self.init_pid):
            with contextlib.suppress(OSError):
                pidfd = os.pidfd_open(pid)
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                    signalled += 1
                finally:
                    os.close(pidfd)
        return signalled

    def _request(self, request: tuple[str, Any], timeout_s: float) -> Any:
        if self.closed:
            raise BoxLost("the box is closed")
        try:
            write_frame(self.sock.fileno(), request)
        except OSError as e:
            raise BoxLost(f"the box's init is gone: {e}") from e
        kind, body = self._read(timeout_s)
        if kind == "error":
            raise SandboxError(f"the box refused a request:\n{body}")
        return body

    def _read(self, timeout_s: float) -> tuple[str, Any]:
        try:
            return self.reader.read(time.monotonic() + timeout_s)
        except (TimeoutError, EOFError) as e:
            self.close()
            raise BoxLost(f"the box's init stopped answering ({e})") from e

    def _host_pid(self) -> int:
        """The init's pid on the host (the launcher's only child)."""
        launcher = _pid_of(self.pidfd)
        for _ in range(100):
            with contextlib.suppress(OSError):
                with open(f"/proc/{launcher}/task/{launcher}/children") as handle:
                    children = handle.read().split()
                if children:
                    return int(children[0])
            time.sleep(0.001)
        raise BoxLost("cannot find the box's init")

    # --- the end -------------------------------------------------------------------------------

    def close(self, *, wait: bool = False) -> None:
        """Kill everything in the box and free its files (in the background unless ``wait``:
        an episode's reset need not wait for the kernel to tear a box down). Idempotent. In a
        process forked from the box's owner, only this copy's socket is let go."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()
        if os.getpid() != self.owner:  # (a forked copy: the box is its owner's to kill)
            return
        pidfds = [fd for fd in (getattr(self, "pidfd", None), getattr(self, "init_pidfd", None)) if fd is not None]
        for pidfd in pidfds:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)  # (the rest of the box dies with its init)
        teardown = functools.partial(_teardown, pidfds, self.cgroup, self.folder)
        if wait:
            teardown()
        else:
            _reaper().put(teardown)

    def _cleanup(self) -> None:
        self.cgroup.remove()
        _unmount(self.folder)

    def __enter__(self) -> RootBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


SPARE_BOXES = 8  # boxes `fresh_box` keeps started ahead, in each process (the specs last used first)
_spares: dict[int, OrderedDict[BoxSpec, deque[Future[RootBox]]]] = {}
_spares_lock = threading.Lock()


@contextlib.contextmanager
def fresh_box(spec: BoxSpec) -> Iterator[RootBox]:
    """A box over ``spec`` that nothing has run in, closed after the block: one started ahead
    for ``spec`` where there is one, else one started now. Leaving the block starts another in
    the background, so that grades in one machine's boxes, one after another or as many at
    once as before, do not wait for a box to start (`SPARE_BOXES` at most are kept)."""
    with _spares_lock:
        spares = _spares_here()
        ahead = spares[spec].popleft() if spares.get(spec) else None
        if spec in spares and not spares[spec]:
            del spares[spec]
    box = (_started(ahead) if ahead is not None else None) or RootBox(spec)
    try:
        yield box
    finally:
        box.close()
        _start_ahead(spec)


def _spares_here() -> OrderedDict[BoxSpec, deque[Future[RootBox]]]:
    return _spares.setdefault(os.getpid(), OrderedDict())  # (a forked process starts its own)


def _started(ahead: Future[RootBox]) -> RootBox | None:
    """The box ``ahead`` started, if it did and its init still lives."""
    try:
        box = ahead.result(timeout=START_TIMEOUT_S)
    except Exception:
        ahead.add_done_callback(_close_started)  # (one that starts after all is closed, never used)
        return None
    if select.select([box.init_pidfd], [], [], 0)[0]:  # (its init is gone)
        box.close()
        return None
    return box


def _start_ahead(spec: BoxSpec) -> None:
    future: Future[RootBox] = Future()
    with _spares_lock:
        spares = _spares_here()
        spares.setdefault(spec, deque()).append(future)
        spares.move_to_end(spec)
        while sum(len(waiting) for waiting in spares.values()) > SPARE_BOXES:
            oldest = next(iter(spares))
            spares[oldest].popleft().add_done_callback(_close_started)
            if not spares[oldest]:
                del spares[oldest]

    def start() -> None:
        try:
            future.set_result(RootBox(spec))
        except BaseException as e:
            future.set_exception(e)

    threading.Thread(target=start, name="codegym-spare-box", daemon=True).start()


def _close_started(future: Future[RootBox]) -> None:
    if future.exception() is None:
        future.result().close()


def after_teardowns(job: Callable[[], None]) -> None:
    """Run ``job`` in the background once the boxes this process has closed so far are torn
    down (their processes gone, their overlays unmounted): removing a folder that one of them
    stacked on as a lower layer is safe only then. Errors of ``job`` are ignored."""
    _reaper().put(job)


def _teardown(pidfds: list[int], cgroup: _BoxCgroup, folder: str) -> None:
    """Wait for a killed box's processes to go, then free its cgroup and files."""
    for pidfd in pidfds:
        select.select([pidfd], [], [], 5.0)
        os.close(pidfd)
    cgroup.remove()
    _unmount(folder)


_reapers: dict[int, queue.Queue[Callable[[], None]]] = {}


def _reaper() -> queue.Queue[Callable[[], None]]:
    """This process's queue of box teardowns, and the thread that works through it."""
    with _servers_lock:
        found = _reapers.get(os.getpid())
        if found is None:
            found = _reapers[os.getpid()] = queue.Queue()
            threading.Thread(target=_reap_forever, args=(found,), name="codegym-box-reaper", daemon=True).start()
            atexit.register(_drain, found)
        return found


def _reap_forever(work: queue.Queue[Callable[[], None]]) -> None:
    while True:
        job = work.get()
        with contextlib.suppress(Exception):
            job()
        work.task_done()


def _drain(work: queue.Queue[Callable[[], None]]) -> None:
    """At exit: finish the teardowns still queued."""
    while True:
        try:
            job = work.get_nowait()
        except queue.Empty:
            return
        with contextlib.suppress(Exception):
            job()


class _Server:
    """The box server of this process (see ``_rootbox.serve``): a warm process, started once,
    that forks a launcher per box."""

    def __init__(self, launcher: tuple[str, ...] = ()) -> None:
        from codegym.executor.local import _package_paths

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.lock = threading.Lock()
        config = {"packages": _package_paths(BOX_MODULES), "modules": list(BOX_MODULES), "server_fd": theirs.fileno(),
                  "id_base": ID_BASE, "id_count": ID_COUNT}  # fmt: skip
        started: list[subprocess.Popen[bytes]] = []
        failed: list[BaseException] = []

        def start() -> None:  # (in a thread that never ends: the server dies with the thread that forked it)
            try:
                process = subprocess.Popen(
                    [*launcher, sys.executable, "-s", "-S", "-B", _program()], pass_fds=(theirs.fileno(),),
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                assert process.stdin is not None
                with process.stdin:
                    process.stdin.write(json.dumps(config).encode())
                started.append(process)
            except BaseException as e:
                failed.append(e)
            finally:
                ready.set()
            threading.Event().wait()

        ready = threading.Event()
        threading.Thread(target=start, name="codegym-box-server", daemon=True).start()
        ready.wait()
        theirs.close()
        if failed:
            raise SandboxError(f"cannot start the box server: {failed[0]}") from failed[0]
        self.process = started[0]

    def call(self, module: str, name: str, args: tuple[Any, ...]) -> Any:
        """``module.name(*args)`` in a fork of the server (see `as_owner`)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with ours:
            request = {"call": [module, name], "packages": _packages_of(module)}
            try:
                os.close(self._send(request, theirs))
            finally:
                theirs.close()
            try:
                write_frame(ours.fileno(), args)
                kind, body = read_frame(ours.fileno())
            except (OSError, EOFError) as e:
                raise BoxLost(f"the box server's call of {module}.{name} died: {e}") from e
        if kind != "ok":
            raise SandboxError(f"{module}.{name} failed in the box server:\n{body}")
        return body

    def launch(self, config: dict[str, Any], control: socket.socket) -> int:
        """Start a box with ``config`` and its end of the control socket; the launcher's pidfd."""
        return self._send(config, control)

    def _send(self, request: dict[str, Any], end: socket.socket) -> int:
        """Hand the server ``request`` with ``end`` (a socket's end); the pidfd of its fork."""
        with self.lock:
            try:
                socket.send_fds(self.sock, [json.dumps(request).encode()], [end.fileno()])
                _, fds, _, _ = socket.recv_fds(self.sock, 16, 1)
            except OSError as e:
                raise BoxLost(f"the box server is gone: {e}") from e
        if not fds:
            raise BoxLost("the box server is gone")
        return fds[0]


@functools.cache
def _packages_of(module: str) -> dict[str, list[str]]:
    from codegym.executor.local import _package_paths

    return _package_paths((module,))


_servers: dict[tuple[int, tuple[str, ...]], _Server] = {}
_servers_lock = threading.Lock()


def _server(launcher: tuple[str, ...] = ()) -> _Server:
    """This process's box server (run under ``launcher``; a forked process starts its own)."""
    key = (os.getpid(), launcher)
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.process.poll() is not None:
            if not any(pid == os.getpid() for pid, _ in _servers):
                _cgroup.reap_stale()  # (those of boxes whose owner died)
                atexit.register(_shut_down, os.getpid())
            server = _servers[key] = _Server(launcher)
        return server


def _shut_down(pid: int) -> None:
    """At exit: close the boxes still open and stop the box server, waiting for each, so that
    nothing is left for the machine's init to reap."""
    if os.getpid() != pid:
        return
    for box in list(_open_boxes):
        with contextlib.suppress(Exception):
            box.close(wait=True)
    queued = _reapers.get(pid)
    if queued is not None:
        _drain(queued)
    for key in [key for key in _servers if key[0] == pid]:
        server = _servers.pop(key)
        server.sock.close()  # (it exits when its socket closes)
        try:
            server.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


_open_boxes: weakref.WeakSet[RootBox] = weakref.WeakSet()


def _children_of(pid: int) -> list[int]:
    """The children of host process ``pid`` (of every one of its threads)."""
    children: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as handle:
                children += [int(child) for child in handle.read().split()]
    return children


def _pid_of(pidfd: int) -> int:
    with open(f"/proc/self/fdinfo/{pidfd}") as handle:
        for line in handle:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise BoxLost("the box's launcher is gone")


class _BoxCgroup:
    """The box's memory and pids limits, where cgroups can enforce them."""

    def __init__(self, name: str, spec: BoxSpec) -> None:
        version = _cgroup.detect() if os.environ.get("CODEGYM_BOX_CGROUP", "1") != "0" else "none"
        self.group = _cgroup.WorkerCgroup.create(version, name)
        for controller, path in self.group.paths.items():
            if controller in ("memory", "unified"):
                limit = "memory.limit_in_bytes" if version == "v1" else "memory.max"
                _write(f"{path}/{limit}", str(spec.memory_bytes))
            if controller in ("pids", "unified"):
                _write(f"{path}/pids.max", str(spec.processes))

    def procs_files(self) -> list[str]:
        return [f"{path}/cgroup.procs" for path in self.group.paths.values()]

    def remove(self) -> None:
        self.group.remove()


def _write(path: str, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _program() -> str:
    from codegym.executor import _rootbox

    return _rootbox.__file__


def _unmount(folder: str) -> None:
    from codegym.executor import _linux as linux

    with contextlib.suppress(OSError):
        linux.umount(folder)
    remove_tree(folder)


def remove_tree(folder: str) -> None:
    """Remove ``folder``, whatever box ids own its files (see `as_owner`); errors are ignored."""
    with contextlib.suppress(SandboxError):
        as_owner(shutil.rmtree, folder, True)


def make_folders(folder: str | os.PathLike[str]) -> None:
    """Make ``folder`` and the folders missing above it, each owned by root inside a box
    (host ``ID_BASE``), mode 0755: a layer's folders (run it through `as_owner`)."""
    missing = []
    current = Path(folder)
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir(mode=0o755)
        os.chown(path, ID_BASE, ID_BASE)


def is_whiteout(path: str) -> bool:
    """Whether ``path`` (in an upper layer) is an overlay whiteout: the file below is deleted."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == 0


def is_opaque(path: str) -> bool:
    """Whether the folder ``path`` (in an upper layer) is opaque: it hides what lies below it
    (``trusted.*`` marks in the `full` tier, ``user.*`` in `userns`)."""
    for name in ("trusted.overlay.opaque", "user.overlay.opaque"):
        with contextlib.suppress(OSError):
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
    return False


def copy_tree(source: str, dest: str) -> str:
    """Copy ``source``'s files into the folder ``dest`` as they are (owners, modes, links,
    extended attributes); what went wrong, or "" (run it through `as_owner`)."""
    result = subprocess.run(
        ["cp", "-a", "--no-preserve=context", f"{source}/.", dest], capture_output=True, text=True, check=False
    )
    return (result.stderr.strip() or f"cp exited with {result.returncode}") if result.returncode else ""


def flatten_layers(layers: Sequence[str], dest: str) -> str:
    """Copy upper layers (``layers``, top first: each one's changes over those below it) into
    the folder ``dest`` as one upper layer that shows what they show together over the layers
    below them: an entry hides the same path's entries below it (a whiteout deletes them, an
    opaque folder replaces the folder below whole) and other folders merge, taking the upper
    one's owner and mode. What went wrong, or "" (run it through `as_owner`)."""
    *above, bottom = layers
    failure = copy_tree(bottom, dest)
    for layer in reversed(above):
        failure = failure or _put_over(layer, dest)
    return failure


def _put_over(layer: str, dest: str) -> str:
    """Put the upper layer ``layer`` over ``dest`` (an upper layer too; see `flatten_layers`)."""
    for folder, names, files in os.walk(layer):
        target = os.path.normpath(os.path.join(dest, os.path.relpath(folder, layer)))
        info = os.lstat(folder)
        os.chown(target, info.st_uid, info.st_gid, follow_symlinks=False)
        os.chmod(target, stat.S_IMODE(info.st_mode))
        merged, replaced = [], []
        for name in names + files:
            source, there = os.path.join(folder, name), os.path.join(target, name)
            if _real_folder(source) and not is_opaque(source) and _real_folder(there):
                merged.append(name)
                continue
            if _real_folder(there):
                shutil.rmtree(there)
            elif os.path.lexists(there):
                os.unlink(there)
            replaced.append(source)
        names[:] = merged  # (os.walk goes down only into folders merged; the others were copied whole)
        if replaced:
            result = subprocess.run(["cp", "-a", "--no-preserve=context", "-t", target, *replaced],
                                    capture_output=True, text=True, check=False)  # fmt: skip
            if result.returncode:
                return result.stderr.strip() or f"cp exited with {result.returncode}"
    return ""


def _real_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def as_owner(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` with power over the boxes' files: their owners are host ids
    ``ID_BASE``.. (and a plain user's box folders hold them). Called here where we are root;
    a plain user's box server holds those ids in a user namespace of its own, so there it runs
    in a fork of the server (``function`` is a module's own; its arguments and result are
    plain values; an exception it raises comes back as a `SandboxError` with its traceback)."""
    if os.geteuid() == 0:
        return function(*args)
    return _server().call(function.__module__, function.__name__, args)


def _reap_stale(root: str) -> None:
    """Free the folders of boxes whose owner process died."""
    for name in os.listdir(root):
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "box" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            _unmount(os.path.join(root, name))
