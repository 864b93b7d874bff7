"""The docker backend: warm containers on a real Docker engine, each running the local worker.

Each container is started once per worker slot from an image codegym builds itself (see
``images.py``) and runs the local backend's worker inside it (``_container.py`` sets it up),
which forks a fresh confined process tree per job: a job costs a few forks, not a
``docker run``. Two walls stand between a submission and the host: the container (no
network, no new privileges, every capability dropped but the five that building per-job
namespaces needs, a seccomp profile denying the local sandbox's escape syscalls but those,
a read-only root, a pids limit and a memory limit without swap, a private cgroup namespace)
and, inside it, the same per-job sandbox as the local backend (an unprivileged uid with no
capabilities, pid/mount/net/ipc namespaces, seccomp, rlimits, a job cgroup, a fresh tmpfs
work dir). The container's init, the trusted worker, runs as the container's root because
building those namespaces takes it; no submission ever does (``user`` is root in the
container and each job drops to its own uid, as on the local backend).

The executor talks to each worker over a unix socket in a host directory bound into the
container, so the daemon must run on this machine (use the ``ray`` backend to spread work
over machines). Containers are labelled with their owner (host, pid and start time of the
process) and its uid; they are removed on `close`, at interpreter exit, and, after a crash of
the owner, by the reaper that every new `DockerExecutor` runs first.

The caller need not be root. A member of the ``docker`` group uses the system daemon: the
container's root is then another user to the caller (and has no ``CAP_DAC_OVERRIDE``), so
codegym's source must be world-readable and the socket is opened to it, the executor checking
that whoever connects is the container's init (`_ContainerWorker._accept`). With rootless
Docker (``$XDG_RUNTIME_DIR/docker.sock``, tried when the system socket does not answer) the
container's root is the caller itself and its other uids map to the caller's subordinate uids,
so submissions run as uids below 65536 there (`MAPPED_UID_FLOOR`), and bound files owned by
users other than the caller show up as ``nobody`` in the container. Starting ``dockerd``
(`start_daemon`) and building images (``images.build_image``) still need root.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import socket
import stat
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegym.error import DependencyNotInstalled, SandboxError
from codegym.executor import images
from codegym.executor._pool import POOLS_PER_PROCESS, UIDS_PER_POOL, WorkerFault, WorkerPool, request
from codegym.executor._wire import FrameReader
from codegym.executor.base import Job, RunResult
from codegym.executor.local import ETC_ALLOWLIST, _etc_files, _package_paths

logger = logging.getLogger(__name__)

CONTAINER_SCRIPT = str(Path(__file__).with_name("_container.py"))
WORKER_SCRIPT = str(Path(__file__).with_name("_worker.py"))
OWNER_LABEL = "codegym.owner"
EXECUTOR_LABEL = "codegym.executor"  # tells apart the executors of one process
USER_LABEL = "codegym.uid"  # the owner's uid: only root and the owner judge whether it lives
SYSTEM_SOCKET = "/var/run/docker.sock"
# What building the per-job sandbox inside the container needs, and nothing else:
# SYS_ADMIN (namespaces, mounts, pivot_root), SETUID/SETGID (drop to the job's uid),
# CHOWN (hand the job its files), KILL (pid 1 of a job kills what the job left behind),
# DAC_OVERRIDE and FOWNER (a workspace's overlay works on the submission's files with the
# worker's credentials: copying one up, it writes into folders it does not own; a chmod of the
# submission's own file, as an editor's atomic write does, is done as the worker, who owns none).
CAPABILITIES = ("SYS_ADMIN", "SETUID", "SETGID", "CHOWN", "KILL", "DAC_OVERRIDE", "FOWNER")
SECURITY = ("codegym", "default", "unconfined-seccomp")  # see DockerExecutor
SCRATCH = "256m"  # the tmpfs of a container's worker folder
START_TIMEOUT_S = 60.0
DAEMON_TIMEOUT_S = 30.0
DAEMON_ATTEMPTS = 3
# Where a default dockerd keeps the pids of itself and of the containerd it runs. Both
# outlive a daemon killed without its shutdown (SIGKILL, a machine's reset of a session).
DAEMON_PID_FILES = {"/var/run/docker.pid": "dockerd", "/var/run/docker/containerd/containerd.pid": "containerd"}
MEMORY_HEADROOM = 256 << 20  # the worker's own processes, above the largest job
# Where the daemon maps the container's uids (rootless, userns-remap), container uids 1-65535
# are the usual subordinate range: submissions take a block of UIDS_PER_POOL (a uid per worker) there.
MAPPED_UID_FLOOR = 1000
MAPPED_UID_CEILING = 65536
# The socket directory and socket when the container's root is another user than the caller:
# connect(2) needs search permission on the directory and write permission on the socket,
# nothing more. The path is no secret (every bound unix socket is listed in /proc/net/unix),
# so the executor also checks who connected (`_ContainerWorker._accept`).
OPEN_DIRECTORY_MODE = 0o711
OPEN_SOCKET_MODE = 0o622
# The container's own seccomp profile: the local sandbox's deny-list, less the calls the
# worker makes to build each job's namespaces (jobs get the full deny-list on top of this).
WORKER_SYSCALLS = ("mount", "umount2", "pivot_root", "unshare", "setns", "sethostname")
_ARCHITECTURES = {
    "x86_64": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
    "aarch64": ["SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"],
}


def seccomp_profile() -> str:
    """The container's seccomp profile (JSON): allow by default, deny the escape hatches."""
    import json
    import platform

    from codegym.executor._linux import DENIED

    denied = [name for name in DENIED if name not in WORKER_SYSCALLS]
    profile = {
        "defaultAction": "SCMP_ACT_ALLOW",
        "architectures": _ARCHITECTURES.get(platform.machine(), []),
        "syscalls": [{"names": denied, "action": "SCMP_ACT_ERRNO"}],
    }
    return json.dumps(profile)


