"""The machine of a terminal task's episode: its user, working directory and shell, the layer
that hides the tests' fixtures, the oracle's files (helpers of `codegym.envs.terminal.env`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from codegym.envs.terminal import verifier
from codegym.envs.terminal.build import Environment
from codegym.envs.terminal.formats import TerminalTask
from codegym.envs.terminal.steps import Stage

from codegym.error import SandboxError
from codegym.executor.layers import LayerStore
from codegym.executor.rootbox import as_owner, run_root
from codegym.grade import Grade, Status


def script_name(command: tuple[str, ...], tests_dir: str) -> str | None:
    """The tests' file a test command runs (``test.sh`` of ``bash /tests/test.sh``)."""
    prefix = tests_dir.rstrip("/") + "/"
    for word in reversed(command):
        if word.startswith(prefix):
            return word[len(prefix) :]
    return None


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
            as_owner(verifier.write_files, partial, dict(terminal.solution), ())
            with contextlib.suppress(OSError):
                os.rename(partial, folder)
    return folder


HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tcodegym codegym-verifier\n"


def runtime_layer(store: LayerStore, layers: tuple[str, ...]) -> str:
    """What a container runtime puts over an image: ``/etc/hosts`` (``localhost``, which a
    PostgreSQL or a test connecting by name needs) and ``/etc/hostname``, made once. Like
    Docker's, it lies over the image's (the bases leave theirs empty) and the agent may edit it."""
    from codegym.executor.rootbox import ID_BASE

    files = {"etc/hosts": HOSTS, "etc/hostname": "codegym\n"}

    def make(partial: str) -> None:
        _folders(partial, ("etc/hosts",), layers)
        for relative, text in files.items():
            path = os.path.join(partial, relative)
            Path(path).write_text(text)
            os.chown(path, ID_BASE, ID_BASE)
            os.chmod(path, 0o644)

    return _made_once(store, "runtime", [sorted(files.items()), list(layers[-1:])], make)


def hiding_layer(store: LayerStore, hidden: tuple[str, ...], layers: tuple[str, ...]) -> str:
    """A layer of whiteouts over ``hidden`` (paths in the machine), made once; its folders
    take the owner and mode the environment's own have."""

    def make(partial: str) -> None:
        _folders(partial, hidden, layers)
        for path in hidden:
            os.mknod(os.path.join(partial, path.strip("/")), 0o600 | 0o020000, os.makedev(0, 0))

    return _made_once(store, "hidden", [sorted(hidden), list(layers)], make)


def _made_once(store: LayerStore, kind: str, key: list[object], make: Callable[[str], None]) -> str:
    """The small layer ``<store>/<kind>/<digest of key>``, made by ``make`` in a folder of its
    own and renamed into place (a process that made it meanwhile wins)."""
    from codegym.executor.layers import digest

    base = os.path.join(store.root, kind)
    folder = os.path.join(base, digest(kind, *key))
    if os.path.isdir(folder):
        return folder
    if os.geteuid() != 0:  # (a plain user's store is root's: `check_task` makes these with the rest)
        raise SandboxError(
            f"the {kind} layer {folder} is missing from the store, and a plain user cannot add to it: "
            "import the task as root first (`codegym terminal import DIR`, with the same store)"
        )
    os.makedirs(base, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    try:
        make(partial)
        os.rename(partial, folder)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        if not os.path.isdir(folder):
            raise
    return folder


def _folders(partial: str, paths: tuple[str, ...], layers: tuple[str, ...]) -> None:
    """The layer's root and the folders above ``paths``, owned and moded as the environment's."""
    _like(partial, "", layers)
    for path in paths:
        parts = path.strip("/").split("/")
        for depth in range(1, len(parts)):
            sub = "/".join(parts[:depth])
            if not os.path.isdir(os.path.join(partial, sub)):
                os.mkdir(os.path.join(partial, sub))
                _like(os.path.join(partial, sub), sub, layers)


def _like(path: str, relative: str, layers: tuple[str, ...]) -> None:
    """Give ``path`` the owner and mode of ``relative`` in the topmost of ``layers`` holding it."""
    for layer in layers:
        found = os.path.join(layer, relative)
        if os.path.isdir(found) and not os.path.islink(found):
            info = os.stat(found)
            os.chown(path, info.st_uid, info.st_gid)
            os.chmod(path, info.st_mode & 0o7777)
            return
