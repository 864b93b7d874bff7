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
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

from codegym.executor import _linux as linux

STORE = "/.ws"  # made by the worker's view (root only), covered once the store is mounted
STORE_BYTES = 4 << 30  # the layers' tmpfs: a bound, not a reservation (tmpfs takes what it holds)
SPARE_LAYERS = 32  # layers no open workspace uses, kept for the task's next episode
SESSION_ID = re.compile(r"[0-9a-f]{16}")
WALK_LIMIT = 100_000  # entries a copy store's size check visits before it calls the tree full


class WorkspaceRefused(Exception):
    """A request the worker turns down (an unknown or expired workspace): the caller's to handle."""


@dataclass
class _Session:
    layer: str
    disk: int
    idle_s: float
    used: float  # time.monotonic() of its last use


class Store:
    """The open workspaces of one worker, and the layers below them."""

    def __init__(self, uid: int | None) -> None:
        self.uid = uid
        self.sessions: dict[str, _Session] = {}
        self.layers: OrderedDict[str, None] = OrderedDict()  # least recently used first
        self.retired = 0  # sessions taken out of use, not yet freed (`free_retired`)

    # --- requests ------------------------------------------------------------------------------

    def open(self, sid: str, key: str, files: dict[str, bytes], executables: tuple[str, ...], disk: int,
             idle_s: float) -> None:  # fmt: skip
        if not SESSION_ID.fullmatch(sid) or not re.fullmatch(r"[0-9a-f]{64}", key) or sid in self.sessions:
            raise WorkspaceRefused(f"bad or duplicate workspace id {sid!r}")
        self._prepare()
        self._layer(key, files, executables)
        self._make(sid, key, disk)
        self.sessions[sid] = _Session(key, disk, idle_s, time.monotonic())

    def check(self, sid: str) -> _Session:
        session = self.sessions.get(sid)
        if session is None:
            raise WorkspaceRefused(f"no open workspace {sid!r} on this worker (closed, or expired when idle)")
        session.used = time.monotonic()
        return session

    def reset(self, sid: str) -> None:
        session = self.check(sid)
        self._retire(sid)
        self._make(sid, session.layer, session.disk)

    def close(self, sid: str) -> None:
        self.check(sid)
        self._retire(sid)
        self._forget(sid)

    def next_expiry(self) -> float | None:
        return min((s.used + s.idle_s for s in self.sessions.values()), default=None)

    def expire(self) -> None:
        now = time.monotonic()
        for sid, session in list(self.sessions.items()):
            if session.used + session.idle_s <= now:
                self._retire(sid)
                self._forget(sid)

    def _forget(self, sid: str) -> None:
        layer = self.sessions.pop(sid).layer
        self.layers.move_to_end(layer)
        unused = [key for key in self.layers if all(s.layer != key for s in self.sessions.values())]
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

    def _make(self, sid: str, layer: str, disk: int) -> None:
        raise NotImplementedError

    def _retire(self, sid: str) -> None:
        raise NotImplementedError

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
            for folder in ("layers", "sessions", "retired"):
                os.mkdir(folder, 0o700)

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        os.fchdir(self.fd)
        try:
            yield
        finally:
            os.chdir("/")

    def _make(self, sid: str, layer: str, disk: int) -> None:
        top = f"sessions/{sid}"
        with self._here():
            os.makedirs(top, mode=0o700, exist_ok=True)
            linux.tmpfs(top, disk, mode=0o700)
            os.mkdir(f"{top}/upper", 0o755)
            self._give(f"{top}/upper")  # (the tree's root takes its owner and mode)
            os.mkdir(f"{top}/work", 0o700)
            os.mkdir(f"{top}/tree", 0o755)
            options = f"lowerdir=layers/{layer},upperdir={top}/upper,workdir={top}/work{self.options}"
            linux.mount("overlay", f"{top}/tree", "overlay", linux.MS_NOSUID | linux.MS_NODEV, options)

    def _retire(self, sid: str) -> None:
        """Move the workspace's file systems under ``retired``, to be unmounted together later
        (an unmount waits for a grace period of every CPU: not on an episode's reset)."""
        with self._here():
            if not self.retired:
                linux.tmpfs("retired", 1 << 20, mode=0o700)
            grave = f"retired/{self.retired}"
            os.mkdir(grave, 0o700)
            linux.move(f"sessions/{sid}", grave)
            os.rmdir(f"sessions/{sid}")
            self.retired += 1

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
        return (usage.f_blocks - usage.f_bfree) * usage.f_frsize


class CopyStore(Store):
    """Workspaces as copies of their layer, in a root-only folder of the worker's (the
    `container` tier: no mounts). Its commands' steps run as another uid, which cannot
    enter it."""

    def __init__(self, uid: int | None, folder: str) -> None:
        super().__init__(uid)
        self.folder = folder
        shutil.rmtree(folder, ignore_errors=True)  # a dead worker's, of this folder before us

    def _prepare(self) -> None:
        for name in ("layers", "sessions"):
            os.makedirs(f"{self.folder}/{name}", mode=0o700, exist_ok=True)

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        os.chdir(self.folder)
        try:
            yield
        finally:
            os.chdir("/")

    def _make(self, sid: str, layer: str, disk: int) -> None:
        with self._here():
            shutil.copytree(f"layers/{layer}", f"sessions/{sid}", symlinks=True)
            for folder, names, files in os.walk(f"sessions/{sid}"):
                for name in (folder, *(f"{folder}/{n}" for n in (*names, *files))):
                    self._give(name)

    def _retire(self, sid: str) -> None:
        with self._here():
            shutil.rmtree(f"sessions/{sid}")  # (by descriptors: never through the tree's links)

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
