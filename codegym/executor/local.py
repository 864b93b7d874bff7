"""The local backend: warm sandboxed workers on this machine, one per core, forking per job.

No daemon is needed. Each worker (see ``_worker.py``) isolates itself once with Linux
namespaces and a read-only view of the toolchain, imports what jobs need, then forks a fresh
confined process tree per job, so a job costs a few forks rather than an interpreter start.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import math
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, cast

from codegym.error import DependencyNotInstalled, SandboxError
from codegym.executor import _cgroup
from codegym.executor import isolation as _isolation
from codegym.executor._forkserver import SANDBOX_UID
from codegym.executor._isolate import out_of_tmp
from codegym.executor._pool import UIDS_PER_POOL, WorkerFault, WorkerPool, request
from codegym.executor._view import WARM_AFTER_S, toolchain, worker_config
from codegym.executor._wire import FrameReader
from codegym.executor.base import Job, RunResult

logger = logging.getLogger(__name__)
ROOT_PREFIX = "codegym-root-"  # a worker's folder: ROOT_PREFIX + "<owner pid>-<index>-<random>"

WORKER_SCRIPT = str(Path(__file__).with_name("_worker.py"))
# Files of the host's /etc that toolchains read; nothing else of /etc is visible.
ETC_ALLOWLIST = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
    "java-17-openjdk", "ssl", "R", "fonts", "mono",
)  # fmt: skip
MOUNT_TIMEOUT_S = 30.0
REAPER_TIMEOUT_S = 10.0  # for a stopped worker's reaper to kill and reap all it left
DEBUG_ENV = "CODEGYM_DEBUG"  # set: a worker that cannot start shows its traceback


def site_directories(modules: Iterable[str], *, needed_by: str, install: str) -> list[str]:
    """The directories ``modules`` are imported from (their site-packages), for an executor
    whose workers need packages of the virtual environment, which a worker's view leaves out:
    it binds them read-only and puts them on the workers' ``sys.path``. ``needed_by`` and
    ``install`` (how to get a missing one) word the error."""
    found = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise DependencyNotInstalled(f"{needed_by} needs {name!r}: {install}")
        directory = os.path.dirname(os.path.dirname(os.path.realpath(spec.origin)))
        if directory not in found:
            found.append(directory)
    return found


def _package_paths(modules: Iterable[str]) -> dict[str, list[str]]:
    """Search paths of every package on the way to ``modules`` (for the worker's stubs)."""
    packages: dict[str, list[str]] = {}
    for module in modules:
        parts = module.split(".")
        for depth in range(1, len(parts)):
            name = ".".join(parts[:depth])
            if name not in packages:
                spec = importlib.util.find_spec(name)
                if spec is None or spec.submodule_search_locations is None:
                    raise SandboxError(f"cannot preload {module!r}: {name!r} is not a package")
                packages[name] = [str(p) for p in spec.submodule_search_locations]
    return packages


def _view(preload: tuple[str, ...], prefix: str, site_packages: list[str]) -> dict[str, Any]:
    """What the worker binds into its file system view, and what it hides (``prefix`` and
    ``site_packages``: those of the interpreter it runs). Its site-packages are masked
    wherever they are (under /usr too, as a system-wide pip install puts them): the packages
    there may hold benchmark data, hidden tests among them, and neither the worker (which runs
    without ``site``) nor a submission needs them."""
    packages = _package_paths(("codegym.executor._worker", *preload))
    package_dirs = sorted({p for paths in packages.values() for p in paths})
    symlinks, binds = toolchain(ETC_ALLOWLIST)
    if not prefix.startswith("/usr/") and prefix != "/usr":
        binds.append((prefix, prefix))
    masks = list(site_packages)
    top_package_dirs = [d for d in package_dirs if not any(d.startswith(o + "/") for o in package_dirs)]
    shown = [d for d, _ in binds]
    binds += [(d, d) for d in top_package_dirs if not any(d.startswith(s + "/") for s in shown) or _inside(d, masks)]
    return {
        "packages": packages,
        "symlinks": symlinks,
        "binds": binds,
        "masks": masks,
        "hide": top_package_dirs,
    }


def _inside(path: str, folders: list[str]) -> bool:
    return any(path.startswith(folder + "/") for folder in folders)


def _etc_files(uid: int | None) -> dict[str, str]:
    user = uid if uid is not None else SANDBOX_UID
    return {
        "passwd": f"root:x:0:0:root:/root:/bin/sh\nsandbox:x:{user}:{user}:sandbox:/sandbox:/bin/sh\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        "group": f"root:x:0:\nsandbox:x:{user}:\nnogroup:x:65534:\n",
        "hosts": "127.0.0.1 localhost\n::1 localhost\n",
        "hostname": "codegym\n",
    }


class _WorkerProcess:
    """One warm worker: its process, its pipes and its cgroup."""

    def __init__(self, executor: LocalExecutor, index: int) -> None:
        self.executor = executor
        self.index = index
        self.process: subprocess.Popen[bytes] | None = None
        self.worker_pid: int | None = None  # (the process is the worker's reaper: see `_isolate.become_reaper`)
        self.generation = -1
        self.uid = executor.uid_base + index if executor.distinct_uids else None
        self.starts = 0
        self.lock = threading.Lock()
        self.sessions: set[str] = set()
        self.cgroup = _cgroup.WorkerCgroup.create(executor.cgroup_version, f"{os.getpid()}.{executor.serial}.{index}")
        self.root = tempfile.mkdtemp(
            prefix=f"{ROOT_PREFIX}{os.getpid()}-{index}-", dir=_scratch_parent(executor.isolation)
        )
        os.chmod(self.root, 0o755)  # (empty: the worker mounts its view on it, maybe as another user)
        self.ctl = -1
        self.reader: FrameReader | None = None
        self.fork_server: str | None = None  # the loop its fork server runs: "native" or "python"
        self.rehearsed: list[str] = []  # the preloaded modules whose rehearsal it ran

    def start(self) -> None:
        ex = self.executor
        if ex.isolation == "container" and self.uid is not None:
            # A new uid for each start: where a worker died, what its steps left was killed,
            # but their zombies are the container's init's to reap, which may never happen
            # (without --init), and they count against their uid's RLIMIT_NPROC.
            self.uid = ex.uid_base + (self.index + ex.workers * self.starts) % UIDS_PER_POOL
        self.starts += 1
        self.sessions = set()
        ctl_r, ctl_w = os.pipe()
        res_r, res_w = os.pipe()
        config = worker_config(
            ex.view,
            index=self.index,
            preload=ex.preload,
            ctl_fd=ctl_r,
            res_fd=res_w,
            root=self.root,
            uid=self.uid,
            etc=_etc_files(self.uid),
            cgroup={"version": self.cgroup.version, "paths": self.cgroup.paths},
            warm_after_s=ex.warm_after_s,
            isolation=ex.isolation,
            user_map=ex.report.user_map,
        )
        config["native_fork_server"] = ex.native_fork_server
        config["cpu"] = ex.cpus[self.index % len(ex.cpus)] if ex.cpus else None
        argv = [*ex.launcher, ex.python, "-s", "-S", "-B", "-P", WORKER_SCRIPT, json.dumps(config)]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
        with tempfile.TemporaryFile() as log:
            self.process = _spawner.popen(
                argv, pass_fds=(ctl_r, res_w), env=env, stdin=subprocess.DEVNULL,
                stdout=log, stderr=log, start_new_session=True,
            )  # fmt: skip
            os.close(ctl_r)
            os.close(res_w)
            self.ctl = ctl_w
            self.reader = FrameReader(res_r)
            try:
                kind, info = self._read(time.monotonic() + MOUNT_TIMEOUT_S)
            except WorkerFault as e:
                log.seek(0)
                self.stop()
                raise SandboxError(f"local worker {self.index} failed to start: {e}\n{log.read().decode()}") from e
            if kind != "ready":
                self.stop()
                log.seek(0)
                raise SandboxError(_start_failure(self.index, ex.isolation, str(info), log.read().decode()))
        self.generation = ex.generation
        self.worker_pid = _only_child(self.process.pid)
        self.fork_server = info["fork_server"]
        self.rehearsed = info["rehearsed"]

    @property
    def pid(self) -> int | None:
        """The worker's pid (not that of the reaper it runs under)."""
        return self.worker_pid or (self.process.pid if self.process else None)

    def ensure_started(self) -> None:
        if self.process is None or self.generation != self.executor.generation:
            self.stop()
            self.start()

    def connection(self) -> tuple[int, FrameReader] | None:
        return None if self.reader is None else (self.ctl, self.reader)

    def run(self, job: Job) -> RunResult:
        try:
            self.ensure_started()
        except SandboxError as e:  # (a passing fault, such as a full disk: retried like a crash)
            raise WorkerFault(str(e)) from e
        assert self.reader is not None
        return request(self.ctl, self.reader, job)

    def _read(self, deadline: float) -> Any:
        assert self.reader is not None
        try:
            return self.reader.read(deadline)
        except TimeoutError as e:
            raise WorkerFault("the worker missed its deadline") from e
        except EOFError as e:
            raise WorkerFault("the worker's pipe closed (it died)") from e

    def stop(self) -> None:
        self._stop_worker()
        if self.executor.isolation == "container" and self.uid is not None:
            _kill_every_process_of(self.uid)

    def _stop_worker(self) -> None:
        if self.ctl >= 0:
            with contextlib.suppress(OSError):
                os.close(self.ctl)
            self.ctl = -1
        if self.reader is not None:
            with contextlib.suppress(OSError):
                os.close(self.reader.fd)
            self.reader = None
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):  # its reaper: it kills the worker, then reaps all
                os.kill(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(REAPER_TIMEOUT_S)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, 9)
            self.process.wait()
            self.process = None
            self.worker_pid = None

    def destroy(self) -> None:
        self.stop()
        self.cgroup.remove()
        shutil.rmtree(self.root, ignore_errors=True)


