"""`MachineEpisode`: an agent episode whose workspace is a whole machine (a
`codegym.executor.rootbox.RootBox`), shared by the families that give an agent one (a terminal
task's machine, a project's).

The bash tool runs a command there, as the family's user, in its folder, with its variables;
the editor and search tools act on the machine's files from processes the box's init starts
(codegym's own code, never the machine's programs). The budgets are the episode's calls, its
wall-clock time and the machine's disk quota.

An episode can be snapshot between two steps (`MachineEpisode.snapshot`, used by
`codegym.episodes`): the box's upper layer (what the episode changed) is copied out, its
processes stopped meanwhile, into a folder of its own (`copies_root`); a box restored or
forked from it stands on that copy, over the layers the box stood on. A snapshot costs a copy
of the episode's changes (``cp -a`` speed), a restore or a fork a box's start. A snapshot of a
box made from a snapshot copies only what changed since and stands on the copies below it
(`earlier_changes`): a chain of them is never squashed as it grows, so past `MAX_CHAIN` copies a
snapshot copies the whole chain's changes, merged, into one (a box never stands on more, and
overlayfs' limits on lower layers are never reached). Whatever reads an episode's changes (a
verifier's copy, a submission's diff) reads them merged (`copy_changes`). Processes are
not carried: a service the task started runs in the snapshot's box only, and must be started
again in a box made from it (`MachineSnapshot.processes` says how many ran). Copies are
counted (handles not released, live boxes over them) and removed when nothing uses them, once
the boxes over them are torn down: a lower layer never goes from under a mounted overlay.
"""

from __future__ import annotations

import atexit
import copy
import functools
import itertools
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from codegym.agent import AgentEpisode, EpisodeSnapshot, ToolResult
from codegym.executor.rootbox import Background, BoxSpec, Isolation, RootBox, after_teardowns, remove_tree, run_root
from codegym.tools.calls import ToolCall

EDITOR, SEARCH = "codegym.tools.editor", "codegym.tools.search"
MAX_CHAIN = 32  # snapshot copies a box stands on, at most: past it a snapshot flattens them into one
_counter = itertools.count()


@dataclass(frozen=True)
class Place:
    """Where and how a machine's tool calls run.

    Attributes:
        user: The machine's user that runs them.
        cwd: The folder they start in.
        env: Their variables.
        shell: The bash tool's shell (its command is appended).
        background: What becomes of the processes a command leaves (see `RootBox.run`).
    """

    user: str = "root"
    cwd: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    shell: tuple[str, ...] = ("/bin/bash", "-c")
    background: Background = "keep"


@dataclass(frozen=True, eq=False)
class MachineSnapshot:
    """A machine episode frozen between two steps (`MachineEpisode.snapshot`; the
    ``workspace`` of its `EpisodeSnapshot`).

    Attributes:
        layer: The box's upper layer, copied (a folder under `copies_root`); where the box
            stood on `MAX_CHAIN` copies, merged over their changes.
        spec: What a box made from it is made of: ``(layer, *the box's layers)`` (but the
            copies merged into ``layer``), the box's limits and binds.
        isolation: The box's tier.
        launcher: The command its box server ran under.
        processes: How many processes ran in the box (its init aside) when it was taken. None
            is carried: a service the task started must be started again in a box made from it.
        state: The episode's own values (`MachineEpisode.own_state`: a terminal task's step,
            its steps judged, the reward given so far).
    """

    layer: str
    spec: BoxSpec
    isolation: Isolation
    launcher: tuple[str, ...]
    processes: int
    state: Mapping[str, Any] = field(repr=False)


