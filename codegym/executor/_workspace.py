"""Workspaces inside a worker (stdlib only; see ``_worker.py`` and `codegym.executor.workspace`).

A workspace is the directory tree of one agent episode: the task's files (its layer, written
once per worker and shared by every episode of the task) under the episode's own changes.
Between commands it is out of the view; for a command it is put at the job's work dir, and
taken away again before the next job starts, so a command sees its own episode's tree and no
other.

Where the worker may mount (the `full` and `userns` tiers, and inside a Docker container),
the tree is an overlay: the layer below, a tmpfs of the episode's quota above, so that
opening, resetting and closing an episode copy nothing. Everything lives in a tmpfs that is
then covered by an empty read-only one (`STORE`): no path reaches it any more, not even for a
step that runs as the worker's own uid (a plain user's `userns` tier); the supervisor reaches
it through a descriptor it opened first. In the `container` tier, which cannot mount, the
tree is a copy of the layer in a root-only folder, whose entries are renamed into the work
folder for a command and back after it; the quota there is checked after each command.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from codegym.executor import _linux as linux

STORE = "/.ws"  # made by the worker's view (root only), covered once the store is mounted
STORE_BYTES = 4 << 30  # the layers' tmpfs: a bound, not a reservation (tmpfs takes what it holds)
SPARE_LAYERS = 32  # layers no open workspace uses, kept for the task's next episode
SESSION_ID = re.compile(r"[0-9a-f]{16}")
MAX_STACK = 32  # snapshots over one another before a snapshot squashes them into one
WALK_LIMIT = 100_000  # entries a copy store's size check visits before it calls the tree full


class WorkspaceRefused(Exception):
    """A request the worker turns down (an unknown or expired workspace): the caller's to handle."""


@dataclass
class _Session:
    layer: str
    disk: int
    idle_s: float
    used: float  # time.monotonic() of its last use
    stack: tuple[str, ...] = ()  # the snapshots below its own changes, top first
    over_layer: bool = True  # whether its layer is below them (not once squashed into one)
    frozen: int = 0  # the bytes its stack holds (they count against its quota)


@dataclass
class _Snapshot:
    """A workspace's tree frozen: read-only, shared by the workspaces restored or forked from
    it. ``stack`` holds it and the snapshots below it, top first."""

    layer: str
    stack: tuple[str, ...]
    over_layer: bool
    frozen: int
    idle_s: float
    used: float
    handles: int = 1  # the client's handles to it (`release` drops one)