class _Spawner:
    """Starts the workers from one thread that lives as long as this process. A worker asks to
    be killed when its parent dies (PR_SET_PDEATHSIG), and to the kernel its parent is the
    *thread* that forked it: a worker started from a short-lived thread (``asyncio.to_thread``,
    a thread per request) would die with that thread, its workspaces with it."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[Future[subprocess.Popen[bytes]], tuple[Any, ...], dict[str, Any]]]
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(*args, **kwargs)``, from the spawning thread."""
        with self._lock:
            if self._thread is None:
                self._requests = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._serve, name="codegym-spawner", daemon=True)
                self._thread.start()
            future: Future[subprocess.Popen[bytes]] = Future()
            self._requests.put((future, args, kwargs))
        return future.result()

    def _serve(self) -> None:
        while True:
            future, args, kwargs = self._requests.get()
            try:
                future.set_result(cast("subprocess.Popen[bytes]", subprocess.Popen(*args, **kwargs)))
            except BaseException as e:
                future.set_exception(e)

    def _forget(self) -> None:
        self._thread = None  # (a forked child has no such thread)
        self._lock = threading.Lock()


_spawner = _Spawner()


def _kill_every_process_of(uid: int) -> None:
    """SIGKILL every process of ``uid``: in the `container` tier, where no pid namespace
    dies with a worker, what its steps left must not outlive it. (A shell's kill -1 as that
    uid reaches every process of it but itself.)"""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        kill = ["sh", "-c", "kill -9 -1"]  # (with none left it says "No such process": not the caller's to read)
        subprocess.run(kill, user=uid, group=uid, extra_groups=[], timeout=10, check=False, capture_output=True)


