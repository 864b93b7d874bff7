"""Shared fixtures: one warm executor per backend for the whole session.

``executor`` is the local backend (what every env test uses); ``docker_executor`` and
``ray_executor`` are built on first use: the first starts a Docker daemon when none answers
(and stops it at the end of the session if it started it) and builds the image when missing;
the second starts a small local Ray cluster bound to 127.0.0.1. Both check at the end of the
session that no container and no Ray process of theirs survived.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from codegym.executor.base import Executor
from codegym.executor.local import LocalExecutor

PRELOAD = ("codegym.envs.python_function.candidate", "codegym.envs.python_function.harness")


@pytest.fixture(scope="session")
def local_executor() -> Iterator[LocalExecutor]:
    with LocalExecutor(workers=2, preload=PRELOAD) as ex:
        yield ex  # type: ignore[misc]


@pytest.fixture(scope="session")
def local_python_executor() -> Iterator[LocalExecutor]:
    """The local backend with its fork servers' loop in Python, the fallback of the C one."""
    with LocalExecutor(workers=2, preload=PRELOAD, native_fork_server=False) as ex:
        yield ex  # type: ignore[misc]


@pytest.fixture(scope="session")
def executor(local_executor: LocalExecutor) -> LocalExecutor:
    return local_executor


@pytest.fixture(scope="session")
def docker_daemon() -> Iterator[Any]:
    """A docker client of a running daemon (started here when none answers)."""
    from codegym.executor import docker as backend

    started = backend.start_daemon(os.path.join(tempfile.gettempdir(), "codegym-test-dockerd.log"))
    client = backend.connect()
    yield client
    owner = backend.owner_label()
    ours = [c.name for c in backend.codegym_containers(client) if c.labels.get(backend.OWNER_LABEL) == owner]
    others = [c for c in backend.codegym_containers(client) if backend.owner_alive(c.labels[backend.OWNER_LABEL])]
    client.close()
    if started is not None and not others:
        backend.stop_daemon(started)
    assert ours == [], f"containers survived the session: {ours}"


@pytest.fixture(scope="session")
def docker_executor(docker_daemon: Any) -> Iterator[Executor]:
    from codegym.executor.docker import DockerExecutor

    with DockerExecutor(workers=2, preload=PRELOAD) as ex:
        yield ex


RAY_TEMP = os.path.join(tempfile.gettempdir(), f"cgray{os.getpid()}")  # short: Ray's socket paths


def ray_processes(temp_dir: str = RAY_TEMP) -> list[int]:
    """Pids of the processes of the Ray cluster whose files live in ``temp_dir``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    if temp_dir.encode() in handle.read():
                        found.append(int(name))
            except OSError:
                continue
    return found


@pytest.fixture(scope="session")
def ray_executor() -> Iterator[Executor]:
    from codegym.executor.ray import RayExecutor

    with RayExecutor(nodes=2, workers_per_node=1, preload=PRELOAD, init={"_temp_dir": RAY_TEMP}) as ex:
        yield ex
    deadline = time.monotonic() + 30
    while ray_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_processes() == [], "Ray processes survived the session"


@pytest.fixture
def ray_leftovers() -> Callable[[str], list[int]]:
    """Call it with a Ray temp dir to list the processes of that cluster still alive."""
    return ray_processes


@pytest.fixture
def processes_left_by() -> Callable[[Executor], list[int]]:
    """`sandbox_processes`, for tests that hold an executor of their own."""
    return sandbox_processes


@pytest.fixture
def leftovers(executor: Executor) -> Callable[[], list[int]]:
    """Call it to list processes of the session executor's submissions still alive."""
    return lambda: sandbox_processes(executor)


def sandbox_processes(executor: Executor) -> list[int]:
    """Host pids of live processes running as one of ``executor``'s submission uids, except
    each fork server's spare and the spare's keeper (forked and confined after the last
    step's processes were killed, waiting for the next step): a third process of those names
    under the same parent counts. A step's exit is reported once its leftovers are sent SIGSTOP, and
    they are killed right after the reply, so stopped or stopping processes (SIGSTOP
    pending) and dying ones (SIGKILL pending, exiting, zombies) are not counted.
    """
    uids = executor.submission_uids()  # type: ignore[attr-defined]
    found: list[int] = []
    idle: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as handle:
                    status = dict(line.split(":", 1) for line in handle if ":" in line)
                with open(f"/proc/{name}/stat") as handle:
                    flags = int(handle.read().rsplit(")", 1)[1].split()[6])
            except (OSError, IndexError):
                continue
            if "Uid" not in status or int(status["Uid"].split()[0]) not in uids or _dying(status, flags):
                continue
            if status["Name"].strip() in ("codegym-spare", "codegym-keeper"):  # (it names the keeper)
                idle.setdefault(int(status["PPid"]), []).append(int(name))
            else:
                found.append(int(name))
    for parent, pids in idle.items():
        if len(pids) > 2 or _name(parent) != "codegym-init":  # the spare and its keeper
            found += pids
    return found


PF_EXITING = 0x4
SIGKILL_BIT = 1 << 8
SIGSTOP_BIT = 1 << 18


def _dying(status: dict[str, str], flags: int) -> bool:  # or stopped, to die next
    pending = int(status.get("ShdPnd", "0"), 16) | int(status.get("SigPnd", "0"), 16)
    state = status["State"].split()[0]
    return state in ("T", "Z", "X") or bool(flags & PF_EXITING) or bool(pending & (SIGKILL_BIT | SIGSTOP_BIT))


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""
