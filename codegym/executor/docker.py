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
process); they are removed on `close`, at interpreter exit, and, after a crash of the owner,
by the reaper that every new `DockerExecutor` runs first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegym.error import DependencyNotInstalled, SandboxError
from codegym.executor import images
from codegym.executor._pool import WorkerFault, WorkerPool, request
from codegym.executor._wire import FrameReader
from codegym.executor.base import Job, RunResult
from codegym.executor.local import ETC_ALLOWLIST, _etc_files, _package_paths

logger = logging.getLogger(__name__)

CONTAINER_SCRIPT = str(Path(__file__).with_name("_container.py"))
WORKER_SCRIPT = str(Path(__file__).with_name("_worker.py"))
OWNER_LABEL = "codegym.owner"
EXECUTOR_LABEL = "codegym.executor"  # tells apart the executors of one process
# What building the per-job sandbox inside the container needs, and nothing else:
# SYS_ADMIN (namespaces, mounts, pivot_root), SETUID/SETGID (drop to the job's uid),
# CHOWN (hand the job its files), KILL (pid 1 of a job kills what the job left behind).
CAPABILITIES = ("SYS_ADMIN", "SETUID", "SETGID", "CHOWN", "KILL")
START_TIMEOUT_S = 60.0
DAEMON_TIMEOUT_S = 30.0
MEMORY_HEADROOM = 256 << 20  # the worker's own processes, above the largest job
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


def connect(base_url: str | None = None) -> Any:
    """A docker client that has answered a ping, or `SandboxError`."""
    docker = _docker()
    where = base_url or os.environ.get("DOCKER_HOST") or "the default socket"
    try:
        client = docker.DockerClient(base_url=base_url, timeout=60) if base_url else docker.from_env(timeout=60)
        client.ping()
    except Exception as e:
        raise SandboxError(f"cannot reach the Docker daemon at {where}: {e}") from e
    return client


def daemon_answers(base_url: str | None = None) -> bool:
    try:
        connect(base_url).close()
    except SandboxError:
        return False
    return True


def start_daemon(log_path: str | None = None, timeout_s: float = DAEMON_TIMEOUT_S) -> subprocess.Popen[bytes] | None:
    """Start ``dockerd`` on the default socket unless a daemon already answers.

    Returns the daemon's process when this call started it (stop it with `stop_daemon`),
    None when one was running. The daemon runs without bridge networking: codegym's
    containers have no network at all.
    """
    if daemon_answers():
        return None
    if shutil.which("dockerd") is None:
        raise SandboxError("no Docker daemon answers and dockerd is not installed (apt-get install docker.io)")
    if os.geteuid() != 0:
        raise SandboxError("no Docker daemon answers, and starting dockerd needs root")
    log_path = log_path or os.path.join(tempfile.gettempdir(), "codegym-dockerd.log")
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            ["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if daemon_answers():
            return process
        if process.poll() is not None:  # another daemon may hold the pid file and be starting
            if daemon_answers():
                return None
            break
        time.sleep(0.2)
    stop_daemon(process)
    with open(log_path, "rb") as log:
        tail = log.read()[-3000:].decode(errors="replace")
    raise SandboxError(f"dockerd did not come up within {timeout_s:.0f} s; its log ({log_path}) ends:\n{tail}")


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
    """Remove the containers of codegym processes that died without removing them."""
    removed = 0
    for container in codegym_containers(client):
        if not owner_alive(container.labels.get(OWNER_LABEL, "")):
            _remove(container)
            removed += 1
    return removed


def _remove(container: Any) -> None:
    docker = _docker()
    with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
        container.remove(force=True)


class _ContainerWorker:
    """One warm container with its worker, its socket directory and its connection."""

    def __init__(self, executor: DockerExecutor, index: int) -> None:
        self.executor = executor
        self.index = index
        self.uid = executor.uid_base + index
        self.generation = -1
        self.container: Any = None
        self.connection: socket.socket | None = None
        self.reader: FrameReader | None = None
        self.host_pid: int | None = None
        self.fork_server: str | None = None  # the loop its fork server runs: "native" or "python"
        self.rehearsed: list[str] = []  # the preloaded modules whose rehearsal it ran
        self.directory = tempfile.mkdtemp(prefix=f"codegym-docker-{index}-")

    def start(self) -> None:
        ex = self.executor
        path = os.path.join(self.directory, "worker.sock")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            listener.listen(1)
            self.container = ex.start_container(self.index, self.directory, self._config())
            self.connection = self._accept(listener, time.monotonic() + START_TIMEOUT_S)
        finally:
            listener.close()
        self.reader = FrameReader(self.connection.fileno())
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
            connection.setblocking(True)
            return connection
        raise WorkerFault(f"the container did not connect within {START_TIMEOUT_S:.0f} s:\n{self._logs()}")

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

    def run(self, job: Job) -> RunResult:
        if self.container is None or self.generation != self.executor.generation:
            self.stop()
            self.start()
        assert self.connection is not None and self.reader is not None
        return request(self.connection.fileno(), self.reader, job)

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
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
        image: The name of an `images.RECIPES` entry; built on first use when missing.
        retries: How often a job is retried after an infrastructure fault (a container that
            died, a daemon that went away) before `SandboxError` is raised.
        base_url: The daemon's address (default: ``$DOCKER_HOST`` or the local socket).
        memory_bytes: The largest memory limit a job may ask for; each container's memory
            limit (swap included) is this plus the worker's headroom.
        processes: The container's pids limit (jobs get their own, smaller one).
        build: Build a missing image (else raise `SandboxError`).
        uid_base: First of the unprivileged uids submissions run as (one per container).
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
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.retries = retries
        self.memory_bytes = memory_bytes
        self.processes = processes
        self._claim_uids(uid_base)
        self.client = connect(base_url)
        self.image = images.ensure(self.client, images.recipe(image), build=build)
        self.owner = owner_label()
        reap(self.client)
        self.preload: tuple[str, ...] = ()
        self.packages: dict[str, list[str]] = {}
        self.package_dirs: list[str] = []
        self.generation = 0
        self.cgroup_version = "unknown"
        self._init_pool()
        self._set_preload(tuple(dict.fromkeys(preload)))

    @property
    def cgroup(self) -> str:
        """The cgroup version enforcing job limits inside the containers (after a start)."""
        return self.cgroup_version

    def _set_preload(self, preload: tuple[str, ...]) -> None:
        self.preload = preload
        self.packages = _package_paths(("codegym.executor._worker", *preload))
        dirs = sorted({p for paths in self.packages.values() for p in paths})
        self.package_dirs = [d for d in dirs if not any(d.startswith(o + "/") for o in dirs)]

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
                ["/usr/bin/python3", "-s", "-S", "-B", "-P", CONTAINER_SCRIPT, json.dumps(config)],
                name=f"codegym-{os.getpid()}-{self.serial}-{index}-{secrets.token_hex(3)}",
                labels={OWNER_LABEL: self.owner, EXECUTOR_LABEL: str(self.serial)},
                detach=True,
                network_mode="none",
                read_only=True,
                tmpfs={"/run": "rw,nosuid,nodev,size=16m,mode=755"},
                volumes=volumes,
                security_opt=["no-new-privileges", f"seccomp={seccomp_profile()}"],
                cap_drop=["ALL"],
                cap_add=list(CAPABILITIES),
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