class Store:
    """The open workspaces of one worker, and the layers below them."""

    def __init__(self, uid: int | None) -> None:
        self.uid = uid
        self.sessions: dict[str, _Session] = {}
        self.layers: OrderedDict[str, None] = OrderedDict()  # least recently used first
        self.snapshots: dict[str, _Snapshot] = {}
        self.users: dict[str, int] = {}  # snapshot -> the sessions and other snapshots above it
        self.retired = 0  # sessions taken out of use, not yet freed (`free_retired`)

    # --- requests ------------------------------------------------------------------------------

    def open(self, sid: str, key: str, files: dict[str, bytes], executables: tuple[str, ...], disk: int,
             idle_s: float) -> None:  # fmt: skip
        if not SESSION_ID.fullmatch(sid) or not re.fullmatch(r"[0-9a-f]{64}", key) or sid in self.sessions:
            raise WorkspaceRefused(f"bad or duplicate workspace id {sid!r}")
        self._prepare()
        self._layer(key, files, executables)
        session = _Session(key, disk, idle_s, time.monotonic())
        self._make(sid, session)
        self.sessions[sid] = session

    def check(self, sid: str) -> _Session:
        session = self.sessions.get(sid)
        if session is None:
            raise WorkspaceRefused(f"no open workspace {sid!r} on this worker (closed, or expired when idle)")
        session.used = time.monotonic()
        return session

    def reset(self, sid: str) -> None:
        session = self.check(sid)
        self._retire(sid)
        self._unuse(session.stack)
        session.stack, session.over_layer, session.frozen = (), True, 0
        self._make(sid, session)

    def close(self, sid: str) -> None:
        self.check(sid)
        self._retire(sid)
        self._forget(sid)

    def snapshot(self, sid: str, snap: str) -> None:
        """Freeze workspace ``sid``'s tree as snapshot ``snap``; the workspace goes on above it."""
        session = self.check(sid)
        if not SESSION_ID.fullmatch(snap) or snap in self.snapshots:
            raise WorkspaceRefused(f"bad or duplicate snapshot id {snap!r}")
        stack, over_layer, added = self._freeze(sid, snap, session)
        frozen = session.frozen + added
        self.snapshots[snap] = _Snapshot(session.layer, stack, over_layer, frozen, session.idle_s, time.monotonic())
        self.users[snap] = 0
        self._use(stack[1:])  # (the snapshot needs those below it)
        self._use(stack)  # (and the workspace needs them all)
        self._unuse(session.stack)
        session.stack, session.over_layer, session.frozen = stack, over_layer, frozen
        self._make(sid, session)

    def restore(self, sid: str, snap: str) -> None:
        """Put workspace ``sid`` back to snapshot ``snap`` (of any workspace of this worker)."""
        session = self.check(sid)
        frozen = self._snapshot(snap)
        self._retire(sid)
        self._use(frozen.stack)
        self._unuse(session.stack)
        session.layer, session.stack, session.over_layer, session.frozen = (
            frozen.layer, frozen.stack, frozen.over_layer, frozen.frozen)  # fmt: skip
        self._make(sid, session)

    def fork(self, sid: str, snap: str, disk: int, idle_s: float) -> None:
        """Open workspace ``sid`` as snapshot ``snap``'s tree."""
        if not SESSION_ID.fullmatch(sid) or sid in self.sessions:
            raise WorkspaceRefused(f"bad or duplicate workspace id {sid!r}")
        frozen = self._snapshot(snap)
        session = _Session(frozen.layer, disk, idle_s, time.monotonic(), frozen.stack, frozen.over_layer,
                           frozen.frozen)  # fmt: skip
        self._use(frozen.stack)
        self._make(sid, session)
        self.sessions[sid] = session

    def release(self, snap: str) -> None:
        """Drop a handle to ``snap``; it goes once no handle, workspace or snapshot needs it."""
        self._snapshot(snap).handles -= 1
        self._collect(snap)

    def changes(self, snap: str) -> tuple[dict[str, bytes | None], list[str]]:
        """What ``snap``'s tree changed from its layer: path -> content (``None``: deleted),
        for regular files, and the paths among them that are executable."""
        frozen = self._snapshot(snap)
        with self._tree_of(snap, frozen) as tree, self._here():
            return _diff(f"layers/{frozen.layer}", tree)

    def next_expiry(self) -> float | None:
        idle = [s.used + s.idle_s for s in (*self.sessions.values(), *self.snapshots.values())]
        return min(idle, default=None)

    def expire(self) -> None:
        now = time.monotonic()
        for sid, session in list(self.sessions.items()):
            if session.used + session.idle_s <= now:
                self._retire(sid)
                self._forget(sid)
        for snap, frozen in list(self.snapshots.items()):
            if frozen.handles and frozen.used + frozen.idle_s <= now:
                frozen.handles = 0
                self._collect(snap)

    def _snapshot(self, snap: str) -> _Snapshot:
        frozen = self.snapshots.get(snap)
        if frozen is None or frozen.handles <= 0:
            raise WorkspaceRefused(f"no snapshot {snap!r} on this worker (released, or expired when idle)")
        frozen.used = time.monotonic()
        return frozen

    def _use(self, stack: tuple[str, ...]) -> None:
        for snap in stack:
            self.users[snap] += 1

    def _unuse(self, stack: tuple[str, ...]) -> None:
        for snap in stack:
            self.users[snap] -= 1
        for snap in stack:
            self._collect(snap)

    def _collect(self, snap: str) -> None:
        """Drop ``snap`` if nothing needs it any more (and then what only it needed)."""
        frozen = self.snapshots.get(snap)
        if frozen is None or frozen.handles > 0 or self.users[snap] > 0:
            return
        del self.snapshots[snap], self.users[snap]
        self._drop_snapshot(snap)
        self._unuse(frozen.stack[1:])

    def _forget(self, sid: str) -> None:
        session = self.sessions.pop(sid)
        self._unuse(session.stack)
        self.layers.move_to_end(session.layer)
        needed = {s.layer for s in (*self.sessions.values(), *self.snapshots.values())}
        unused = [key for key in self.layers if key not in needed]
        for key in unused[: max(0, len(unused) - SPARE_LAYERS)]:
            self._drop_layer(key)
            del self.layers[key]

    def _layer(self, key: str, files: dict[str, bytes], executables: tuple[str, ...]) -> None:
        """Write the layer ``key`` once; later episodes of the task share it."""
        if key in self.layers:
            self.layers.move_to_end(key)
            return
        with self._here():
            partial = f"layers/.{key}"
            if os.path.lexists(partial):
                shutil.rmtree(partial)
            os.makedirs(partial, mode=0o755)
            made = {partial}
            for relative, content in files.items():
                path = f"{partial}/{relative}"
                folder = os.path.dirname(path)
                os.makedirs(folder, mode=0o755, exist_ok=True)
                while folder not in made:
                    made.add(folder)
                    folder = os.path.dirname(folder)
                with open(path, "xb") as handle:
                    handle.write(content)
                os.chmod(path, 0o755 if relative in executables else 0o644)
                self._give(path)
            for folder in made:
                self._give(folder)
            os.rename(partial, f"layers/{key}")
        self.layers[key] = None

    def _give(self, path: str) -> None:
        """Hand ``path`` to the submissions' uid, whose commands edit it."""
        if self.uid is not None:
            os.chown(path, self.uid, self.uid, follow_symlinks=False)

    # --- what each kind of store does ---------------------------------------------------------

    def _prepare(self) -> None:
        """Make the store, at the first workspace."""

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        """Run the block in the store's folder (its paths are relative to it)."""
        yield

    def _make(self, sid: str, session: _Session) -> None:
        """Make workspace ``sid``'s tree: its stack (or its layer) below, nothing of its own."""
        raise NotImplementedError

    def _retire(self, sid: str) -> None:
        raise NotImplementedError

    def _freeze(self, sid: str, snap: str, session: _Session) -> tuple[tuple[str, ...], bool, int]:
        """Keep ``sid``'s tree read-only as ``snap`` (the caller then remakes the workspace's
        tree above it); returns ``snap``'s stack, whether the layer is below it, and the bytes
        the workspace's own changes held."""
        raise NotImplementedError

    def _drop_snapshot(self, snap: str) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def _tree_of(self, snap: str, frozen: _Snapshot) -> Iterator[str]:
        """``snap``'s tree, readable for the block (a path relative to the store)."""
        raise NotImplementedError
        yield ""

    def _drop_layer(self, key: str) -> None:
        with self._here():
            shutil.rmtree(f"layers/{key}")

    def enter(self, sid: str, work: str) -> None:
        """Put workspace ``sid`` at ``work`` (empty) for a command."""
        raise NotImplementedError

    def leave(self, sid: str, work: str) -> int:
        """Take it away again; returns the bytes it holds (its own, above its layer)."""
        raise NotImplementedError

    def free_retired(self) -> None:
        """Free the retired workspaces' memory (while the worker is idle)."""