class MachineEpisode(AgentEpisode):
    """Tool calls in ``self.box`` where `place` says; a family sets ``box``, ``setup`` and
    ``limits`` (and ``family_tools``, ``calls``, ``elapsed_s``: see `start`)."""

    box: RootBox

    def start(self) -> None:
        """The budgets' counters at zero, and no family tool."""
        self.family_tools = {}
        self.calls = 0
        self.elapsed_s = 0.0

    def place(self) -> Place:
        """Where this episode's calls run now (a multi-step task may move them)."""
        return Place()

    def workdir(self) -> str:
        """The machine's folder the calls start in now (a terminal task's or a project's)."""
        return self.place().cwd

    def exhausted(self) -> str | None:
        if self.calls >= self.limits.max_calls:
            return "calls"
        if self.elapsed_s >= self.limits.wall_s:
            return "wall"
        if self.box.over_quota:
            return "disk"
        return None

    def call(self, call: ToolCall) -> ToolResult:
        self.calls += 1
        started = time.monotonic()
        arguments = dict(call.arguments)
        where = self.place()
        if call.name == "bash":
            asked = float(arguments.get("timeout_s") or self.limits.timeout_s)
            timeout = max(0.001, min(asked, self.limits.max_timeout_s, self.limits.wall_s - self.elapsed_s))
            command = (*where.shell, str(arguments.get("command", "")))
            result = self.box.run(command, user=where.user, cwd=where.cwd, env=where.env, timeout_s=timeout,
                                  output_bytes=self.limits.output_bytes, background=where.background)  # fmt: skip
            content = result.output
            if result.timed_out:
                content += f"\n[the command timed out after {timeout:g} s and was killed]"
            exit_code = 124 if result.timed_out else result.exit_code
            if result.signal is not None:
                exit_code = 128 + result.signal
        else:
            module = EDITOR if call.name == "str_replace_editor" else SEARCH
            result = self.box.tool(module, arguments, user=where.user, cwd=where.cwd, env=where.env,
                                   output_bytes=self.limits.output_bytes)  # fmt: skip
            content, exit_code = result.output, result.exit_code
        elapsed = time.monotonic() - started
        self.elapsed_s += elapsed
        truncated = result.elided_bytes > 0
        return ToolResult(call.id, call.name, content.strip("\n"), exit_code, truncated, round(elapsed, 6),
                          result.timed_out, result.background_killed)  # fmt: skip

    def own_state(self) -> dict[str, Any]:
        """What a snapshot keeps of the episode beyond its machine and budgets (a family's
        values: a terminal task's step); none by default."""
        return {}

    def restore_own_state(self, state: Mapping[str, Any]) -> None:
        """Take back the values `own_state` gave (copies: a fork must not share the parent's)."""

    def snapshot(self) -> EpisodeSnapshot:
        """The machine's files and the episode's state, frozen: the box's upper layer copied
        (its processes stopped meanwhile) into a folder of its own, over the copies the box
        stands on; where those are `MAX_CHAIN` already, the copy holds their changes too,
        merged, over the box's first layers instead. See `MachineSnapshot`."""
        box = self.box
        running = len(box.processes())
        below = earlier_changes(box)
        flatten = len(below) >= MAX_CHAIN
        dest = _new_copy()
        try:
            with box.stopped():
                box.snapshot(dest, below=below if flatten else ())
        except BaseException:
            remove_tree(dest)
            raise
        under = box.spec.layers[len(below) :] if flatten else box.spec.layers  # (the copies merged, or kept)
        spec = replace(box.spec, layers=(dest, *under))
        _copies().made(dest, spec.layers)
        machine = MachineSnapshot(dest, spec, box.isolation, box.launcher, running, self.own_state())
        return EpisodeSnapshot(machine, self.calls, self.elapsed_s)

    def restore(self, snapshot: EpisodeSnapshot) -> None:
        """Back to ``snapshot``: a fresh box over its layers (this episode's box is closed,
        whatever ran in it), its budgets spent and its own values."""
        machine = _machine_of(snapshot)
        box = _open_box(machine)
        old, self.box = self.box, box
        _close_box(old)
        self.calls, self.elapsed_s = snapshot.calls, snapshot.elapsed_s
        self.restore_own_state(machine.state)

    def fork(self, snapshot: EpisodeSnapshot) -> MachineEpisode:
        """A new episode of the same task going on from ``snapshot``, in a box of its own over
        its layers (this episode may be closed: the snapshot holds what the box needs)."""
        machine = _machine_of(snapshot)
        child = copy.copy(self)
        child.box = _open_box(machine)
        child.calls, child.elapsed_s = snapshot.calls, snapshot.elapsed_s
        child.restore_own_state(machine.state)
        return child

    def release(self, snapshot: EpisodeSnapshot) -> None:
        """Let the handle go: its copy is removed once no box stands on it either. Idempotent."""
        _copies().release(_machine_of(snapshot))

    def close(self) -> None:
        _close_box(self.box)


def earlier_changes(box: RootBox) -> tuple[str, ...]:
    """The snapshot copies ``box`` stands on, top first (the first of its layers): what the
    boxes its episode ran in before it changed, over the layers below them. Empty for a box not
    made from a snapshot (`MachineEpisode.restore`, `fork`) of this process's."""
    return _copies().held_by(box)


def copy_changes(box: RootBox, dest: str) -> None:
    """Copy every change of ``box``'s episode into the folder ``dest`` (made), as one upper
    layer over the box's first layers: its own upper layer merged over the copies it stands on
    (`earlier_changes`; see `RootBox.snapshot`), its processes stopped meanwhile.

    Raises:
        SandboxError: The copy failed.
    """
    with box.stopped():
        box.snapshot(dest, below=earlier_changes(box))


def refuse_to_dump(state: Mapping[str, Any], family: str) -> None:
    """Refuse to dump ``state`` (`CodeEnv.snapshot_state`'s, of an env of ``family``) where it
    holds a machine episode's snapshot: that is a machine's files on this host, not data.

    Raises:
        NotImplementedError: It holds one.
    """
    if state["agent"] is not None and isinstance(state["agent"][1].workspace, MachineSnapshot):
        raise NotImplementedError(
            f"a {family} episode's snapshot is its machine's files on this host and cannot be dumped to another "
            "process: restore or fork it here (codegym.episodes.restore/fork), or replay its tool calls there"
        )


