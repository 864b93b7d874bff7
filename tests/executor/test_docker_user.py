"""The docker backend for a caller who is not root: a member of the ``docker`` group, the
socket it opens to the containers' root (and to nobody else), finding a rootless daemon, and
the errors that say what a non-root caller must ask for.

The end-to-end test runs a script as the unprivileged user ``codegym-test`` with Debian's
``python3`` (the virtual environment's interpreter may sit under root's 0700 home) and the
environment's site-packages added with `site.addsitedir`, so the editable install's finder
runs too.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import socket
import stat
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from codegym.error import SandboxError

USER = "codegym-test"
GROUP = "docker"
SYSTEM_PYTHON = "/usr/bin/python3"

# Run as the unprivileged user: argv[1] is the site-packages to add, argv[2] a root-owned
# socket it may not use. Prints one JSON object for the test to check.
SCRIPT = r"""
import json, logging, os, site, socket, stat, sys
site.addsitedir(sys.argv[1])
from codegym.error import SandboxError
from codegym.executor import Job, Step, docker as backend, images

refused = []
class Refused(logging.Handler):
    def emit(self, record):
        refused.append(record.getMessage())
logging.getLogger("codegym.executor.docker").addHandler(Refused(logging.WARNING))

seen, strangers = {}, []
original = backend.DockerExecutor.start_container
def start_container(self, index, directory, config):
    path = os.path.join(directory, "worker.sock")
    seen.setdefault("directories", []).append(directory)
    seen["modes"] = [stat.S_IMODE(os.stat(p).st_mode) for p in (directory, path)]
    stranger = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stranger.connect(path)  # before the container can: the executor must refuse it
    strangers.append(stranger)
    return original(self, index, directory, config)
backend.DockerExecutor.start_container = start_container

def error(call):
    try:
        call()
    except SandboxError as e:
        return str(e)
    return None

def program(source):
    return Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()})

jobs = [program("print(6 * 7)"), program("import sys\nprint('no', file=sys.stderr)\nsys.exit(3)"),
        program("print(sum(range(10)))"), program("raise ValueError('bad')")]
out = {"uid": os.geteuid(), "groups": os.getgroups()}
with backend.DockerExecutor(workers=2, build=False) as ex:
    results = [f.result() for f in [ex.submit(job) for job in jobs]]
    out["results"] = [[r.steps[0].exit_code, r.steps[0].stdout.decode(), r.steps[0].stderr.decode()[-200:]]
                      for r in results]
    out["owner"] = ex.owner
    out["container_root"] = ex.container_root
    out["open_socket"] = ex.open_socket
    out["labels"] = [c.labels for c in ex.containers()]
    out["build_error"] = error(lambda: images.build_image(ex.client, images.Recipe("python", ("python3", "gcc"))))
