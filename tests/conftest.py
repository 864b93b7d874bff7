"""Shared fixtures: one warm executor per backend for the whole session.

``executor`` is the local backend (what every env test uses); ``docker_executor`` and
``ray_executor`` are built on first use: the first starts a Docker daemon when none answers
(and stops it at the end of the session if it started it) and builds the image when missing;
the second starts a small local Ray cluster bound to 127.0.0.1. Both check at the end of the
session that no container and no Ray process of theirs survived.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
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


# The sandbox tiers that the attack suites and the executor contract suite run under, each
# made on this machine: "full" (this process: root), "userns-root" (root without
# CAP_SYS_ADMIN: workers started through setpriv with it dropped from every capability set),
# "userns-user" (a plain user made here, running Debian's python3, which it can reach) and
# "container" (root, without namespaces: what a container that forbids them leaves).
TIERS = ("full", "userns-root", "userns-user", "container")
# And inside real containers of a Docker engine with its default privileges: "docker-default"
# (a plain `docker run`: the `container` tier inside) and "docker-unconfined" (with
# --security-opt seccomp=unconfined: `userns` inside). The docker backend's image holds
# Python only: the families that need other toolchains run in TIERS alone.
DOCKER_TIERS = {"docker-default": "default", "docker-unconfined": "unconfined-seccomp"}
ALL_TIERS = (*TIERS, *(pytest.param(tier, marks=pytest.mark.docker) for tier in DOCKER_TIERS))
PLAIN_USER = "codegym-test"
PLAIN_PYTHON = "/usr/bin/python3"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session", name="tier_options")
def tier_options_fixture() -> Callable[[str], dict[str, Any]]:
    """`tier_options`, for conftests below that make executors of their own."""
    return tier_options


def tier_options(tier: str) -> dict[str, Any]:
    """`LocalExecutor` options that run its workers in ``tier`` (skips a tier this suite's
    user cannot make)."""
    if os.geteuid() != 0:  # a plain user already: only their own tier can be had
        if tier != "userns-user":
            pytest.skip(f"the {tier} tier is made from root; this suite runs as uid {os.geteuid()}")
        return {"isolation": "userns"}
    if tier == "full":
        return {"isolation": tier}
    if tier == "container":  # (its submissions' uid reaches the interpreter in place: not under /root)
        return {"isolation": tier, "python": PLAIN_PYTHON}
    if tier == "userns-root":
        drop = "-sys_admin"
        return {"isolation": "userns", "launcher": ("setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", "--")}
    user = _plain_user()
    launcher = ("setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--")  # fmt: skip
    return {"isolation": "userns", "launcher": launcher, "python": PLAIN_PYTHON}


def _plain_user() -> str:
    """A system user without privileges, made once; and a way for it to this checkout."""
    if subprocess.run(["id", PLAIN_USER], capture_output=True, check=False).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PLAIN_USER],
                       check=True, capture_output=True)  # fmt: skip
    _let_everyone_through(REPO)
    return PLAIN_USER


_OPENED: list[tuple[Path, int]] = []  # folders `_let_everyone_through` changed, and their modes


def _let_everyone_through(path: str) -> None:
    """Give every folder above ``path`` the search bit for others (a checkout under /root,
    mode 0700, is out of a plain user's reach), as a shared cluster's home folders have it,
    until the session ends. The checkout's own files keep their modes (readable by all)."""
    for parent in Path(path).parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            _OPENED.append((parent, mode))
            os.chmod(parent, mode | stat.S_IXOTH)


@pytest.fixture(scope="session")
def tier_executors(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Executor]]:
    """``get(tier)``: the session's executor of ``tier`` (one of TIERS or DOCKER_TIERS), made
    on first use."""
    made: dict[str, Executor] = {}

    def get(tier: str) -> Executor:
        if tier in DOCKER_TIERS:  # (closed before the daemon's fixture checks for leftovers)
            return request.getfixturevalue("docker_tier_executors")(tier)
        if tier not in made:
            made[tier] = LocalExecutor(workers=2, preload=PRELOAD, **tier_options(tier))
        return made[tier]

    yield get
    for executor in made.values():
        executor.close()
    while _OPENED:
        folder, mode = _OPENED.pop()
        os.chmod(folder, stat.S_IMODE(mode))