def _only_child(pid: int) -> int | None:
    """The one child of process ``pid`` (a worker's reaper: the worker), or None."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = handle.read().split()
    except OSError:  # (a kernel without CONFIG_PROC_CHILDREN)
        return None
    return int(children[0]) if len(children) == 1 else None


def reap_stale_roots(parent: str) -> list[str]:
    """Remove the worker folders in ``parent`` of codegym processes that died without
    removing them (killed by SIGKILL, say): those named for a pid no process has, and owned
    by this process's user. Returns the folders removed."""
    removed = []
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        for entry in entries:
            owner = entry.name.removeprefix(ROOT_PREFIX).split("-", 1)[0]
            if not entry.name.startswith(ROOT_PREFIX) or not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.geteuid():
                    shutil.rmtree(entry.path)
                    removed.append(entry.path)
    return removed


def _scratch_parent(tier: str) -> str | None:
    """Where a worker's folder goes: the temp dir (None). In the `container` tier, where the
    steps' files live in it and the programs they build run from it, the first of the temp
    dir, /var/tmp and /dev/shm that is writable and lets programs run (Docker mounts its
    /dev/shm noexec, and 64 MiB shared by every worker); the supervisor holds each job to
    its disk quota there (see `_worker.DiskQuota`)."""
    if tier != "container":
        return None
    for folder in (tempfile.gettempdir(), "/var/tmp", "/dev/shm"):
        if os.path.isdir(folder) and os.access(folder, os.W_OK) and not os.statvfs(folder).f_flag & os.ST_NOEXEC:
            return folder
    logger.warning("no writable folder here lets programs run (noexec): compiled programs will fail to start")
    return None