out["seen"] = seen
out["refused"] = refused
out["strangers_closed"] = [s.recv(1) == b"" for s in strangers]
out["denied_error"] = error(lambda: backend.connect("unix://" + sys.argv[2]))
os.environ["DOCKER_HOST"] = "unix:///nonexistent/docker.sock"
out["start_error"] = error(backend.start_daemon)
print(json.dumps(out))
"""


@dataclass(frozen=True)
class DockerUser:
    """An unprivileged user in the docker group, and how to run Python as it."""

    name: str
    uid: int
    python: str
    site: str
    home: str  # a directory of its own, for its $TMPDIR and the script


def _run_as(user: str, argv: list[str], env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)


def _environment(home: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8"}


@pytest.fixture(scope="module")
def docker_user(docker_daemon: Any) -> Iterator[DockerUser]:
    """``codegym-test`` (created when missing) in the ``docker`` group for the module, which
    may use the system daemon's socket: the daemon gives its socket that group when the group
    exists as it starts; one started before gets it here. Both are given back afterwards (a
    member of the docker group is as good as root)."""
    from codegym.executor.docker import SYSTEM_SOCKET

    if os.geteuid() != 0:
        pytest.skip("making a user and adding it to the docker group needs root")
    if os.environ.get("DOCKER_HOST") or not os.path.exists(SYSTEM_SOCKET):
        pytest.skip(f"the session's daemon is not on {SYSTEM_SOCKET}, which the test gives the docker group")
    subprocess.run(["groupadd", "-f", GROUP], check=True)
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
    member = USER in grp.getgrnam(GROUP).gr_mem
    subprocess.run(["usermod", "-aG", GROUP, USER], check=True)
    before = os.stat(SYSTEM_SOCKET)
    os.chown(SYSTEM_SOCKET, -1, grp.getgrnam(GROUP).gr_gid)
    os.chmod(SYSTEM_SOCKET, stat.S_IMODE(before.st_mode) | 0o060)
    home = tempfile.mkdtemp(prefix="codegym-user-")
    user = pwd.getpwnam(USER)
    os.chown(home, user.pw_uid, user.pw_gid)
    try:
        yield DockerUser(USER, user.pw_uid, _python_for(USER, home), sysconfig.get_paths()["purelib"], home)
    finally:
        os.chown(SYSTEM_SOCKET, -1, before.st_gid)
        os.chmod(SYSTEM_SOCKET, stat.S_IMODE(before.st_mode))
        shutil.rmtree(home, ignore_errors=True)
        if not member:
            subprocess.run(["gpasswd", "--delete", USER, GROUP], check=True, capture_output=True)


def _python_for(user: str, home: str) -> str:
    """An interpreter of this Python version that ``user`` can run and import codegym with
    (the C extension and site-packages are built for this version); skip when none."""
    site = sysconfig.get_paths()["purelib"]
    probe = f"import site, sys; site.addsitedir({site!r}); import codegym.executor.docker, docker; print(sys.version_info[:2])"
    reasons = []
    for python in dict.fromkeys([SYSTEM_PYTHON, sys.executable]):
        try:
            done = _run_as(user, [python, "-c", probe], _environment(home), 60)
        except FileNotFoundError as e:
            reasons.append(f"{python}: {e}")
            continue
        if done.returncode == 0 and done.stdout.strip() == str(tuple(sys.version_info[:2])):
            return python
        reasons.append(f"{python}: {done.stdout.strip()} {done.stderr.strip()[-300:]}")
    pytest.skip(
        f"{user} cannot run a Python {sys.version_info[0]}.{sys.version_info[1]} that imports codegym: {reasons}"
    )


@pytest.mark.docker
def test_a_docker_group_member_runs_jobs(docker_user: DockerUser, docker_daemon: Any) -> None:
    from codegym.executor import docker as backend

    image = backend.images.recipe("python").tag
    backend.images.ensure(docker_daemon, backend.images.recipe("python"))  # the user cannot build it
    dead = subprocess.Popen(["true"])
    dead.wait()
    label = f"{os.uname().nodename}/{dead.pid}/1"  # a dead owner: an orphan each
    theirs = docker_daemon.containers.create(image, ["true"], labels={backend.OWNER_LABEL: label, backend.USER_LABEL: str(docker_user.uid)}, network_mode="none")  # fmt: skip
    roots = docker_daemon.containers.create(image, ["true"], labels={backend.OWNER_LABEL: label}, network_mode="none")
    denied = os.path.join(docker_user.home, "root-only.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(denied)
        os.chmod(denied, 0o660)  # root:root
        script = os.path.join(docker_user.home, "run.py")
        with open(script, "w") as handle:
            handle.write(SCRIPT)
        try:
            argv = [docker_user.python, script, docker_user.site, denied]
            done = _run_as(docker_user.name, argv, _environment(docker_user.home), 240)
            left = {c.id for c in backend.codegym_containers(docker_daemon)}
        finally:
            backend._remove(roots)
            backend._remove(theirs)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["uid"] == docker_user.uid and grp.getgrnam(GROUP).gr_gid in out["groups"]
    assert out["results"] == [[0, "42\n", ""], [3, "", "no\n"], [0, "45\n", ""], [1, "", out["results"][3][2]]]
    assert "ValueError: bad" in out["results"][3][2]
    # The system daemon's containers run as host root: another user to the caller.
    assert out["container_root"] == [0, 0] and out["open_socket"] is True
    assert out["seen"]["modes"] == [backend.OPEN_DIRECTORY_MODE, backend.OPEN_SOCKET_MODE]
    assert len(out["refused"]) == 2 and all("refused a connection" in m for m in out["refused"])
    assert out["strangers_closed"] == [True, True]
    assert len(out["labels"]) == 2
    assert all(lab[backend.USER_LABEL] == str(docker_user.uid) for lab in out["labels"])
    # Closed: no container, no socket directory left; the reaper took only its own orphan.
    owned = [c for c in backend.codegym_containers(docker_daemon) if c.labels[backend.OWNER_LABEL] == out["owner"]]
    assert owned == []
    assert not any(os.path.exists(d) for d in out["seen"]["directories"])
    assert theirs.id not in left and roots.id in left
    assert "permission denied" in out["denied_error"] and "usermod -aG root" in out["denied_error"]
    assert "unix:///nonexistent/docker.sock (no such socket)" in out["start_error"]
    assert "ask an administrator" in out["start_error"]
    assert "needs root" in out["build_error"]


PEER = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
print("in", flush=True)
print(len(s.recv(1)), flush=True)  # 0: closed unanswered
"""