def _docker() -> Any:
    try:
        import docker
    except ImportError as e:
        raise DependencyNotInstalled('the docker backend needs the docker SDK: pip install "codegym[docker]"') from e
    return docker


def _start_time(pid: int) -> str:
    """The kernel's start time of ``pid`` (clock ticks since boot), "" when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_label() -> str:
    """``host/pid/start time`` of this process: unique even after the pid is reused."""
    return f"{socket.gethostname()}/{os.getpid()}/{_start_time(os.getpid())}"


def owner_alive(label: str) -> bool:
    """Whether the process named by an `owner_label` still runs (True for other hosts)."""
    host, _, rest = label.partition("/")
    pid, _, started = rest.partition("/")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    return _start_time(int(pid)) == started


def daemon_addresses(base_url: str | None = None) -> list[str]:
    """Where `connect` looks for the daemon, in order: ``base_url``, else ``$DOCKER_HOST``,
    else the system daemon's socket and then the caller's rootless daemon's
    (``$XDG_RUNTIME_DIR/docker.sock``, ``/run/user/<uid>`` when that variable is unset)."""
    if base_url:
        return [base_url]
    if os.environ.get("DOCKER_HOST"):
        return [os.environ["DOCKER_HOST"]]
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return [f"unix://{SYSTEM_SOCKET}", f"unix://{runtime}/docker.sock"]


def _socket_problem(address: str) -> str | None:
    """Why this process cannot use the unix socket at ``address`` (None: it may)."""
    import grp

    path = address.removeprefix("unix://")
    if path == address:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return "no such socket"
    if os.access(path, os.R_OK | os.W_OK):
        return None
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    return (
        f"permission denied: the socket is mode {stat.S_IMODE(info.st_mode):o}, group {group}; "
        f"join that group (sudo usermod -aG {group} $USER, then log in again)"
    )


def _reach(base_url: str | None = None) -> tuple[Any, list[str]]:
    """A client of the first of `daemon_addresses` that answers a ping (None when none does),
    and why each address before it failed."""
    docker = _docker()
    failures = []
    for address in daemon_addresses(base_url):
        problem = _socket_problem(address)
        if problem is None:
            # from_env also reads $DOCKER_TLS_VERIFY and $DOCKER_CERT_PATH, which go with $DOCKER_HOST
            from_env = not base_url and address == os.environ.get("DOCKER_HOST")
            client = None
            try:
                client = docker.from_env(timeout=60) if from_env else docker.DockerClient(base_url=address, timeout=60)
                client.ping()
                return client, failures
            except Exception as e:  # the SDK's and requests' errors alike
                problem = str(e)
                if client is not None:
                    client.close()
        failures.append(f"{address} ({problem})")
    return None, failures


def connect(base_url: str | None = None) -> Any:
    """A docker client that has answered a ping, or `SandboxError` naming every address tried
    (see `daemon_addresses`) and why each failed."""
    client, failures = _reach(base_url)
    if client is None:
        raise SandboxError(
            f"cannot reach the Docker daemon: tried {'; '.join(failures)}. Start it (as root: systemctl start "
            "docker, or codegym.executor.docker.start_daemon()), start your rootless one (systemctl --user start "
            "docker), or point DOCKER_HOST at a running one"
        )
    return client


def daemon_answers(base_url: str | None = None) -> bool:
    try:
        connect(base_url).close()
    except SandboxError:
        return False
    return True


def start_daemon(log_path: str | None = None, timeout_s: float = DAEMON_TIMEOUT_S) -> subprocess.Popen[bytes] | None:
    """Start ``dockerd`` on the system socket unless a daemon already answers (see `connect`).

    Returns the daemon's process when this call started it (stop it with `stop_daemon`),
    None when one was running. The daemon runs without bridge networking: codegym's
    containers have no network at all. Only root starts one: any other caller gets a
    `SandboxError` saying what to ask for.
    """
    client, failures = _reach()
    if client is not None:
        client.close()
        return None
    if os.geteuid() != 0:
        raise SandboxError(
            f"no Docker daemon answers (tried {'; '.join(failures)}), and codegym starts dockerd only as root, "
            f"which this process (uid {os.geteuid()}) is not: ask an administrator to start it (systemctl start "
            "docker) and to add you to its group, or set up rootless Docker (dockerd-rootless-setuptool.sh "
            "install, then systemctl --user start docker)"
        )
    if shutil.which("dockerd") is None:
        raise SandboxError("no Docker daemon answers and dockerd is not installed (apt-get install docker.io)")
    log_path = log_path or os.path.join(tempfile.gettempdir(), "codegym-dockerd.log")
    for attempt in range(1, DAEMON_ATTEMPTS + 1):
        process, outcome = _try_daemon(log_path, timeout_s)
        if outcome != "containerd was slow":
            return process if outcome == "up" else None
        logger.warning("dockerd gave up waiting for its containerd (attempt %d of %d)", attempt, DAEMON_ATTEMPTS)
    with open(log_path, "rb") as log:
        tail = log.read()[-3000:].decode(errors="replace")
    raise SandboxError(
        f"dockerd did not come up in {DAEMON_ATTEMPTS} tries of {timeout_s:.0f} s; its log ({log_path}) ends:\n{tail}"
    )


def _try_daemon(log_path: str, timeout_s: float) -> tuple[subprocess.Popen[bytes], str]:
    """Start dockerd once and wait for it: ``"up"``, ``"another"`` (a daemon that was
    starting meanwhile answers), or ``"containerd was slow"`` (dockerd gives its containerd 15
    s to start, which a loaded machine can exceed: worth another try, which adopts that
    containerd). Raises `SandboxError` on any other failure."""
    clear_stale_pid_files()
    with open(log_path, "ab") as log:
        start = log.tell()
        process = subprocess.Popen(
            ["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if daemon_answers():
            return process, "up"
        if process.poll() is not None:  # another daemon may hold the pid file and be starting
            if daemon_answers():
                return process, "another"
            break
        time.sleep(0.2)
    stop_daemon(process)
    with open(log_path, "rb") as log:
        log.seek(start)
        said = log.read().decode(errors="replace")
    if "timeout waiting for containerd" in said:
        return process, "containerd was slow"
    raise SandboxError(f"dockerd did not come up within {timeout_s:.0f} s; its log ({log_path}) ends:\n{said[-3000:]}")


_launch_daemon = start_daemon  # (DockerExecutor's argument of the same name hides it)


def clear_stale_pid_files(pid_files: dict[str, str] | None = None) -> list[str]:
    """Remove the pid files a killed daemon left whose pid now names another program.

    dockerd trusts a pid file whose pid is alive: it refuses to start over its own ("process
    with PID ... is still running") and waits for the socket of a containerd that is really
    some process which got the recycled pid, until it gives up ("timeout waiting for
    containerd to start"). Only a file whose process runs the expected program is kept
    (dockerd adopts a containerd that outlived it). Returns the paths removed.
    """
    removed = []
    for path, program in (DAEMON_PID_FILES if pid_files is None else pid_files).items():
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if _program_of(text) != program:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            removed.append(path)
    return removed


def _program_of(pid: str) -> str:
    """The name of the program whose pid ``pid`` is, "" when none is (or it is no pid)."""
    if not pid.isdigit():
        return ""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def stop_daemon(process: subprocess.Popen[bytes], timeout_s: float = 30.0) -> None:
    """Stop a daemon `start_daemon` started (SIGTERM, then SIGKILL)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def codegym_containers(client: Any) -> list[Any]:
    """Every container (running or not) that carries codegym's owner label."""
    return client.containers.list(all=True, filters={"label": OWNER_LABEL})


def reap(client: Any) -> int:
    """Remove the containers of codegym processes that died without removing them.

    Root judges every container; another user only those of its own uid: where ``/proc`` is
    mounted with ``hidepid``, the processes of other users look dead to it. Containers
    without a `USER_LABEL` were started by root (older codegym ran only as root).
    """
    removed = 0
    me = os.geteuid()
    for container in codegym_containers(client):
        if me != 0 and container.labels.get(USER_LABEL, "0") != str(me):
            continue
        if not owner_alive(container.labels.get(OWNER_LABEL, "")):
            _remove(container)
            removed += 1
    return removed


def _remove(container: Any) -> None:
    docker = _docker()
    with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
        container.remove(force=True)


def container_root(client: Any) -> tuple[int, int] | None:
    """The host uid and gid that the root of ``client``'s containers runs as: root's under a
    system daemon, the caller's under its rootless daemon, None (a subordinate uid) where the
    daemon remaps user namespaces."""
    options = " ".join(client.info().get("SecurityOptions") or [])
    if "name=rootless" in options:
        return os.getuid(), os.getgid()
    if "name=userns" in options:
        return None
    return 0, 0


def mapped_uid_base(serial: int) -> int:
    """The first submission uid of pool ``serial`` of this process where the daemon maps the
    container's uids: a block of `MAPPED_UID_FLOOR`..`MAPPED_UID_CEILING` (few enough blocks
    that two processes may share one; pass ``uid_base`` to choose)."""
    blocks = (MAPPED_UID_CEILING - MAPPED_UID_FLOOR) // UIDS_PER_POOL
    return MAPPED_UID_FLOOR + (os.getpid() * POOLS_PER_PROCESS + serial) % blocks * UIDS_PER_POOL


def unreadable(top: str, root: tuple[int, int] | None) -> str | None:
    """The first directory, Python source or extension module under ``top`` that the
    containers' root (host uid and gid ``root``, None for a uid of no host user) cannot read:
    it has no CAP_DAC_OVERRIDE, so only the permission bits count."""
    for parent, subdirs, files in os.walk(top):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]  # python -B skips what it cannot read
        wanted = [(parent, 0o5)] + [(os.path.join(parent, f), 0o4) for f in files if f.endswith((".py", ".so"))]
        for path, bits in wanted:
            try:
                info = os.stat(path)
            except OSError:  # a dangling link: nothing to import there
                continue
            shift = 6 if root and info.st_uid == root[0] else 3 if root and info.st_gid == root[1] else 0
            if (info.st_mode >> shift) & bits != bits:
                return path
    return None


class _ContainerWorker:
    """One warm container with its worker, its socket directory and its connection."""

    def __init__(self, executor: DockerExecutor, index: int) -> None:
        self.executor = executor
        self.index = index
        self.uid = executor.uid_base + index
        self.generation = -1
        self.starts = 0
        self.lock = threading.Lock()
        self.sessions: set[str] = set()
        self.container: Any = None
        self.socket: socket.socket | None = None
        self.reader: FrameReader | None = None
        self.host_pid: int | None = None
        self.fork_server: str | None = None  # the loop its fork server runs: "native" or "python"
        self.rehearsed: list[str] = []  # the preloaded modules whose rehearsal it ran
        self.directory = tempfile.mkdtemp(prefix=f"codegym-docker-{index}-")  # 0700
        if executor.open_socket:
            os.chmod(self.directory, OPEN_DIRECTORY_MODE)

    def start(self) -> None:
        ex = self.executor
        self.starts += 1
        self.sessions = set()
        path = os.path.join(self.directory, "worker.sock")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            if ex.open_socket:
                os.chmod(path, OPEN_SOCKET_MODE)
            listener.listen(8)  # room for strangers' connections, which _accept refuses
            self.container = ex.start_container(self.index, self.directory, self._config())
            self.socket = self._accept(listener, time.monotonic() + START_TIMEOUT_S)
        finally:
            listener.close()
        self.reader = FrameReader(self.socket.fileno())
        deadline = time.monotonic() + START_TIMEOUT_S
        kind, info = self._read(deadline)
        if kind == "cgroup":
            ex.cgroup_version = info["version"]
            kind, info = self._read(deadline)
        if kind != "ready":
            raise WorkerFault(f"the container's worker could not build its sandbox:\n{info}")
        self.fork_server = info["fork_server"]
        self.rehearsed = info["rehearsed"]
        self.container.reload()
        self.host_pid = self.container.attrs["State"]["Pid"] or None
        self.generation = ex.generation

    def _config(self) -> dict[str, Any]:
        ex = self.executor
        return {
            "socket": "/codegym/host/worker.sock",
            "packages": ex.packages,
            "package_dirs": ex.package_dirs,
            "etc_allowlist": list(ETC_ALLOWLIST),
            "etc": _etc_files(self.uid),
            "preload": list(ex.preload),
            "uid": self.uid,
            "index": self.index,
            "root": "/codegym/root",
            "worker_script": WORKER_SCRIPT,
            "view_binds": list(ex.view_binds),
        }

    def _accept(self, listener: socket.socket, deadline: float) -> socket.socket:
        listener.settimeout(0.2)
        while time.monotonic() < deadline:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                if self._exited():
                    raise WorkerFault(f"the container exited before connecting:\n{self._logs()}") from None
                continue
            if self.executor.open_socket and not self._from_init(connection):
                connection.close()
                continue
            connection.setblocking(True)
            return connection
        raise WorkerFault(f"the container did not connect within {START_TIMEOUT_S:.0f} s:\n{self._logs()}")

    def _from_init(self, connection: socket.socket) -> bool:
        """Whether ``connection`` came from the container's init (the kernel's word for the
        peer's pid): an open socket admits any local user, who must not pose as the worker."""
        size = struct.calcsize("3i")
        pid, uid, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
        try:
            self.container.reload()
        except Exception as e:  # gone, or the daemon is
            raise WorkerFault(f"cannot look up the container that should connect: {e}") from e
        init = self.container.attrs["State"]["Pid"]
        if pid != init:
            logger.warning("refused a connection from pid %d (uid %d): container %s's init is pid %s",
                           pid, uid, self.container.name, init)  # fmt: skip
        return pid == init

    def _exited(self) -> bool:
        docker = _docker()
        try:
            self.container.reload()
        except docker.errors.NotFound:
            return True
        return self.container.status in ("exited", "dead")

    def _logs(self) -> str:
        with contextlib.suppress(Exception):
            return self.container.logs(tail=50).decode(errors="replace")
        return "(no logs)"

    def _read(self, deadline: float) -> Any:
        assert self.reader is not None
        try:
            return self.reader.read(deadline)
        except TimeoutError as e:
            raise WorkerFault("the container's worker missed its deadline") from e
        except (EOFError, OSError) as e:
            raise WorkerFault("the connection to the container closed (it died)") from e

    def ensure_started(self) -> None:
        if self.container is None or self.generation != self.executor.generation:
            self.stop()
            self.start()

    def connection(self) -> tuple[int, FrameReader] | None:
        return None if self.socket is None or self.reader is None else (self.socket.fileno(), self.reader)

    def run(self, job: Job) -> RunResult:
        self.ensure_started()
        assert self.socket is not None and self.reader is not None
        return request(self.socket.fileno(), self.reader, job)

    def stop(self) -> None:
        if self.socket is not None:
            self.socket.close()
            self.socket = None
            self.reader = None
        if self.container is not None:
            _remove(self.container)
            self.container = None
            self.host_pid = None

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


class DockerExecutor(WorkerPool["_ContainerWorker"]):
    """Runs jobs in warm containers on a Docker engine of this machine.

    Args:
        workers: Number of warm containers (one worker each); one per core by default.
        preload: Modules every worker imports once (``python -m`` targets, harness entries).
        image: The name of an `images.RECIPES` entry, built on first use when missing; or
            an image already in the engine (``"repo/name:tag"``, e.g. a SWE-bench task's),
            used as it is: it needs ``/usr/bin/python3`` (3.10 or later) for the worker.
        view_binds: Folders of the image shown read-only in the sandbox's view besides its
            toolchain (an environment under ``/opt``, a checkout), where they exist.
        retries: How often a job is retried after an infrastructure fault (a container that
            died, a daemon that went away) before `SandboxError` is raised.
        base_url: The daemon's address (default: ``$DOCKER_HOST``, else the system daemon's
            socket, else the rootless daemon's; see `daemon_addresses`).
        memory_bytes: The largest memory limit a job may ask for; each container's memory
            limit (swap included) is this plus the worker's headroom.
        processes: The container's pids limit (jobs get their own, smaller one).
        build: Build a missing image (else raise `SandboxError`).
        start_daemon: Start ``dockerd`` when no daemon answers and it is installed (root
            only; see `start_daemon`), as the test suite does. It keeps running after
            `close`: ``stop_daemon(executor.daemon)`` stops one this executor started.
        uid_base: First of the unprivileged uids submissions run as (one per container),
            inside the container: a block of 512 past 2,000,000 by default, one below 65536
            where the daemon maps the container's uids (rootless Docker, userns-remap).
        security: What the containers are allowed. "codegym" (the default): every capability
            dropped but the five that building the full sandbox inside takes, and a seccomp
            profile that allows its namespace and mount calls, so the worker builds the
            `full` tier. "default": Docker's own defaults, as a plain ``docker run`` (or a
            Kubernetes pod) has them: its default capabilities and seccomp profile, which
            refuses namespaces, so the worker runs the `container` tier.
            "unconfined-seccomp": Docker's default capabilities without its seccomp profile
            (``--security-opt seccomp=unconfined``): the `userns` tier. Each worker probes
            its container and says which tier ran (`RunResult.isolation`).

    Attributes:
        container_root: The host uid and gid the containers' root runs as: root's under a
            system daemon, the caller's under its rootless one, None under userns-remap (a
            subordinate uid).
        open_socket: Whether the containers' root is another user than this process, so that
            the socket directory is opened to other users (and whoever connects is checked).
    """

    name = "docker"

    def __init__(
        self,
        workers: int | None = None,
        *,
        preload: Iterable[str] = (),
        image: str = "python",
        retries: int = 2,
        base_url: str | None = None,
        memory_bytes: int = 1 << 30,
        processes: int = 256,
        build: bool = True,
        uid_base: int | None = None,
        security: str = "codegym",
        view_binds: Iterable[str] = (),
        start_daemon: bool = False,
    ) -> None:
        if security not in SECURITY:
            raise ValueError(f"security must be one of {', '.join(SECURITY)}, got {security!r}")
        self.security = security
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.retries = retries
        self.memory_bytes = memory_bytes
        self.processes = processes
        self._claim_uids(uid_base)
        self.daemon = None
        if start_daemon and base_url in (None, f"unix://{SYSTEM_SOCKET}") and not daemon_answers(base_url):
            self.daemon = _launch_daemon()
        self.client = connect(base_url)
        self.container_root = container_root(self.client)
        self.open_socket = self.container_root is None or self.container_root[0] != os.geteuid()
        if uid_base is None and self.container_root != (0, 0):
            self.uid_base = mapped_uid_base(self.serial)
        if image in images.RECIPES:
            self.image = images.ensure(self.client, images.recipe(image), build=build)
        else:
            self.image = images.present(self.client, image)
        self.view_binds = tuple(view_binds)
        self.owner = owner_label()
        reap(self.client)
        self.preload: tuple[str, ...] = ()
        self.packages: dict[str, list[str]] = {}
        self.package_dirs: list[str] = []
        self._readable: set[str] = set()  # package directories the containers' root can read
        self.generation = 0
        self.cgroup_version = "unknown"
        self._init_pool()
        self._set_preload(tuple(dict.fromkeys(preload)))

    @property
    def cgroup(self) -> str:
        """The cgroup version enforcing job limits inside the containers (after a start)."""
        return self.cgroup_version

    def _set_preload(self, preload: tuple[str, ...]) -> None:
        packages = _package_paths(("codegym.executor._worker", *preload))
        dirs = sorted({p for paths in packages.values() for p in paths})
        package_dirs = [d for d in dirs if not any(d.startswith(o + "/") for o in dirs)]
        self._check_readable(package_dirs)
        self.preload, self.packages, self.package_dirs = preload, packages, package_dirs

    def _check_readable(self, directories: list[str]) -> None:
        """Raise `SandboxError` unless the containers' root can import from ``directories``."""
        for top in directories:
            if top in self._readable:
                continue
            path = unreadable(top, self.container_root)
            if path is not None:
                info = os.stat(path)
                who = "a subordinate uid" if self.container_root is None else f"host uid {self.container_root[0]}"
                raise SandboxError(
                    f"the docker backend's containers cannot read {path} (mode {stat.S_IMODE(info.st_mode):o}, "
                    f"owner {info.st_uid}:{info.st_gid}): their root runs as {who}, without CAP_DAC_OVERRIDE. "
                    f"Make it readable to all (chmod -R a+rX {top}), or install it where every user can read it"
                )
            self._readable.add(top)

    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        """Make workers import ``modules``; running containers restart at their next job."""
        missing = [m for m in modules if m not in self.preload]
        if missing:
            with self._lock:
                self._set_preload((*self.preload, *missing))
                self.generation += 1

    def start_container(self, index: int, directory: str, config: dict[str, Any]) -> Any:
        """Start one worker container (the `_ContainerWorker` connects to it)."""
        import json

        docker = _docker()
        volumes = {directory: {"bind": "/codegym/host", "mode": "rw"}}
        volumes.update({d: {"bind": d, "mode": "ro"} for d in self.package_dirs})
        memory = self.memory_bytes + MEMORY_HEADROOM
        try:
            return self.client.containers.run(
                self.image,
                # (-I, not -P: an image's python3 may predate 3.11; the script reads no environment)
                ["/usr/bin/python3", "-I", "-S", "-B", CONTAINER_SCRIPT, json.dumps(config)],
                name=f"codegym-{os.getpid()}-{self.serial}-{index}-{secrets.token_hex(3)}",
                labels={OWNER_LABEL: self.owner, EXECUTOR_LABEL: str(self.serial), USER_LABEL: str(os.geteuid())},
                detach=True,
                network_mode="none",
                read_only=True,
                # (in the `container` tier, no tmpfs is mounted per job: the steps' folders live
                # in the worker's own, which this bounds; Docker's default is noexec, which a
                # compiled program, or a workspace's test script, cannot run from)
                tmpfs={
                    "/run": "rw,nosuid,nodev,size=16m,mode=755",
                    "/codegym/root": f"rw,exec,nosuid,nodev,size={SCRATCH}",
                },
                volumes=volumes,
                **self._privileges(),
                pids_limit=self.processes,
                mem_limit=memory,
                memswap_limit=memory,
                cgroupns="private",
                hostname="codegym",
                user="0:0",
                environment={"PYTHONDONTWRITEBYTECODE": "1"},
            )
        except docker.errors.DockerException as e:
            raise WorkerFault(f"docker could not start a container: {e}") from e
        except Exception as e:  # the daemon went away: requests' connection errors
            raise WorkerFault(f"the Docker daemon did not answer: {e}") from e

    def _privileges(self) -> dict[str, Any]:
        """The containers' capabilities and seccomp profile (see ``security``)."""
        if self.security == "codegym":
            return {
                "security_opt": ["no-new-privileges", f"seccomp={seccomp_profile()}"],
                "cap_drop": ["ALL"],
                "cap_add": list(CAPABILITIES),
            }
        return {"security_opt": ["seccomp=unconfined"]} if self.security == "unconfined-seccomp" else {}

    def worker_pids(self) -> list[int]:
        """Host pids of the containers' init processes (for monitoring and fault tests)."""
        return [w.host_pid for w in self._pool if w.host_pid is not None]

    def containers(self) -> list[Any]:
        """This executor's containers that the daemon still knows."""
        return [
            c
            for c in codegym_containers(self.client)
            if c.labels.get(OWNER_LABEL) == self.owner and c.labels.get(EXECUTOR_LABEL) == str(self.serial)
        ]

    def _check(self, job: Job) -> None:
        largest = max(job.limits_of(step).memory_bytes for step in job.steps)
        if largest > self.memory_bytes:
            raise ValueError(
                f"a step asks for {largest} bytes of memory, more than this DockerExecutor's "
                f"memory_bytes={self.memory_bytes}"
            )

    def _new_worker(self, index: int) -> _ContainerWorker:
        return _ContainerWorker(self, index)

    def close(self) -> None:
        if not self._close_pool():
            return
        with contextlib.suppress(Exception):  # whatever a failed start left behind
            for container in self.containers():
                _remove(container)
        with contextlib.suppress(Exception):
            self.client.close()
