"""Workspaces: a directory tree that lives for one agent episode, on any backend.

An agent episode runs many commands in one tree: the task's files, which it reads, edits and
runs tests in. `Executor.open_workspace` makes one from a `Layer` (the task's files: written
once per worker and shared, read-only, by every episode of the task) and returns a
`Workspace`, pinned to one worker, whose `Workspace.run` runs a `Job` with the tree as its
work dir::

    layer = Layer({"solution.py": b"def f():\\n    pass\\n"})
    with executor.open_workspace(layer) as ws:
        ws.run(Job(steps=(Step(("bash", "-c", "echo 'x = 1' >> solution.py")),)))
        ws.run(Job(steps=(Step(("cat", "solution.py")),)))   # sees the line added
        ws.reset()                                            # back to the layer's files

Each command is a job like any other: a fresh confined process tree, in whatever isolation
tier the executor runs, killed whole when it ends (nothing started in the background
outlives its command), with a fresh ``/tmp``. Only the tree persists, within the
workspace's quota (``disk_bytes``). Commands of one workspace never see another's tree.

A workspace that its worker lost (the worker died, or restarted to load new modules), that
was closed, or that expired after ``idle_timeout_s`` without a command raises
`WorkspaceLost` (a `SandboxError`: never the agent's fault). Workspaces live inside their
worker, so they go when their owner (this process) does, crashed or not.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import TracebackType

from codegym.error import SandboxError
from codegym.executor.base import Job, MiB, RunResult

DISK_BYTES = 256 * MiB
IDLE_TIMEOUT_S = 1800.0
WORKDIR = "/sandbox"  # a tree's path as its commands see it, in a worker's view (`_forkserver.WORK`)


class WorkspaceLost(SandboxError):
    """The workspace is gone: its worker died or restarted, or it was closed or expired.
    An infrastructure failure, never the agent's: end the episode as truncated."""


@dataclass(frozen=True)
class Layer:
    """The read-only bottom of a workspace: the files every episode of a task starts from.

    Attributes:
        files: Relative path -> content.
        executables: Paths of ``files`` written with the executable bit.
    """

    files: Mapping[str, bytes] = field(default_factory=dict)
    executables: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for path in self.files:
            parts = path.split("/")
            if path.startswith("/") or ".." in parts or "" in parts or "." in parts:
                raise ValueError(f"Layer paths must be relative, normalised and inside the tree, got {path!r}")
        stray = set(self.executables) - set(self.files)
        if stray:
            raise ValueError(f"Layer.executables names paths that are not among its files: {sorted(stray)}")

    def with_changes(self, changes: Changes) -> Layer:
        """This layer with ``changes`` applied: where a snapshot's tree is opened elsewhere."""
        files = {path: content for path, content in self.files.items() if path not in changes.files}
        files.update((path, content) for path, content in changes.files.items() if content is not None)
        kept = {path for path in self.executables if path not in changes.files}
        return Layer(files, tuple(sorted(kept | set(changes.executables))))

    @cached_property
    def key(self) -> str:
        """The layer's content hash: workers keep one copy of each."""
        digest = hashlib.sha256()
        for path in sorted(self.files):
            content = self.files[path]
            digest.update(b"%d:%s:%d:%d\n" % (len(path), path.encode(), path in self.executables, len(content)))
            digest.update(content)
        return digest.hexdigest()


