"""A pool of warm workers, each running one job at a time: what the local and docker
backends share. A worker fault means the job runs again on the next free worker; after
``retries`` more attempts it is an infrastructure failure (`SandboxError`), never a score.
"""

from __future__ import annotations

import abc
import atexit
import contextlib
import itertools
import logging
import os
import queue
import secrets
import threading
import time
import weakref
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Generic, Protocol, TypeVar

from codegym.error import SandboxError
from codegym.executor._wire import FrameReader, write_frame
from codegym.executor.base import Executor, Job, RunResult
from codegym.executor.workspace import (
    DISK_BYTES,
    IDLE_TIMEOUT_S,
    Changes,
    Layer,
    Snapshot,
    Workspace,
    WorkspaceLost,
    check_command,
)

logger = logging.getLogger(__name__)

# Each pool's submissions run as uids of a block of their own (RLIMIT_NPROC counts a uid's
# processes across namespaces, so two workers sharing a uid could starve each other's forks,
# and in the `container` tier a uid's processes are what a step's end kills): a block per
# (process id mod 200,000, a slot no other live pool of this process holds), the same for
# every backend. (32 slots of 512 uids per process stay below 2**32.)
UID_FLOOR = 2_000_000
UIDS_PER_POOL = 512
POOLS_PER_PROCESS = 32
PID_MODULUS = 200_000
_serials = itertools.count()
_slots_in_use: set[int] = set()
_slots_lock = threading.Lock()
DEADLINE_MARGIN_S = 10.0  # past the job's wall limits, a silent worker is taken for dead


class WorkerFault(Exception):
    """A worker died, hung or answered nonsense: retried, never scored."""


def call(fd: int, reader: FrameReader, kind: str, *body: Any, timeout_s: float) -> tuple[str, list[Any]]:
    """Send a request of ``kind`` to a warm worker over ``fd`` and read its reply from
    ``reader`` within ``timeout_s``: the reply's kind and body. Anything but a well-formed
    reply to this very request is a `WorkerFault`."""
    nonce = os.urandom(8)
    deadline = time.monotonic() + timeout_s
    try:
        write_frame(fd, (kind, nonce, *body))
    except OSError as e:
        raise WorkerFault(f"cannot send the {kind} request: {e}") from e
    try:
        reply = reader.read(deadline)
    except TimeoutError as e:
        raise WorkerFault("the worker missed its deadline") from e
    except (EOFError, OSError) as e:
        raise WorkerFault("the connection to the worker closed (it died)") from e
    if reply[0] == "crash":
        raise WorkerFault(f"the worker crashed:\n{reply[1]}")
    got_kind, got_nonce, *got_body = reply
    if got_nonce != nonce:
        raise WorkerFault(f"unexpected reply from the worker: {got_kind!r}")
    return got_kind, got_body


def deadline_of(job: Job) -> float:
    """How long a worker may take over ``job``: its wall limits and a margin."""
    return sum(job.limits_of(s).wall_s for s in job.steps) + DEADLINE_MARGIN_S


def request(fd: int, reader: FrameReader, job: Job) -> RunResult:
    """Run ``job`` on a warm worker (see `call`)."""
    kind, body = call(fd, reader, "job", job.to_wire(), timeout_s=deadline_of(job))
    if kind != "result":
        raise WorkerFault(f"unexpected reply from the worker: {kind!r}")
    return RunResult.from_wire(body[0])


class Worker(Protocol):
    index: int
    starts: int  # how often it was started: a workspace lives as long as one start
    lock: threading.Lock  # held while it runs a job or a workspace request
    sessions: set[str]  # the workspaces open on it (since its last start)

    def run(self, job: Job) -> RunResult: ...

    def connection(self) -> tuple[int, FrameReader] | None:
        """Its request descriptor and reply reader, while it runs."""
        ...

    def ensure_started(self) -> None:
        """Start it, or restart it if it runs with modules of an older preload."""
        ...

    def stop(self) -> None: ...

    def destroy(self) -> None: ...


W = TypeVar("W", bound=Worker)