def copies_root() -> str:
    """Where machine snapshots keep their copies: ``snapshots`` beside the boxes' run folder
    (`codegym.executor.rootbox.run_root`)."""
    return os.path.join(os.path.dirname(run_root()), "snapshots")


class _Copies:
    """This process's snapshot copies and what uses each: its handle until released, and
    each live box that stands on it (a snapshot of such a box holds every copy below its own
    too). A copy nothing uses is removed after the teardowns of the boxes closed so far."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.uses: dict[str, int] = {}
        self.handles: set[str] = set()
        self.boxes: dict[RootBox, tuple[str, ...]] = {}

    def made(self, layer: str, layers: tuple[str, ...]) -> None:
        """A new copy ``layer``, its handle holding it and the copies below it (``layers``)."""
        with self.lock:
            self.uses[layer] = 0
            self.handles.add(layer)
            for path in self._ours(layers):
                self.uses[path] += 1

    def hold(self, machine: MachineSnapshot) -> tuple[str, ...]:
        """Hold the copies a box over ``machine`` will stand on (`let_go` them when it closes)."""
        with self.lock:
            if machine.layer not in self.handles:
                raise ValueError(
                    f"this snapshot ({machine.layer}) was released, or taken in another process: restore or "
                    "fork from a snapshot of this process's before releasing it, or take another"
                )
            held = self._ours(machine.spec.layers)
            for path in held:
                self.uses[path] += 1
            return held

    def attach(self, box: RootBox, held: tuple[str, ...]) -> None:
        with self.lock:
            self.boxes[box] = held

    def held_by(self, box: RootBox) -> tuple[str, ...]:
        """The copies ``box`` stands on (its layers' first), top first."""
        with self.lock:
            return self.boxes.get(box, ())

    def detach(self, box: RootBox) -> None:
        """``box`` is closed: let go of what it held."""
        with self.lock:
            held = self.boxes.pop(box, ())
        self.let_go(held)

    def release(self, machine: MachineSnapshot) -> None:
        with self.lock:
            if machine.layer not in self.handles:
                return
            self.handles.discard(machine.layer)
        self.let_go(self._ours(machine.spec.layers))

    def let_go(self, held: tuple[str, ...]) -> None:
        freed = []
        with self.lock:
            for path in held:
                self.uses[path] -= 1
                if self.uses[path] == 0:
                    del self.uses[path]
                    freed.append(path)
        if freed:
            after_teardowns(functools.partial(_remove_all, freed))

    def _ours(self, layers: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(path for path in layers if path in self.uses)

    def at_exit(self) -> None:
        """Remove the copies left, but those under a box still open (a stale copy of this
        process's is removed by the next process that makes one)."""
        with self.lock:
            busy = {path for box, held in self.boxes.items() if not box.closed for path in held}
            left = [path for path in self.uses if path not in busy]
            self.uses.clear()
        _remove_all(left)


_registries: dict[int, _Copies] = {}
_registries_lock = threading.Lock()


def _copies() -> _Copies:
    """This process's copies (a forked process starts with none: its parent's are its parent's)."""
    with _registries_lock:
        return _registries.setdefault(os.getpid(), _Copies())


def _remove_left() -> None:
    _copies().at_exit()


# (registered at import, before any box server: it runs after their `atexit` closed the boxes)
atexit.register(_remove_left)


def _remove_all(paths: list[str]) -> None:
    for path in paths:
        remove_tree(path)


def _new_copy() -> str:
    """A new, empty folder for a snapshot's copy (removing first those of processes gone)."""
    root = copies_root()
    os.makedirs(root, mode=0o700, exist_ok=True)
    for name in os.listdir(root):
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "snap" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            remove_tree(os.path.join(root, name))
    dest = os.path.join(root, f"snap-{os.getpid()}-{next(_counter)}")
    os.mkdir(dest, 0o700)
    return dest


def _machine_of(snapshot: EpisodeSnapshot) -> MachineSnapshot:
    if not isinstance(snapshot.workspace, MachineSnapshot):
        raise TypeError(
            f"a machine episode restores and forks machine snapshots, got one of a "
            f"{type(snapshot.workspace).__name__}: restore a snapshot into an env of the family it was taken of"
        )
    return snapshot.workspace


def _open_box(machine: MachineSnapshot) -> RootBox:
    """A fresh box over ``machine``'s layers, holding its copies."""
    held = _copies().hold(machine)
    try:
        box = RootBox(machine.spec, isolation=machine.isolation, launcher=machine.launcher)
    except BaseException:
        _copies().let_go(held)
        raise
    _copies().attach(box, held)
    return box


def _close_box(box: RootBox) -> None:
    """Close ``box`` and let go of the copies it stood on."""
    try:
        box.close()
    finally:
        _copies().detach(box)