@dataclass(frozen=True)
class Changes:
    """What a workspace's tree changed from its layer: the bytes written, nothing shared.
    Plain data (it pickles and travels), so a snapshot can move to another worker, node or
    server: `Layer.with_changes` makes the layer a workspace opens there.

    Attributes:
        files: Relative path -> its content now, or ``None`` where a file of the layer was
            deleted. Regular files only: links and empty folders are not carried.
        executables: Which of ``files`` are executable.
    """

    files: Mapping[str, bytes | None] = field(default_factory=dict)
    executables: tuple[str, ...] = ()

    @property
    def bytes_written(self) -> int:
        return sum(len(content) for content in self.files.values() if content is not None)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A workspace's tree, frozen (`Workspace.snapshot`): restore a workspace to it, fork new
    ones from it, read its `Workspace.changes`, and `release` it when done. It lives where
    the workspace did (a worker), as long as something uses it (a handle, a workspace or a
    snapshot above it) or until it has been idle for the workspace's ``idle_timeout_s``.

    Attributes:
        id: Its name on its worker.
        layer: The layer below it.
        disk_bytes: The quota of workspaces forked from it.
    """

    id: str
    layer: Layer
    disk_bytes: int
    owner: object = field(repr=False)  # (the backend's: where the snapshot lives)


class Workspace(abc.ABC):
    """One episode's tree on an executor; see the module docstring.

    Attributes:
        id: Its name on its worker.
        disk_bytes: Its quota: the bytes its commands may add above its layer.
        used_bytes: Bytes its tree held after the last command.
        workdir: The tree's path as its commands see it (their current directory), as its
            worker says: ``/sandbox``, or the worker's own folder in the `container` tier.
    """

    id: str
    disk_bytes: int
    used_bytes: int = 0
    workdir: str = WORKDIR

    @property
    def over_quota(self) -> bool:
        """Whether the tree holds more than its quota. Where the tree is a file system of its
        quota's size this never happens (writes beyond it fail with ENOSPC); in the
        `container` tier, which cannot mount, the tree is measured after each command, and
        one over its quota should end the episode."""
        return self.used_bytes > self.disk_bytes

    @abc.abstractmethod
    def run(self, job: Job) -> RunResult:
        """Run ``job`` with the workspace as its work dir. ``job.files`` must be empty (the
        tree is the files); ``job.preload`` must have been loaded when it was opened."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Drop every change: back to the layer's files, in constant time."""

    @abc.abstractmethod
    def close(self) -> None:
        """Free the workspace. Idempotent; a lost workspace closes quietly."""

    def snapshot(self) -> Snapshot:
        """Freeze the tree as it is now (no process runs between commands, so the files are
        the whole state); the workspace goes on from it. Where the worker can mount, the
        workspace's own changes become a read-only layer shared by what is made from it (no
        copy); in the `container` tier the tree is copied."""
        raise NotImplementedError(f"{type(self).__name__} cannot take snapshots")

    def restore(self, snapshot: Snapshot) -> None:
        """Put the tree back as ``snapshot`` (taken by this workspace or another of its worker)."""
        raise NotImplementedError(f"{type(self).__name__} cannot restore snapshots")

    def fork(self, snapshot: Snapshot | None = None) -> Workspace:
        """A new workspace whose tree is ``snapshot`` (by default this one's tree now), on
        this workspace's worker; it is closed on its own."""
        raise NotImplementedError(f"{type(self).__name__} cannot fork")

    def release(self, snapshot: Snapshot) -> None:
        """Drop the handle ``snapshot`` (what was restored or forked from it keeps its files).
        Idempotent, and quiet where the snapshot's worker is gone."""
        raise NotImplementedError(f"{type(self).__name__} cannot release snapshots")

    def changes(self, snapshot: Snapshot) -> Changes:
        """The bytes ``snapshot``'s tree changed from its layer (to move it elsewhere)."""
        raise NotImplementedError(f"{type(self).__name__} cannot read snapshots")

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def check_command(job: Job, loaded: tuple[str, ...]) -> None:
    """Refuse a job a workspace cannot run (raises `ValueError`)."""
    if job.files:
        raise ValueError(
            "a workspace command cannot carry Job.files: the workspace's tree is its files "
            "(write them with a step, or put them in the Layer)"
        )
    missing = [module for module in job.preload if module not in loaded]
    if missing:
        raise ValueError(
            f"a workspace command cannot preload {missing}: loading modules restarts the worker, which "
            "loses its workspaces. Pass them to open_workspace(..., preload=...) instead."
        )