@pytest.fixture(scope="session")
def docker_tier_executors(docker_daemon: Any) -> Iterator[Callable[[str], Executor]]:
    """``get(tier)``: the session's docker executor of one of DOCKER_TIERS, made on first use."""
    from codegym.executor.docker import DockerExecutor

    made: dict[str, Executor] = {}

    def get(tier: str) -> Executor:
        if tier not in made:
            made[tier] = DockerExecutor(workers=2, preload=PRELOAD, security=DOCKER_TIERS[tier])
        return made[tier]

    yield get
    for executor in made.values():
        executor.close()


@pytest.fixture(scope="module", params=TIERS)
def tier(request: pytest.FixtureRequest) -> str:
    """Each of TIERS in turn (the tier is in the test's id)."""
    return request.param


@pytest.fixture(scope="module")
def tiered_executor(tier: str, tier_executors: Callable[[str], LocalExecutor]) -> LocalExecutor:
    """The session's local executor of each tier in turn."""
    return tier_executors(tier)


@pytest.fixture(scope="module", params=ALL_TIERS)
def any_tiered_executor(request: pytest.FixtureRequest, tier_executors: Callable[[str], Executor]) -> Executor:
    """The session's executor of each tier in turn, in real Docker containers too."""
    return tier_executors(request.param)


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


BARE_IMAGE = "codegym-test-bare:1"


@pytest.fixture(scope="session")
def bare_image(docker_daemon: Any) -> str:
    """An image of empty folders and the merged-/usr links (imported from a tar, once): a test
    binds this machine's /usr, /etc, Python and checkout into its containers."""
    try:
        docker_daemon.images.get(BARE_IMAGE)
        return BARE_IMAGE
    except Exception:  # (docker.errors.ImageNotFound)
        pass
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name in ("etc", "tmp", "proc", "sys", "dev", "usr", "root", "run", "var", "var/tmp", "work", "scenario"):
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if name in ("tmp", "var/tmp") else 0o755
            tar.addfile(info)
        for name in ("bin", "lib", "lib64", "sbin"):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, f"usr/{name}"
            tar.addfile(info)
    repository, tag = BARE_IMAGE.split(":")
    docker_daemon.api.import_image_from_data(data.getvalue(), repository=repository, tag=tag)
    return BARE_IMAGE


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
    step's processes were killed, waiting for the next step; until it first runs, a spare
    bears its fork server's name): a third process of those names under the same parent
    counts. A step's exit is reported once its leftovers are sent SIGSTOP, and they are
    killed right after the reply, so stopped or stopping processes (SIGSTOP pending) and
    dying ones (SIGKILL pending, exiting, zombies) are not counted.
    """
    uids = executor.submission_uids()  # type: ignore[attr-defined]
    shared_uid = not getattr(executor, "distinct_uids", True)
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
            if shared_uid and not _in_a_step_namespace(status):  # (a plain user's worker shares it)
                continue
            # (a spare names the keeper; a spare just forked, before its first instruction, still
            # bears the fork server's name)
            if status["Name"].strip() in ("codegym-spare", "codegym-keeper", "codegym-init"):
                idle.setdefault(int(status["PPid"]), []).append(int(name))
            else:
                found.append(int(name))
    for parent, pids in idle.items():
        if len(pids) > 2 or _name(parent) != "codegym-init":  # the spare and its keeper
            found += pids
    return found


def _in_a_step_namespace(status: dict[str, str]) -> bool:
    """Whether a process lives in a nested pid namespace and is not its pid 1: a step's
    process, not a worker's supervisor or fork server."""
    nspid = status.get("NSpid", "").split()
    return len(nspid) >= 2 and nspid[-1] != "1"


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
