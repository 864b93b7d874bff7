"""Cgroups: one job cgroup per worker, v1 or v2 (stdlib only).

On the harness's side, `detect` finds the version, `WorkerCgroup` creates the directories and
removes them, killing anything left inside. Inside the worker, which sees its cgroup
bind-mounted at ``/.cg`` (or, in the `container` tier, at its own path), `Cgroup` applies
per-step limits and reads what they caught.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the probe runs this module with no codegym package to import)
    from codegym.executor.base import Limits

HARNESS_SLACK_BYTES = 16 << 20  # the fork server shares the cgroup with the submission

ROOT = "/sys/fs/cgroup"
PARENT = "codegym"


def detect() -> str:
    """The cgroup version that can enforce memory and pids limits here: "v2", "v1" or
    "none" (the controllers are missing, or this process may not write there)."""
    return detect_with_reason()[0]


def detect_with_reason() -> tuple[str, str]:
    """`detect`'s answer, and why it is "none" (else "")."""
    controllers = f"{ROOT}/cgroup.controllers"
    if os.path.exists(controllers):
        with open(controllers) as handle:
            available = set(handle.read().split())
        if not {"memory", "pids"} <= available:
            return "none", f"the cgroup v2 hierarchy at {ROOT} lacks the memory or pids controller"
        paths = [ROOT]
    elif os.path.isdir(f"{ROOT}/memory") and os.path.isdir(f"{ROOT}/pids"):
        paths = [f"{ROOT}/memory", f"{ROOT}/pids"]
    else:
        return "none", f"no cgroup hierarchy with the memory and pids controllers at {ROOT}"
    for path in paths:
        if not os.access(path, os.W_OK):
            return "none", (
                f"{path} is not writable by uid {os.geteuid()} (mounted read-only, as in a container, "
                "or not delegated to this user)"
            )
    return ("v2" if paths == [ROOT] else "v1"), ""


@dataclass(frozen=True)
class WorkerCgroup:
    """The directories of one worker's job cgroup, keyed by the name the worker mounts them
    under (``memory``/``pids`` for v1, ``unified`` for v2)."""

    version: str
    paths: dict[str, str]

    @classmethod
    def create(cls, version: str, name: str) -> WorkerCgroup:
        if version == "v1":
            paths = {c: f"{ROOT}/{c}/{PARENT}/{name}" for c in ("memory", "pids")}
        elif version == "v2":
            parent = f"{ROOT}/{PARENT}"
            os.makedirs(parent, exist_ok=True)
            _enable_controllers(ROOT)
            _enable_controllers(parent)
            paths = {"unified": f"{parent}/{name}"}
        else:
            return cls("none", {})
        for path in paths.values():
            os.makedirs(path, exist_ok=True)
        return cls(version, paths)

    def remove(self) -> None:
        """Kill whatever is still inside, then remove the directories."""
        for path in self.paths.values():
            tasks = f"{path}/{'tasks' if self.version == 'v1' else 'cgroup.procs'}"
            for _ in range(50):
                pids = _read_pids(tasks)
                if not pids:
                    break
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.01)
            with contextlib.suppress(OSError):
                os.rmdir(path)


def _enable_controllers(path: str) -> None:
    with contextlib.suppress(OSError), open(f"{path}/cgroup.subtree_control", "w") as handle:
        handle.write("+memory +pids")


def _read_pids(path: str) -> list[int]:
    try:
        with open(path) as handle:
            return [int(line) for line in handle if line.strip()]
    except OSError:
        return []


def reap_stale() -> None:
    """Remove cgroups of codegym processes that died without cleaning up."""
    for base in (f"{ROOT}/memory/{PARENT}", f"{ROOT}/pids/{PARENT}", f"{ROOT}/{PARENT}"):
        if not os.path.isdir(base):
            continue
        for name in os.listdir(base):
            owner = name.split(".", 1)[0]
            path = f"{base}/{name}"
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}") and os.path.isdir(path):
                version = "v2" if base == f"{ROOT}/{PARENT}" else "v1"
                key = "unified" if version == "v2" else base.split("/")[-2]
                WorkerCgroup(version, {key: path}).remove()