def _start_failure(index: int, tier: str, trace: str, log: str) -> str:
    """A worker's failure to build its sandbox, in plain words: its last error, what to do,
    and the traceback (with what the worker's processes wrote) only when asked for
    (``$CODEGYM_DEBUG``)."""
    trace = f"{trace}\n{log}".strip()
    logger.debug("local worker %d could not build its %s sandbox:\n%s", index, tier, trace)
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "(no message)"
    message = (
        f"local worker {index} could not build its {tier!r} sandbox: {last}\n"
        "Run `codegym doctor` to see which isolation tiers this machine allows and what would "
        f"enable the others; LocalExecutor(isolation=...) or ${_isolation.ENV_VAR} picks one."
    )
    if os.environ.get(DEBUG_ENV):
        return f"{message}\n\nThe worker's traceback:\n{trace}"
    return f"{message} Set {DEBUG_ENV}=1 to see the worker's traceback."


class LocalExecutor(WorkerPool["_WorkerProcess"]):
    """Runs jobs in warm sandboxed workers on this machine.

    Args:
        workers: Number of workers; one per core by default.
        preload: Modules every worker imports once (``python -m`` targets, harness entries).
        retries: How often a job is retried after an infrastructure fault before
            `SandboxError` is raised.
        uid_base: First of the unprivileged uids the submissions run as (one per worker).
        native_fork_server: Run each worker's fork server loop, and each step process's
            confinement, in C where it is built (``codegym/executor/_forkcore.c``); False
            runs the Python they mirror.
        warm_after_s: How long a worker waits idle for its next job before its spare runs
            the preloaded modules' ``warm_up()`` (see `Job.preload`); None: never. A job
            that comes sooner (the machine is busy) gets a spare that has not warmed up.
        pin_workers: Keep each worker, and every process it starts, on one CPU of those
            this process may use (worker i on the i-th, round robin): a step's hand-offs
            between its processes then stay on one warm core, and one worker's cleanup
            (killing the last step, forking the next spare) does not compete with another
            worker's step. For a machine the pool has to itself: a pinned worker cannot
            move away from a core that something else keeps busy (a trainer thread that
            spins while it waits for its GPU), and its steps then wait for that core.
        isolation: The sandbox's tier (`codegym.executor.isolation`): "full", "userns",
            "container", or "auto" (None: ``$CODEGYM_ISOLATION``, else "auto"), the strongest
            this machine allows. A named tier that is not available raises `SandboxError`,
            which says why and what would enable it.
        launcher: A command the workers are started through, such as ``("setpriv",
            "--reuid=1001", ...)``: to run them with fewer privileges than this process has.
            The machine is probed through it too.
        python: The interpreter the workers run (default: this one). It must be reachable
            by whoever ``launcher`` makes them.
    """

    name = "local"

    def __init__(
        self,
        workers: int | None = None,
        *,
        preload: Iterable[str] = (),
        retries: int = 2,
        uid_base: int | None = None,
        native_fork_server: bool = True,
        warm_after_s: float | None = WARM_AFTER_S,
        pin_workers: bool = False,
        isolation: str | None = None,
        launcher: Iterable[str] = (),
        python: str | None = None,
    ) -> None:
        if sys.platform != "linux":
            raise SandboxError(f"the local backend needs Linux, not {sys.platform}")
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.retries = retries
        self.native_fork_server = native_fork_server
        if warm_after_s is not None and not 0 <= warm_after_s < math.inf:
            raise ValueError(f"warm_after_s must be a finite number of seconds >= 0 or None, got {warm_after_s}")
        self.warm_after_s = warm_after_s
        # Worker i's CPU is cpus[i % len(cpus)], when pinned.
        self.cpus: tuple[int, ...] = tuple(sorted(os.sched_getaffinity(0))) if pin_workers else ()
        self.launcher = tuple(launcher)
        self.python = python or sys.executable
        self.report = _isolation.probe(python, self.launcher)
        self.isolation: _isolation.Tier = _isolation.choose(isolation, self.report)
        # Each worker's submissions get a uid of their own, unless a plain user's worker has
        # only its own (they then run as SANDBOX_UID of a nested user namespace).
        self.distinct_uids = self.isolation != "userns" or self.report.user_map == "identity"
        self._claim_uids(uid_base)
        self.preload: tuple[str, ...] = tuple(dict.fromkeys(preload))
        self.view = self._view()
        self.generation = 0
        self.cgroup_version = self.report.cgroup
        self._init_pool()
        if self.cgroup_version != "none":  # (else none of codegym's cgroups is ours to remove)
            _cgroup.reap_stale()
        reap_stale_roots(_scratch_parent(self.isolation) or tempfile.gettempdir())

    @property
    def cgroup(self) -> str:
        """The cgroup version enforcing memory and process limits ("v1", "v2" or "none")."""
        return self.cgroup_version

    def submission_uids(self) -> set[int]:
        """The host uids submissions run as (a plain user's own, in `userns`; in `container`,
        any of the pool's block: a restarted worker takes a new one)."""
        if self.isolation == "container":
            return set(range(self.uid_base, self.uid_base + UIDS_PER_POOL))
        if self.distinct_uids:
            return super().submission_uids()
        return {int(self.report.facts["euid"])}

    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        """Make workers import ``modules``; running workers restart at their next job."""
        missing = [m for m in modules if m not in self.preload]
        if missing:
            with self._lock:
                self.preload = (*self.preload, *missing)
                self.view = self._view()
                self.generation += 1

    def _view(self) -> dict[str, Any]:
        facts = self.report.facts
        return _view(self.preload, facts["python_prefix"], facts["site_packages"])

    def path_in_view(self, path: str) -> str:
        """Where a step finds ``path``, a file or folder of this machine that the view binds
        (the toolchain, a ``python_path`` folder): at the same path below ``/.from-tmp`` when
        it lies under /tmp, for each job's /tmp is its own and empty; else at ``path`` itself
        (always, in the `container` tier, whose steps reach the machine's files in place)."""
        return path if self.isolation == "container" else out_of_tmp(path)

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (for monitoring and fault-injection tests)."""
        return [w.pid for w in self._pool if w.pid is not None]

    def _new_worker(self, index: int) -> _WorkerProcess:
        return _WorkerProcess(self, index)

    def close(self) -> None:
        self._close_pool()