class OverlayStore(Store):
    """Workspaces as overlays over shared layers, in the store nothing else can reach."""

    def __init__(self, uid: int | None, *, user_namespace: bool) -> None:
        super().__init__(uid)
        self.fd = -1
        # In a user namespace, overlayfs keeps its whiteouts and opaque marks in user.* xattrs.
        self.options = ",userxattr" if user_namespace else ""

    def _prepare(self) -> None:
        if self.fd >= 0:
            return
        linux.tmpfs(STORE, STORE_BYTES, mode=0o700)
        self.fd = os.open(STORE, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        linux.tmpfs(STORE, 4096, mode=0, flags=linux.MS_RDONLY)  # covers it: no path leads there now
        with self._here():
            for folder in ("layers", "sessions", "snaps", "views", "retired"):
                os.mkdir(folder, 0o700)

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        os.fchdir(self.fd)
        try:
            yield
        finally:
            os.chdir("/")

    def _make(self, sid: str, session: _Session) -> None:
        top = f"sessions/{sid}"
        lower = [f"snaps/{snap}/upper" for snap in session.stack]
        if session.over_layer:
            lower.append(f"layers/{session.layer}")
        with self._here():
            os.makedirs(top, mode=0o700, exist_ok=True)
            linux.tmpfs(top, max(session.disk - session.frozen, 1 << 16), mode=0o700)
            os.mkdir(f"{top}/upper", 0o755)
            self._give(f"{top}/upper")  # (the tree's root takes its owner and mode)
            os.mkdir(f"{top}/work", 0o700)
            os.mkdir(f"{top}/tree", 0o755)
            options = f"lowerdir={':'.join(lower)},upperdir={top}/upper,workdir={top}/work{self.options}"
            linux.mount("overlay", f"{top}/tree", "overlay", linux.MS_NOSUID | linux.MS_NODEV, options)

    def _retire(self, sid: str) -> None:
        """Move the workspace's file systems under ``retired``, to be unmounted together later
        (an unmount waits for a grace period of every CPU: not on an episode's reset)."""
        with self._here():
            linux.move(f"sessions/{sid}", self._grave())
            os.rmdir(f"sessions/{sid}")

    def _grave(self) -> str:
        """An empty folder under ``retired`` for a file system to wait in."""
        if not self.retired:
            linux.tmpfs("retired", 1 << 20, mode=0o700)
        grave = f"retired/{self.retired}"
        os.mkdir(grave, 0o700)
        self.retired += 1
        return grave

    def _freeze(self, sid: str, snap: str, session: _Session) -> tuple[tuple[str, ...], bool, int]:
        """The workspace's own tmpfs (its changes) becomes the snapshot, read-only; its
        overlay is retired. Past `MAX_STACK` the whole tree is copied into one instead."""
        top = f"sessions/{sid}"
        with self._here():
            usage = os.statvfs(top)
            added = (usage.f_blocks - usage.f_bfree) * usage.f_frsize
            os.mkdir(f"snaps/{snap}", 0o700)
            if len(session.stack) + 1 >= MAX_STACK:
                linux.tmpfs(f"snaps/{snap}", STORE_BYTES, mode=0o700)  # (a bound: the tree's bytes)
                _copy_tree(f"{top}/tree", f"snaps/{snap}/upper", self._give)
                self._retire(sid)
                return (snap,), False, added
            linux.move(f"{top}/tree", self._grave())
            linux.move(top, f"snaps/{snap}")
            os.rmdir(top)
        return (snap, *session.stack), session.over_layer, added

    def _drop_snapshot(self, snap: str) -> None:
        with self._here():
            linux.move(f"snaps/{snap}", self._grave())
            os.rmdir(f"snaps/{snap}")

    @contextlib.contextmanager
    def _tree_of(self, snap: str, frozen: _Snapshot) -> Iterator[str]:
        """A read-only overlay of the snapshot's stack, for the block."""
        lower = [f"snaps/{below}/upper" for below in frozen.stack]
        if frozen.over_layer:
            lower.append(f"layers/{frozen.layer}")
        if len(lower) == 1:  # (a whole tree: read it where it is)
            yield lower[0]
            return
        view = f"views/{snap}"
        with self._here():
            os.makedirs(view, 0o700)
            options = f"lowerdir={':'.join(lower)}{self.options}"
            linux.mount("overlay", view, "overlay", linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV, options)
        try:
            yield view
        finally:
            with self._here():
                linux.move(view, self._grave())
                os.rmdir(view)

    def free_retired(self) -> None:
        if self.retired:
            with self._here():
                linux.umount("retired")
            self.retired = 0

    def enter(self, sid: str, work: str) -> None:
        with self._here():
            linux.move(f"sessions/{sid}/tree", work)

    def leave(self, sid: str, work: str) -> int:
        with self._here():
            linux.move(work, f"sessions/{sid}/tree")
            usage = os.statvfs(f"sessions/{sid}")
        return (usage.f_blocks - usage.f_bfree) * usage.f_frsize + self.sessions[sid].frozen


class CopyStore(Store):
    """Workspaces as copies of their layer, in a root-only folder of the worker's (the
    `container` tier: no mounts). Its commands' steps run as another uid, which cannot
    enter it."""

    def __init__(self, uid: int | None, folder: str) -> None:
        super().__init__(uid)
        self.folder = folder
        shutil.rmtree(folder, ignore_errors=True)  # a dead worker's, of this folder before us

    def _prepare(self) -> None:
        for name in ("layers", "sessions", "snaps"):
            os.makedirs(f"{self.folder}/{name}", mode=0o700, exist_ok=True)

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        os.chdir(self.folder)
        try:
            yield
        finally:
            os.chdir("/")

    def _make(self, sid: str, session: _Session) -> None:
        with self._here():
            if session.stack:  # (a snapshot's files have their owners already: copied as they are)
                _clone(f"snaps/{session.stack[0]}", f"sessions/{sid}")
            else:
                _copy_tree(f"layers/{session.layer}", f"sessions/{sid}", self._give)

    def _retire(self, sid: str) -> None:
        with self._here():
            shutil.rmtree(f"sessions/{sid}")  # (by descriptors: never through the tree's links)

    def _freeze(self, sid: str, snap: str, session: _Session) -> tuple[tuple[str, ...], bool, int]:
        """The tree itself becomes the snapshot, and the workspace a copy of it (no overlays
        here: each snapshot, restore and fork costs a copy of the tree)."""
        with self._here():
            os.rename(f"sessions/{sid}", f"snaps/{snap}")
        return (snap,), False, 0

    def _drop_snapshot(self, snap: str) -> None:
        with self._here():
            shutil.rmtree(f"snaps/{snap}")

    @contextlib.contextmanager
    def _tree_of(self, snap: str, frozen: _Snapshot) -> Iterator[str]:
        yield f"snaps/{snap}"

    def enter(self, sid: str, work: str) -> None:
        tree = f"{self.folder}/sessions/{sid}"
        for name in os.listdir(tree):
            os.rename(f"{tree}/{name}", f"{work}/{name}")

    def leave(self, sid: str, work: str) -> int:
        tree = f"{self.folder}/sessions/{sid}"
        for name in os.listdir(work):
            os.rename(f"{work}/{name}", f"{tree}/{name}")
        return _size(tree)


def _size(tree: str) -> int:
    """Bytes the files under ``tree`` occupy (a tree too large to walk counts as full)."""
    total, seen = 0, 0
    for folder, names, files in os.walk(tree):
        for name in (*names, *files):
            seen += 1
            if seen > WALK_LIMIT:
                return 1 << 62
            with contextlib.suppress(OSError):
                total += os.lstat(f"{folder}/{name}").st_blocks * 512
    return total


def _copy_tree(source: str, target: str, give: Callable[[str], None] | None) -> None:
    """Copy the tree ``source`` to ``target`` (links as links), each entry then handed on
    by ``give``."""
    shutil.copytree(source, target, symlinks=True)
    if give is not None:
        for folder, names, files in os.walk(target):
            for name in (folder, *(f"{folder}/{n}" for n in (*names, *files))):
                give(name)


def _clone(source: str, target: str) -> None:
    """Copy the tree ``source`` to ``target`` as it is: owners, modes and times kept, links
    as links, regular files by ``copy_file_range`` (no process started, no file read into
    this one). Other kinds of files (a fifo a command made) are left out."""
    for folder, names, files in os.walk(source):
        into = target + folder[len(source) :]
        _clone_entry(folder, into)
        for name in (*files, *(n for n in names if os.path.islink(f"{folder}/{n}"))):
            _clone_entry(f"{folder}/{name}", f"{into}/{name}")
    for folder, _, _ in os.walk(source):  # (a folder's time, once what went in it is written)
        status = os.lstat(folder)
        os.utime(target + folder[len(source) :], ns=(status.st_atime_ns, status.st_mtime_ns))


def _clone_entry(path: str, into: str) -> None:
    status = os.lstat(path)
    if stat.S_ISDIR(status.st_mode):
        os.mkdir(into, 0o700)
    elif stat.S_ISLNK(status.st_mode):
        os.symlink(os.readlink(path), into)
    elif stat.S_ISREG(status.st_mode):
        with open(path, "rb") as source, open(into, "xb") as copy:
            left = status.st_size
            while left > 0:
                done = os.copy_file_range(source.fileno(), copy.fileno(), left)
                if done == 0:
                    break
                left -= done
    else:
        return
    os.chown(into, status.st_uid, status.st_gid, follow_symlinks=False)
    if not stat.S_ISLNK(status.st_mode):
        os.chmod(into, stat.S_IMODE(status.st_mode))
        os.utime(into, ns=(status.st_atime_ns, status.st_mtime_ns))


def _diff(layer: str, tree: str) -> tuple[dict[str, bytes | None], list[str]]:
    """The regular files of ``tree`` that are not in ``layer`` or differ from it, with their
    contents, the files of ``layer`` that ``tree`` lacks (``None``), and which of the
    changed files are executable. Links and empty folders are not carried."""
    changed: dict[str, bytes | None] = {}
    executables: list[str] = []
    seen: set[str] = set()
    for folder, _, files in os.walk(tree):
        for name in files:
            path = f"{folder}/{name}"
            relative = os.path.relpath(path, tree)
            status = os.lstat(path)
            if not stat.S_ISREG(status.st_mode):
                continue
            seen.add(relative)
            with open(path, "rb") as handle:
                content = handle.read()
            below = f"{layer}/{relative}"
            if os.path.isfile(below) and not os.path.islink(below):
                with open(below, "rb") as handle:
                    same = handle.read() == content
                if same and (os.stat(below).st_mode & 0o111) == (status.st_mode & 0o111):
                    continue
            changed[relative] = content
            if status.st_mode & 0o100:
                executables.append(relative)
    for folder, _, files in os.walk(layer):
        for name in files:
            relative = os.path.relpath(f"{folder}/{name}", layer)
            if relative not in seen:
                changed[relative] = None
    return changed, executables