class WorkerPool(Executor, Generic[W]):
    """`Executor` over ``workers`` warm workers that subclasses create with `_new_worker`.

    Subclasses call `_init_pool` in their constructor and `_close_pool` in `close`.
    """

    workers: int
    retries: int
    uid_base: int  # worker i's submissions run as uid ``uid_base + i``
    preload: tuple[str, ...]

    def _claim_uids(self, uid_base: int | None) -> None:
        """Number this pool and give it its block of submission uids (``uid_base`` if given)."""
        if self.workers > UIDS_PER_POOL:
            raise ValueError(f"at most {UIDS_PER_POOL} workers per pool, got {self.workers}")
        self.serial = next(_serials)
        slot = 0
        if uid_base is None:
            with _slots_lock:
                free = sorted(set(range(POOLS_PER_PROCESS)) - _slots_in_use)
                if not free:
                    raise SandboxError(
                        f"at most {POOLS_PER_PROCESS} worker pools may be open at once in one process; close one first"
                    )
                slot = free[0]
                _slots_in_use.add(slot)
            # Given back at close, or when a pool that never finished its constructor is gone.
            self._release_slot = weakref.finalize(self, _release, slot)
        block = (os.getpid() % PID_MODULUS) * POOLS_PER_PROCESS + slot
        self.uid_base = uid_base or UID_FLOOR + block * UIDS_PER_POOL

    def _init_pool(self) -> None:
        self._pid = os.getpid()  # its workers talk to this process only
        self.stats = {"jobs": 0, "retries": 0}
        self._lock = threading.Lock()
        self._pool: list[W] = []
        self._idle: queue.SimpleQueue[W] = queue.SimpleQueue()  # (get and put in C: on every job's path)
        self._threads: ThreadPoolExecutor | None = None
        self._closed = False
        _live.add(self)

    def submission_uids(self) -> set[int]:
        """The host uids submissions run as."""
        return {self.uid_base + i for i in range(self.workers)}

    @abc.abstractmethod
    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        """Make workers import ``modules``; running workers restart at their next job."""

    @abc.abstractmethod
    def _new_worker(self, index: int) -> W:
        """Worker ``index`` of the pool, not started yet (it starts on its first job)."""

    def _check(self, job: Job) -> None:
        """Refuse a job this backend cannot run (raises `ValueError`)."""

    def submit(self, job: Job) -> Future[RunResult]:
        self.ensure_preloaded(job.preload)
        self._check(job)
        return self._executor().submit(self._run, job)

    def run(self, job: Job) -> RunResult:
        self.ensure_preloaded(job.preload)
        self._check(job)
        self._start_pool()
        return self._run(job)

    def _executor(self) -> ThreadPoolExecutor:
        self._start_pool()
        assert self._threads is not None
        return self._threads

    def _start_pool(self) -> None:
        with self._lock:
            if self._closed:
                raise SandboxError(f"this {type(self).__name__} is closed")
            if os.getpid() != self._pid:
                raise SandboxError(
                    f"this {type(self).__name__} belongs to process {self._pid}, which this process was forked "
                    "from; two processes cannot share its workers. Make a new executor in this process "
                    "(codegym's shared executors, and envs that use them, do so by themselves)."
                )
            if self._pool:
                return
            self._pool = [self._new_worker(i) for i in range(self.workers)]
            self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix=f"codegym-{self.name}")
            for worker in self._pool:
                self._idle.put(worker)

    def _run(self, job: Job) -> RunResult:
        last: Exception | None = None
        for attempt in range(1, self.retries + 2):
            worker = self._idle.get()
            try:
                with worker.lock:  # (held by a workspace's request, at most)
                    try:
                        result = worker.run(job)
                    except WorkerFault:
                        worker.stop()
                        raise
            except WorkerFault as e:
                last = e
                self.stats["retries"] += 1
                logger.warning("%s worker %d fault (attempt %d): %s", self.name, worker.index, attempt, e)
                continue
            finally:
                self._idle.put(worker)
            self.stats["jobs"] += 1
            if (result.backend, result.attempts) == (self.name, attempt):
                return result
            return replace(result, backend=self.name, attempts=attempt)
        raise SandboxError(f"the job failed on {self.retries + 1} attempts; last fault: {last}") from last

    def open_workspace(
        self,
        layer: Layer,
        *,
        disk_bytes: int = DISK_BYTES,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        preload: Iterable[str] = (),
    ) -> Workspace:
        """A workspace on the worker that holds the fewest (see `codegym.executor.workspace`)."""
        if disk_bytes <= 0 or idle_timeout_s <= 0:
            raise ValueError(f"disk_bytes and idle_timeout_s must be positive, got {disk_bytes}, {idle_timeout_s}")
        self.ensure_preloaded(preload)
        self._start_pool()
        worker = min(self._pool, key=lambda w: (len(w.sessions), w.index))
        sid = secrets.token_hex(8)
        files = {path: bytes(content) for path, content in layer.files.items()}
        with worker.lock:
            try:
                worker.ensure_started()
            except WorkerFault as e:
                worker.stop()
                raise SandboxError(f"cannot start {self.name} worker {worker.index} for a workspace: {e}") from e
            workspace = _PinnedWorkspace(self, worker, sid, disk_bytes, layer, idle_timeout_s)
            opened = workspace.request("open", layer.key, files, layer.executables, disk_bytes, idle_timeout_s)
            workspace.workdir = str(opened[0])
            worker.sessions.add(sid)
        return workspace

    def _close_pool(self) -> bool:
        """Stop the threads and destroy the workers; False when already closed, or when the
        workers belong to the process this one was forked from (they are left to it)."""
        with self._lock:
            if self._closed:
                return False
            self._closed = True
            if os.getpid() != self._pid:
                return False
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
        for worker in self._pool:
            worker.destroy()
        if hasattr(self, "_release_slot"):
            self._release_slot()
        _live.discard(self)
        return True


