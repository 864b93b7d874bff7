"""The ray backend: jobs spread over a Ray cluster, each node running the local backend.

`RayExecutor` places ``nodes`` actors on the cluster (spread over its machines), each holding a
`LocalExecutor` with ``workers_per_node`` warm workers, and sends every job to an actor with a
free worker. The number of jobs in flight is bounded (`submit` blocks when it is reached: the
trainer feeding jobs is slowed down rather than Ray's queues filled), every job has a deadline
(its steps' wall limits plus a margin), and an actor or node lost mid-job, or one that misses
the deadline, means the job is retried elsewhere, never a wrong grade. Ray restarts lost
actors. Results are exactly the local backend's, with ``backend="ray"``. A workspace lives in one
actor (and is lost with it).

Ray is imported only when a `RayExecutor` is built.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from codegym.error import DependencyNotInstalled, SandboxError
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

DEADLINE_MARGIN_S = 30.0  # on top of the job's wall limits: queueing in the actor, a worker start
RESTART_WAIT_S = 120.0  # for a lost actor to come back before the job is retried
WORKSPACE_CALLS = 16  # an actor's calls from workspaces at once, beside its jobs
LOCAL_CLUSTER = {
    "num_cpus": 2,
    "include_dashboard": False,
    "object_store_memory": 80 << 20,
    "log_to_driver": False,
    "configure_logging": False,
    "_node_ip_address": "127.0.0.1",
}


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise DependencyNotInstalled('the ray backend needs Ray: pip install "codegym[ray]"') from e
    return ray


class Node:
    """The actor behind one slot of the cluster: a `LocalExecutor` on whatever machine Ray
    placed it. Infrastructure errors come back as values, so the driver decides."""

    def __init__(self, workers: int, preload: tuple[str, ...]) -> None:
        from codegym.executor.local import LocalExecutor

        self.executor = LocalExecutor(workers=workers, preload=preload)
        self.workspaces: dict[str, Workspace] = {}
        self.snapshots: dict[str, tuple[Snapshot, Workspace]] = {}  # id -> (it, the workspace that took it)

    def run(self, job: Job) -> tuple[str, Any]:
        try:
            return "result", self.executor.run(job)
        except SandboxError as e:
            return "error", str(e)

    def pid(self) -> int:
        return os.getpid()

    def describe(self) -> dict[str, Any]:
        """Facts the driver reports: the machine, cgroup version, pids and uids of workers."""
        self.executor._start_pool()
        return {
            "pid": os.getpid(),
            "host": os.uname().nodename,
            "node": _ray().get_runtime_context().get_node_id(),
            "cgroup": self.executor.cgroup,
            "worker_pids": self.executor.worker_pids(),
            "uids": sorted(self.executor.submission_uids()),
        }

    def preload(self, modules: tuple[str, ...]) -> None:
        self.executor.ensure_preloaded(modules)

    def open_workspace(
        self, layer: Layer, disk_bytes: int, idle_timeout_s: float, preload: tuple[str, ...]
    ) -> tuple[str, Any]:
        try:
            workspace = self.executor.open_workspace(
                layer, disk_bytes=disk_bytes, idle_timeout_s=idle_timeout_s, preload=preload
            )
        except SandboxError as e:
            return "error", str(e)
        self.workspaces[workspace.id] = workspace
        return "ok", (workspace.id, workspace.workdir)

    def workspace(self, sid: str, method: str, *args: Any) -> tuple[str, Any]:
        """Call ``method`` of workspace ``sid``: ("ok", value), or ("lost" | "error", why).
        ``snapshot`` returns the snapshot's id (it stays here) and ``restore`` and ``changes``
        take one."""
        workspace = self.workspaces.get(sid)
        if workspace is None:
            return "lost", "the actor holding it restarted"
        try:
            if method == "close":
                del self.workspaces[sid]
            if method in ("restore", "changes"):
                if args[0] not in self.snapshots:
                    return "lost", f"no snapshot {args[0]!r} on this actor (released, or the actor restarted)"
                args = (self.snapshots[args[0]][0],)
            value = getattr(workspace, method)(*args)
            if isinstance(value, Snapshot):
                self.snapshots[value.id] = (value, workspace)
                value = value.id
        except WorkspaceLost as e:
            return "lost", str(e)
        except SandboxError as e:
            return "error", str(e)
        return "ok", (value, workspace.used_bytes)

    def snapshot(self, method: str, snap: str) -> tuple[str, Any]:
        """``fork`` (a new workspace's id) or ``release`` the snapshot ``snap``, whether or not
        the workspace that took it is still open."""
        if snap not in self.snapshots:
            return ("ok", (None, 0)) if method == "release" else ("lost", f"no snapshot {snap!r} on this actor")
        snapshot, taker = self.snapshots[snap]
        try:
            if method == "release":
                del self.snapshots[snap]
                taker.release(snapshot)
                return "ok", (None, 0)
            child = taker.fork(snapshot)
        except WorkspaceLost as e:
            return "lost", str(e)
        except SandboxError as e:
            return "error", str(e)
        self.workspaces[child.id] = child
        return "ok", (child.id, 0)

    def close(self) -> None:
        """Stop the workers and remove their cgroups and scratch dirs before the actor goes."""
        self.executor.close()


class _Lost(Exception):
    """The actor died, its node went away, or it missed the job's deadline: retry."""


class RayExecutor(Executor):
    """Runs jobs on a Ray cluster, each node using the local backend.

    Args:
        address: The cluster: None starts a small local one (2 CPUs, no dashboard, bound to
            127.0.0.1) unless Ray is already initialised in this process or ``$RAY_ADDRESS``
            names a cluster; ``"auto"`` joins the cluster this
            machine belongs to; ``"ray://host:10001"`` connects a client to a remote one.
        nodes: Number of actors (each with its own local workers); Ray spreads them over
            the cluster's machines.
        workers_per_node: Warm local workers in each actor, and the jobs it runs at once.
        preload: Modules every worker imports once.
        retries: How often a job whose actor was lost (or missed its deadline) is retried
            before `SandboxError` is raised.
        max_in_flight: Jobs submitted but not finished; `submit` blocks beyond it. Twice the
            cluster's worker slots by default.
        cpus_per_node: CPUs Ray reserves for each actor (``workers_per_node`` by default).
        deadline_margin_s: Added to a job's wall limits to make its deadline; an actor that
            misses it is killed (Ray restarts it) and the job retried.
        init: Extra ``ray.init`` arguments.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        nodes: int = 2,
        workers_per_node: int = 1,
        preload: Iterable[str] = (),
        retries: int = 2,
        max_in_flight: int | None = None,
        cpus_per_node: float | None = None,
        deadline_margin_s: float = DEADLINE_MARGIN_S,
        init: dict[str, Any] | None = None,
    ) -> None:
        ray = _ray()
        if nodes < 1 or workers_per_node < 1:
            raise ValueError(f"nodes and workers_per_node must be at least 1, got {nodes} and {workers_per_node}")
        self.nodes = nodes
        self.workers_per_node = workers_per_node
        self.workers = nodes * workers_per_node
        self.retries = retries
        self.deadline_margin_s = deadline_margin_s
        self.preload: tuple[str, ...] = tuple(dict.fromkeys(preload))
        self.stats = {"jobs": 0, "retries": 0}
        self.started_ray = False
        address = address or os.environ.get("RAY_ADDRESS") or None
        if not ray.is_initialized():
            options = dict(LOCAL_CLUSTER) if address is None else {}
            options.update(init or {})
            try:
                ray.init(address=address, **options)
            except Exception as e:
                raise SandboxError(f"cannot start or reach the Ray cluster at {address or 'local'}: {e}") from e
            self.started_ray = True
        # + 1: describe/pid calls next to jobs
        concurrency = workers_per_node + 1 + WORKSPACE_CALLS
        self._actor_class = ray.remote(max_restarts=-1, max_task_retries=0, max_concurrency=concurrency)(Node)
        self._cpus = workers_per_node if cpus_per_node is None else cpus_per_node
        self._actors = [self._new_actor() for _ in range(nodes)]
        self._slots: queue.Queue[int] = queue.Queue()
        for _ in range(workers_per_node):
            for index in range(nodes):
                self._slots.put(index)
        slots = nodes * workers_per_node
        self.max_in_flight = max_in_flight or 2 * slots
        self._in_flight = threading.BoundedSemaphore(self.max_in_flight)
        self._threads = ThreadPoolExecutor(slots, thread_name_prefix="codegym-ray")
        self._lock = threading.Lock()
        self._closed = False
        self._facts: list[dict[str, Any]] | None = None
        self._workspaces = [0] * nodes  # open on each actor

    def _new_actor(self) -> Any:
        return self._actor_class.options(num_cpus=self._cpus, scheduling_strategy="SPREAD").remote(
            self.workers_per_node, self.preload
        )

    def _call(self, actor: Any, method: str, *args: Any, timeout_s: float = 120.0) -> Any:
        ray = _ray()
        reference = getattr(actor, method).remote(*args)
        try:
            return ray.get(reference, timeout=timeout_s)
        except ray.exceptions.GetTimeoutError as e:
            raise _Lost(f"the actor missed its {timeout_s:.0f} s deadline") from e
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as e:
            raise _Lost(f"the actor was lost: {type(e).__name__}") from e
        except ray.exceptions.RaySystemError as e:
            raise _Lost(f"Ray failed: {e}") from e

    def _call_patiently(self, actor: Any, method: str, *args: Any, timeout_s: float = RESTART_WAIT_S) -> Any:
        """`_call`, waiting for an actor that Ray is restarting to come back (for calls that
        may run again: a lost actor's state is gone with it)."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return self._call(actor, method, *args, timeout_s=max(0.1, deadline - time.monotonic()))
            except _Lost:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.2)

    def describe(self) -> list[dict[str, Any]]:
        """One entry per actor: its node, host, pid, cgroup version, worker pids and uids."""
        return [self._call_patiently(actor, "describe") for actor in self._actors]

    @property
    def cgroup(self) -> str:
        """The cgroup version enforcing limits on the first actor's machine."""
        if self._facts is None:
            self._facts = self.describe()
        return self._facts[0]["cgroup"]

    def actor_pids(self, timeout_s: float = 120.0) -> list[int]:
        """Pids of the actors that answer within ``timeout_s`` (for fault-injection tests
        on a local cluster; a restarting actor is left out)."""
        pids = []
        for actor in self._actors:
            with contextlib.suppress(_Lost):
                pids.append(self._call(actor, "pid", timeout_s=timeout_s))
        return pids

    def worker_pids(self) -> list[int]:
        """Pids of the local workers of every actor."""
        return [pid for facts in self.describe() for pid in facts["worker_pids"]]

    def submission_uids(self) -> set[int]:
        """The uids submissions run as, on every actor's machine."""
        return {uid for facts in self.describe() for uid in facts["uids"]}

    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        """Make every actor's workers import ``modules`` (a restarted actor imports a job's
        ``preload`` when the job arrives)."""
        missing = tuple(m for m in modules if m not in self.preload)
        if missing:
            with self._lock:
                self.preload = (*self.preload, *missing)
            for actor in self._actors:
                with contextlib.suppress(_Lost):
                    self._call(actor, "preload", missing)

    def submit(self, job: Job) -> Future[RunResult]:
        if self._closed:
            raise SandboxError("this RayExecutor is closed")
        self.ensure_preloaded(job.preload)
        self._in_flight.acquire()  # back-pressure: wait for a finished job
        try:
            future = self._threads.submit(self._run, job)
        except BaseException:
            self._in_flight.release()
            raise
        future.add_done_callback(lambda _: self._in_flight.release())
        return future

    def _run(self, job: Job) -> RunResult:
        deadline_s = sum(job.limits_of(s).wall_s for s in job.steps) + self.deadline_margin_s
        last: Exception | None = None
        for attempt in range(1, self.retries + 2):
            index = self._slots.get()
            try:
                kind, value = self._call(self._actors[index], "run", job, timeout_s=deadline_s)
            except _Lost as e:
                last = e
                self.stats["retries"] += 1
                logger.warning("ray actor %d lost a job (attempt %d): %s", index, attempt, e)
                # The retry takes the next free slot (a live actor when there is one); this
                # one comes back once its actor answers again.
                threading.Thread(target=self._recover, args=(index, e), daemon=True).start()
                continue
            except BaseException:
                self._slots.put(index)
                raise
            self._slots.put(index)
            if kind == "error":
                raise SandboxError(value)
            self.stats["jobs"] += 1
            return replace(value, backend=self.name, attempts=value.attempts + attempt - 1)
        raise SandboxError(f"the job failed on {self.retries + 1} attempts; last fault: {last}") from last

    def _recover(self, index: int, fault: _Lost) -> None:
        """Kill an actor that missed a deadline (Ray restarts it with fresh workers), wait
        until the actor answers again (Ray restarts lost ones, on another node if its own is
        gone), then give its slot back."""
        try:
            if "deadline" in str(fault):
                with contextlib.suppress(Exception):
                    _ray().kill(self._actors[index], no_restart=False)
            deadline = time.monotonic() + RESTART_WAIT_S
            while time.monotonic() < deadline and not self._closed:
                try:
                    self._call(self._actors[index], "pid", timeout_s=2.0)
                    return
                except _Lost:
                    time.sleep(0.2)
        except Exception:  # Ray shut down under us: nothing to recover
            return
        finally:
            self._slots.put(index)

    def open_workspace(
        self,
        layer: Layer,
        *,
        disk_bytes: int = DISK_BYTES,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        preload: Iterable[str] = (),
    ) -> Workspace:
        """A workspace on the actor that holds the fewest (see `codegym.executor.workspace`);
        an actor that Ray is restarting is waited for."""
        if self._closed:
            raise SandboxError("this RayExecutor is closed")
        self.ensure_preloaded(preload)
        with self._lock:
            index = min(range(self.nodes), key=lambda i: (self._workspaces[i], i))
            self._workspaces[index] += 1
        try:
            kind, value = self._call_patiently(self._actors[index], "open_workspace", layer, disk_bytes, idle_timeout_s,
                                               self.preload)  # fmt: skip
        except _Lost as e:
            kind, value = "error", str(e)
        if kind != "ok":
            self._workspaces[index] -= 1
            raise SandboxError(f"cannot open a workspace on ray actor {index}: {value}")
        sid, workdir = value
        workspace = _ActorWorkspace(self, index, sid, disk_bytes, layer)
        workspace.workdir = workdir
        return workspace

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._threads.shutdown(wait=True, cancel_futures=True)
        ray = _ray()
        closing = [actor.close.remote() for actor in self._actors]
        with contextlib.suppress(Exception):
            ray.wait(closing, num_returns=len(closing), timeout=10.0)
        for actor in self._actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False


class _ActorWorkspace(Workspace):
    """A workspace of a `RayExecutor`: it lives in one actor's local executor."""

    def __init__(self, executor: RayExecutor, index: int, sid: str, disk_bytes: int, layer: Layer) -> None:
        self.executor = executor
        self.layer = layer
        self.index = index
        self.actor = executor._actors[index]
        self.id = sid
        self.disk_bytes = disk_bytes
        self.closed = False

    def _call(self, method: str, *args: Any, timeout_s: float = DEADLINE_MARGIN_S) -> Any:
        where = f"workspace {self.id} (ray actor {self.index})"
        if self.closed:
            raise WorkspaceLost(f"{where} is closed")
        try:
            kind, value = self.executor._call(self.actor, "workspace", self.id, method, *args, timeout_s=timeout_s)
        except _Lost as e:
            raise WorkspaceLost(f"{where} was lost: {e}") from e
        if kind == "lost":
            raise WorkspaceLost(f"{where} was lost: {value}")
        if kind == "error":
            raise SandboxError(f"{where}: {value}")
        result, self.used_bytes = value
        return result

    def run(self, job: Job) -> RunResult:
        check_command(job, self.executor.preload)
        deadline_s = sum(job.limits_of(s).wall_s for s in job.steps) + self.executor.deadline_margin_s
        result = self._call("run", job, timeout_s=deadline_s)
        return replace(result, backend=self.executor.name)

    def reset(self) -> None:
        self._call("reset")

    def snapshot(self) -> Snapshot:
        return Snapshot(self._call("snapshot"), self.layer, self.disk_bytes, (self.executor, self.index))

    def restore(self, snapshot: Snapshot) -> None:
        self._call("restore", self._here(snapshot))
        self.layer = snapshot.layer

    def fork(self, snapshot: Snapshot | None = None) -> Workspace:
        taken = snapshot or self.snapshot()
        try:
            sid = self._snapshot_call("fork", self._here(taken))
        finally:
            if snapshot is None:
                self.release(taken)
        with self.executor._lock:
            self.executor._workspaces[self.index] += 1
        child = _ActorWorkspace(self.executor, self.index, sid, self.disk_bytes, taken.layer)
        child.workdir = self.workdir  # (forked on the same worker of the same actor)
        return child

    def release(self, snapshot: Snapshot) -> None:
        with contextlib.suppress(SandboxError):
            self._snapshot_call("release", self._here(snapshot))

    def _snapshot_call(self, method: str, snap: str) -> Any:
        try:
            kind, value = self.executor._call(self.actor, "snapshot", method, snap, timeout_s=DEADLINE_MARGIN_S)
        except _Lost as e:
            raise WorkspaceLost(f"snapshot {snap} (ray actor {self.index}) was lost: {e}") from e
        if kind != "ok":
            fault = WorkspaceLost if kind == "lost" else SandboxError
            raise fault(f"snapshot {snap} (ray actor {self.index}): {value}")
        return value[0]

    def changes(self, snapshot: Snapshot) -> Changes:
        return self._call("changes", self._here(snapshot))

    def _here(self, snapshot: Snapshot) -> str:
        if snapshot.owner != (self.executor, self.index):
            raise ValueError(
                f"snapshot {snapshot.id} lives on another actor than workspace {self.id}: open a workspace "
                "there with executor.open_workspace(snapshot.layer.with_changes(changes)) instead"
            )
        return snapshot.id

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._call("close")
        except SandboxError:
            pass
        finally:
            self.closed = True
            with self.executor._lock:
                self.executor._workspaces[self.index] -= 1