@dataclass
class Cgroup:
    """The worker's cgroup (v1: a memory and a pids hierarchy; v2: one directory).

    The worker joins it once; every job process forked from it inherits it, which spares
    a per-job migration (tens of milliseconds on some v1 kernels). Limits are set per step
    on top of the usage already there, and the peak is reported net of it.
    """

    version: str
    # Its folders by controller name (``memory``/``pids``, or ``unified``), where there is no
    # view to bind them into (the `container` tier); else under /.cg. There, the fork server
    # forks as the step ends (to signal the steps' uid: it has no namespace to signal), so
    # the pids controller would refuse it: processes are limited by RLIMIT_NPROC instead, as
    # exactly (the steps' uid is theirs alone).
    folders: dict[str, str] | None = None
    baseline: int = 0
    written: dict[tuple[str, str], str] = field(default_factory=dict)  # by (controller, file)
    last_counters: tuple[int, int] | None = None
    fds: dict[tuple[str, int], int] = field(default_factory=dict)

    def _path(self, controller: str, name: str) -> str:
        key = "unified" if self.version == "v2" else controller
        return f"{self.folders[key] if self.folders else f'/.cg/{key}'}/{name}"

    # Raw descriptors kept open, not io objects: these run several times per step, on its
    # critical path. A cgroup file answers each read at offset 0 afresh.
    def _fd(self, controller: str, name: str, flags: int) -> int:
        path = self._path(controller, name)
        fd = self.fds.get((path, flags))
        if fd is None:
            fd = self.fds[path, flags] = os.open(path, flags)
        return fd

    def _write(self, controller: str, name: str, value: str, *, always: bool = False) -> None:
        if always or self.written.get((controller, name)) != value:
            os.write(self._fd(controller, name, os.O_WRONLY), value.encode())
            self.written[controller, name] = value

    def _read(self, controller: str, name: str) -> str:
        return os.pread(self._fd(controller, name, os.O_RDONLY), 1 << 16, 0).decode()

    def _counter(self, controller: str, name: str, key: str) -> int:
        for line in self._read(controller, name).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == key:
                return int(parts[1])
        return 0

    def join(self) -> None:
        if self.version == "none":
            return
        controllers = ("memory", "pids") if self.version == "v1" else ("memory",)
        tasks = "tasks" if self.version == "v1" else "cgroup.procs"
        for controller in controllers:
            self._write(controller, tasks, str(os.getpid()))

    def tasks_fd(self) -> int:
        """A descriptor of the cgroup's task count (``pids.current``), or -1 without one."""
        if self.version == "none":
            return -1
        try:
            return os.open(self._path("pids", "pids.current"), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return -1

    def prepare(self, limits: Limits) -> tuple[int, int]:
        """Apply ``limits``, reset the peak, and return the (oom kills, pid refusals) so far."""
        if self.version == "none":
            return 0, 0
        current = "memory.usage_in_bytes" if self.version == "v1" else "memory.current"
        self.baseline = int(self._read("memory", current))
        # The limit sits above what the worker holds, less the page cache charged here (the
        # files earlier steps read: a JDK's, a compiler's), which the kernel reclaims before it
        # refuses a step memory: counted, it would let a step use that much more.
        held = max(0, self.baseline - self._page_cache())
        rounded = -(-held // (4 << 20)) * (4 << 20)  # stable, so the write is cached
        memory = str(limits.memory_bytes + rounded + HARNESS_SLACK_BYTES)
        self._limit_memory(memory)
        if self.version == "v1":
            self._write("memory", "memory.max_usage_in_bytes", "0", always=True)
        else:
            self._write("memory", "memory.swap.max", "0")
        if self.folders is None:  # (in `container`, RLIMIT_NPROC on the steps' own uid does it: see `folders`)
            self._write("pids", "pids.max", str(limits.processes + 2))  # + the fork server, the keeper
        return self.last_counters or self.counters()

    def _page_cache(self) -> int:
        """The file pages charged to the cgroup (reclaimable; shared memory is not among them)."""
        prefix = "total_" if self.version == "v1" else ""  # (v1's own figures leave out its children)
        wanted = {f"{prefix}active_file", f"{prefix}inactive_file"}
        lines = (line.split() for line in self._read("memory", "memory.stat").splitlines())
        return sum(int(parts[1]) for parts in lines if len(parts) == 2 and parts[0] in wanted)

    def lift(self) -> None:
        """No memory or process limit until the next `prepare` (between steps)."""
        if self.version != "none":
            self._limit_memory("-1" if self.version == "v1" else "max")
            self._write("pids", "pids.max", "max")

    def _limit_memory(self, value: str) -> None:
        self._write("memory", "memory.limit_in_bytes" if self.version == "v1" else "memory.max", value)

    def counters(self) -> tuple[int, int]:
        if self.version == "none":
            return 0, 0
        events = "memory.oom_control" if self.version == "v1" else "memory.events"
        self.last_counters = self._counter("memory", events, "oom_kill"), self._counter("pids", "pids.events", "max")
        return self.last_counters

    def peak(self) -> int:
        """Peak memory since `prepare`, net of what the worker's processes already used."""
        if self.version == "v1":
            return max(0, int(self._read("memory", "memory.max_usage_in_bytes")) - self.baseline)
        if self.version == "v2" and self.has_peak:
            return max(0, int(self._read("memory", "memory.peak")) - self.baseline)
        return 0

    @functools.cached_property
    def has_peak(self) -> bool:
        return os.path.exists(self._path("memory", "memory.peak"))  # (Linux 5.19 and later)