class _PinnedWorkspace(Workspace):
    """A workspace of a `WorkerPool`: it lives in one worker, as long as that worker's
    current start."""

    def __init__(
        self, pool: WorkerPool[Any], worker: Worker, sid: str, disk_bytes: int, layer: Layer, idle_timeout_s: float
    ) -> None:
        self.pool = pool
        self.worker = worker
        self.id = sid
        self.disk_bytes = disk_bytes
        self.layer = layer
        self.idle_timeout_s = idle_timeout_s
        self.starts = worker.starts
        self.loaded = pool.preload
        self.closed = False

    def request(self, kind: str, *body: Any, timeout_s: float = DEADLINE_MARGIN_S) -> list[Any]:
        """Send a request about this workspace to its worker (whose lock the caller holds)."""
        worker = self.worker
        where = f"workspace {self.id} ({self.pool.name} worker {worker.index})"
        if self.closed:
            raise WorkspaceLost(f"{where} is closed")
        connection = worker.connection()
        if connection is None or worker.starts != self.starts:
            raise WorkspaceLost(f"{where} was lost: its worker stopped or restarted since it was opened")
        try:
            kind, reply = call(*connection, kind, self.id, *body, timeout_s=timeout_s)
        except WorkerFault as e:
            worker.stop()
            raise WorkspaceLost(f"{where} was lost: {e}") from e
        if kind == "refused":
            raise WorkspaceLost(f"{where}: {reply[0]}")
        return reply

    def run(self, job: Job) -> RunResult:
        check_command(job, self.loaded)
        with self.worker.lock:
            wire, self.used_bytes = self.request("run", job.to_wire(), timeout_s=deadline_of(job))
        result = RunResult.from_wire(wire)
        return result if result.backend == self.pool.name else replace(result, backend=self.pool.name)

    def reset(self) -> None:
        with self.worker.lock:
            self.request("reset")
        self.used_bytes = 0

    def snapshot(self) -> Snapshot:
        snapshot = Snapshot(secrets.token_hex(8), self.layer, self.disk_bytes, (self.worker, self.starts))
        with self.worker.lock:
            self.request("snapshot", snapshot.id)
        return snapshot

    def restore(self, snapshot: Snapshot) -> None:
        with self.worker.lock:
            self.request("restore", self._here(snapshot))
        self.layer = snapshot.layer

    def fork(self, snapshot: Snapshot | None = None) -> Workspace:
        taken = snapshot or self.snapshot()
        try:
            child = _PinnedWorkspace(self.pool, self.worker, secrets.token_hex(8), taken.disk_bytes, taken.layer,
                                     self.idle_timeout_s)  # fmt: skip
            child.workdir = self.workdir  # (its worker's)
            with self.worker.lock:
                child.request("fork", self._here(taken), taken.disk_bytes, self.idle_timeout_s)
                self.worker.sessions.add(child.id)
        finally:
            if snapshot is None:
                self.release(taken)
        return child

    def release(self, snapshot: Snapshot) -> None:
        worker, starts = self._owner(snapshot)
        with worker.lock, contextlib.suppress(WorkerFault):
            connection = worker.connection()
            if connection is not None and worker.starts == starts:  # (else it went with its worker)
                call(*connection, "release", "", snapshot.id, timeout_s=DEADLINE_MARGIN_S)

    def changes(self, snapshot: Snapshot) -> Changes:
        with self.worker.lock:
            files, executables = self.request("changes", self._here(snapshot))
        return Changes(files, tuple(executables))

    @staticmethod
    def _owner(snapshot: Snapshot) -> tuple[Worker, int]:
        owner = snapshot.owner
        if not (isinstance(owner, tuple) and len(owner) == 2 and isinstance(owner[1], int)):
            raise ValueError(f"snapshot {snapshot.id} is not a worker pool's (taken by another backend)")
        return owner[0], owner[1]

    def _here(self, snapshot: Snapshot) -> str:
        """``snapshot``'s id, where it lives on this workspace's worker (else `ValueError`)."""
        if self._owner(snapshot) != (self.worker, self.starts):
            raise ValueError(
                f"snapshot {snapshot.id} lives on another worker than workspace {self.id}: open a "
                "workspace there with executor.open_workspace(snapshot.layer.with_changes(changes)) instead"
            )
        return snapshot.id

    def close(self) -> None:
        if self.closed:
            return
        with self.worker.lock:
            try:
                if self.worker.starts == self.starts:
                    self.request("close")
            except WorkspaceLost:
                pass
            finally:
                self.closed = True
                self.worker.sessions.discard(self.id)


def _release(slot: int) -> None:
    with _slots_lock:
        _slots_in_use.discard(slot)


_live: weakref.WeakSet[WorkerPool] = weakref.WeakSet()
os.register_at_fork(after_in_child=_live.clear)  # a forked child never closes its parent's pools


@atexit.register
def _close_all() -> None:
    """Every pool still open at interpreter exit: workers (and containers) go with it."""
    for pool in list(_live):
        pool.close()
