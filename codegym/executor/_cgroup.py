"""Harness-side cgroup management: one job cgroup per worker, v1 or v2.

The worker sees its cgroup bind-mounted at ``/.cg`` and applies per-step limits itself
(see ``_worker.Cgroup``); this module only detects the version, creates the directories and
removes them, killing anything left inside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass

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
