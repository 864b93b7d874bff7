"""The machine of a terminal task's episode: its user, working directory and shell, the layer
that hides the tests' fixtures, the oracle's files (helpers of `codegym.envs.terminal.env`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

from codegym.envs.terminal import verifier
from codegym.envs.terminal.build import Environment
from codegym.envs.terminal.formats import TerminalTask
from codegym.envs.terminal.steps import Stage

from codegym.executor.layers import LayerStore
from codegym.executor.rootbox import run_root
from codegym.grade import Grade, Status


def script_name(command: tuple[str, ...], tests_dir: str) -> str | None:
    """The tests' file a test command runs (``test.sh`` of ``bash /tests/test.sh``)."""
    prefix = tests_dir.rstrip("/") + "/"
    for word in reversed(command):
        if word.startswith(prefix):
            return word[len(prefix) :]
    return None


def python_of(store: LayerStore, layers: tuple[str, ...]) -> str | None:
    """The environment's python3 version ("3.11"), if it has one."""
    status, output = store.check(layers, ["python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    return output.strip() if status == 0 else None


def below_threshold(grade: Grade, stage: Stage) -> bool:
    """Whether a step's grade is under its ``min_reward`` (the task then ends)."""
    reward = 1.0 if grade.status is Status.OK else 0.0
    return stage.min_reward is not None and reward < stage.min_reward


def shell(built: Environment) -> tuple[str, ...]:
    """How a command line runs: bash where the machine has it, else its SHELL."""
    for layer in built.layers:
        if os.path.lexists(os.path.join(layer, "usr/bin/bash")) or os.path.lexists(os.path.join(layer, "bin/bash")):
            return ("bash", "-c")
    return built.shell


def workdir(terminal: TerminalTask, built: Environment) -> str:
    return terminal.workdir or built.workdir or "/"


def agent_user(terminal: TerminalTask, built: Environment) -> str:
    return terminal.agent_user or built.user or "root"


def test_env(terminal: TerminalTask, built: Environment) -> dict[str, str]:
    return {**dict(built.env), **dict(terminal.test_env)}


_solution_lock = threading.Lock()


def solution_folder(terminal: TerminalTask) -> str:
    """A host folder with the oracle's files (bound read-only at /solution for its run)."""
    digest = hashlib.sha256()
    for name in sorted(terminal.solution):
        digest.update(name.encode() + b"\0" + terminal.solution[name] + b"\0")
    folder = os.path.join(os.path.dirname(run_root()), "solutions", digest.hexdigest())
    with _solution_lock:
        if not os.path.isdir(folder):
            os.makedirs(os.path.dirname(folder), mode=0o700, exist_ok=True)
            partial = tempfile.mkdtemp(dir=os.path.dirname(folder))
            shutil.rmtree(partial)
            verifier.write_files(Path(partial), terminal.solution, ())
            with contextlib.suppress(OSError):
                os.rename(partial, folder)
    return folder


HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tcodegym codegym-verifier\n"


def runtime_layer(store: LayerStore, layers: tuple[str, ...]) -> str:
    """What a container runtime puts over an image: ``/etc/hosts`` (``localhost``, which a
    PostgreSQL or a test connecting by name needs) and ``/etc/hostname``, made once. Like
    Docker's, it lies over the image's (the bases leave theirs empty) and the agent may edit it."""
    from codegym.executor.layers import digest as layer_digest
    from codegym.executor.rootbox import ID_BASE

    files = {"etc/hosts": HOSTS.encode(), "etc/hostname": b"codegym\n"}
    key = layer_digest(
        "runtime", sorted((name, content.decode()) for name, content in files.items()), list(layers[-1:])
    )
    base = os.path.join(store.root, "runtime")
    folder = os.path.join(base, key)
    if os.path.isdir(folder):
        return folder
    os.makedirs(base, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    _like(partial, "", layers)
    os.mkdir(os.path.join(partial, "etc"))
    _like(os.path.join(partial, "etc"), "etc", layers)
    for relative, content in files.items():
        path = os.path.join(partial, relative)
        Path(path).write_bytes(content)
        os.chown(path, ID_BASE, ID_BASE)
        os.chmod(path, 0o644)
    try:
        os.rename(partial, folder)
    except OSError:  # made meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def hiding_layer(store: LayerStore, hidden: tuple[str, ...], layers: tuple[str, ...]) -> str:
    """A layer of whiteouts over ``hidden`` (paths in the machine), made once; its folders
    take the owner and mode the environment's own have."""
    from codegym.executor.layers import digest as layer_digest

    key = layer_digest("hide", sorted(hidden), list(layers))
    base = os.path.join(store.root, "hidden")
    folder = os.path.join(base, key)
    if os.path.isdir(folder):
        return folder
    os.makedirs(base, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    _like(partial, "", layers)
    for path in hidden:
        relative = path.strip("/")
        parts = relative.split("/")
        for depth in range(1, len(parts)):
            sub = "/".join(parts[:depth])
            if not os.path.isdir(os.path.join(partial, sub)):
                os.mkdir(os.path.join(partial, sub))
                _like(os.path.join(partial, sub), sub, layers)
        os.mknod(os.path.join(partial, relative), 0o600 | 0o020000, os.makedev(0, 0))
    try:
        os.rename(partial, folder)
    except OSError:  # made meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def _like(path: str, relative: str, layers: tuple[str, ...]) -> None:
    """Give ``path`` the owner and mode of ``relative`` in the topmost of ``layers`` holding it."""
    for layer in layers:
        found = os.path.join(layer, relative)
        if os.path.isdir(found) and not os.path.islink(found):
            info = os.stat(found)
            os.chown(path, info.st_uid, info.st_gid)
            os.chmod(path, info.st_mode & 0o7777)
            return