def test_only_the_containers_init_may_connect() -> None:
    """With the socket open to other users, a connection from any process but the
    container's init is closed unanswered, and the init's is taken."""
    from codegym.executor.docker import OPEN_DIRECTORY_MODE, OPEN_SOCKET_MODE, _ContainerWorker

    worker = _ContainerWorker(SimpleNamespace(uid_base=5000, open_socket=True), 0)  # type: ignore[arg-type]
    path = os.path.join(worker.directory, "worker.sock")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(path)
            listener.listen(8)
            stranger, init = _connected(path), _connected(path)  # in this order in the queue
            state = {"State": {"Pid": init.pid}}
            worker.container = SimpleNamespace(attrs=state, name="fake", status="running", reload=lambda: None)
            connection = worker._accept(listener, time.monotonic() + 60)
        with connection:
            peer = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
            connection.sendall(b"x")
            assert peer == init.pid
            assert stranger.communicate(timeout=60)[0] == "0\n"
            assert init.communicate(timeout=60)[0] == "1\n"
        assert stat.S_IMODE(os.stat(worker.directory).st_mode) == OPEN_DIRECTORY_MODE
        assert OPEN_SOCKET_MODE & 0o022 == 0o022 and OPEN_SOCKET_MODE & 0o055 == 0  # write, nothing else
    finally:
        worker.container = None
        worker.destroy()
    assert not os.path.exists(worker.directory)


def _connected(path: str) -> subprocess.Popen[str]:
    """A process that has connected to ``path`` (and waits for one byte)."""
    peer = subprocess.Popen([sys.executable, "-c", PEER, path], stdout=subprocess.PIPE, text=True)
    assert peer.stdout is not None and peer.stdout.readline() == "in\n"
    return peer


def test_connect_names_every_socket_it_tried(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from codegym.executor import docker as backend

    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(backend, "SYSTEM_SOCKET", str(tmp_path / "system.sock"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    tried = rf"unix://{tmp_path}/system\.sock \(no such socket\); unix://{tmp_path}/run/docker\.sock \(no such socket\)"
    with pytest.raises(SandboxError, match=rf"cannot reach the Docker daemon: tried {tried}"):
        backend.connect()


@pytest.mark.docker
def test_the_rootless_socket_is_tried_when_the_system_one_is_missing(
    docker_daemon: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """A rootless daemon listens on ``$XDG_RUNTIME_DIR/docker.sock``; here that path leads to
    the running daemon, and the system socket is missing."""
    from codegym.executor import docker as backend

    if os.environ.get("DOCKER_HOST") or not os.path.exists(backend.SYSTEM_SOCKET):
        pytest.skip("the session's daemon is not on the system socket")
    (tmp_path / "docker.sock").symlink_to(backend.SYSTEM_SOCKET)
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(backend, "SYSTEM_SOCKET", str(tmp_path / "missing.sock"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    client = backend.connect()
    try:
        assert client.info()["ID"] == docker_daemon.info()["ID"]
    finally:
        client.close()


def test_a_mapped_daemon_gives_submissions_uids_below_65536() -> None:
    from codegym.executor import docker as backend
    from codegym.executor._pool import POOLS_PER_PROCESS, UIDS_PER_POOL

    bases = {backend.mapped_uid_base(serial) for serial in range(POOLS_PER_PROCESS)}
    assert len(bases) == POOLS_PER_PROCESS
    assert all(b >= backend.MAPPED_UID_FLOOR and b + UIDS_PER_POOL <= backend.MAPPED_UID_CEILING for b in bases)


def test_the_containers_root_must_be_able_to_read_the_source(tmp_path: Any) -> None:
    from codegym.executor.docker import unreadable

    package = tmp_path / "pkg"
    (package / "__pycache__").mkdir(parents=True)
    init = package / "__init__.py"
    init.write_text("")
    for path in (package / "data.bin", package / "__pycache__" / "x.pyc"):
        path.write_text("")
        path.chmod(0o600)  # neither is imported from source
    package.chmod(0o755)
    if os.geteuid() == 0:
        os.chown(init, 12345, 12345)  # another user's, as the caller's files are to the containers' root
    owner, group = os.stat(init).st_uid, os.stat(init).st_gid
    assert unreadable(str(package), (0, 0)) is None  # 0644
    init.chmod(0o640)
    assert unreadable(str(package), (0, 0)) == str(init)  # a system daemon's root: neither owner nor group
    assert unreadable(str(package), (0, group)) is None  # ... unless the group is its own
    assert unreadable(str(package), (owner, -1)) is None  # rootless: the owner reads it
    assert unreadable(str(package), None) == str(init)  # userns-remap: a subordinate uid
    init.chmod(0o644)
    package.chmod(0o750)
    assert unreadable(str(package), (0, 0)) == (None if os.geteuid() == 0 else str(package))
