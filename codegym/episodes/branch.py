"""Snapshot, restore and fork a live episode: for tree search, rewinds and parallel branches.

Between two steps an episode's state is small and plain: the task, the attempt count, the last
grade, the RNG, each wrapper's counters and, in ``mode="agent"``, a workspace in which no
process runs (so its files are its whole state). `snapshot` freezes all of it; `restore` puts
an env back to a snapshot; `fork` makes ``n`` independent envs going on from one; `release`
frees a snapshot; `dump` writes one as JSON and `load` makes another env (on another worker,
node or server) go on from it::

    env = gym.make("codegym/PythonFunction-v0", mode="agent", max_episode_steps=20)
    env.reset(seed=0)
    env.step(first_action)
    h = snapshot(env)                 # the workspace's changes become a read-only layer
    env.step(risky_action)
    restore(env, h)                   # as it was before the risky action
    branches = fork(env, 8)           # eight envs, each with its own workspace over the same layer
    record = dump(env, h)             # JSON: the bytes written, the episode's values
    load(elsewhere, record)           # an env made the same way goes on from there
    release(env, h)

Workspaces are frozen in the executor's store (`codegym.executor.workspace.Workspace.snapshot`):
where it can mount, a snapshot shares the files instead of copying them, and a fork costs a
mount; in the `container` tier each one copies the tree. Forks live on their parent's worker.

Each wrapper's state is copied: its attributes, deep-copied (a gymnasium ``TimeLimit``'s step
count, a curriculum's tables), unless the wrapper defines ``snapshot_state()`` and
``restore_state(state, *, fork)`` (as `RecordEpisodes` does: a fork records an episode of its
own, marked with the episode and step it was forked from).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

from codegym.serve.wire import decode, encode

DUMP_VERSION = 1
# A wrapper's attributes that are the same in every copy of it (never copied, never restored).
SHARED = frozenset({"env", "_action_space", "_observation_space", "_metadata", "_cached_spec", "_reward_range"})


@runtime_checkable
class Branchable(Protocol):
    """What an env offers to be snapshot: `CodeEnv` and `codegym.remote.RemoteEnv` do."""

    def snapshot_state(self) -> Mapping[str, Any]: ...

    def restore_state(self, state: Mapping[str, Any], *, fork: bool = False) -> None: ...

    def release_state(self, state: Mapping[str, Any]) -> None: ...

    def forked(self, state: Mapping[str, Any], seed: int | None) -> gym.Env: ...

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]: ...

    def load_state(self, record: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True, eq=False)
class EnvSnapshot:
    """An env between two steps (`snapshot`).

    Attributes:
        core: The codegym env's state (`CodeEnv.snapshot_state`).
        wrappers: Each wrapper's state, outermost first.
    """

    core: Mapping[str, Any]
    wrappers: tuple[Any, ...]


def snapshot(env: gym.Env) -> EnvSnapshot:
    """Freeze ``env`` (a codegym env, wrapped or not) as it stands between two steps."""
    chain, core = _chain(env)
    return EnvSnapshot(core.snapshot_state(), tuple(_wrapper_state(wrapper) for wrapper in chain))


def restore(env: gym.Env, snapshot: EnvSnapshot) -> None:
    """Put ``env`` back as it was at ``snapshot`` (taken of this env or of another of the same
    wrappers and executor: a sibling branch's)."""
    chain, core = _chain(env)
    _check(chain, snapshot)
    core.restore_state(snapshot.core)
    for wrapper, state in zip(chain, snapshot.wrappers, strict=True):
        _restore_wrapper(wrapper, state, fork=False)


def fork(env: gym.Env, n: int = 1, *, snapshot: EnvSnapshot | None = None, seed: int | None = None) -> list[gym.Env]:
    """``n`` independent envs going on from ``snapshot`` (by default from ``env`` as it stands):
    the same wrappers over a copy of the codegym env, each with its own workspace. The RNG's
    state is copied, or, given ``seed``, the i-th fork's RNG is seeded with ``seed + i``.
    Close each fork when done (its workspace goes with it)."""
    if n < 0:
        raise ValueError(f"fork(env, n) needs n >= 0, got {n}")
    chain, core = _chain(env)
    taken = snapshot or globals()["snapshot"](env)
    _check(chain, taken)
    try:
        return [_fork_one(chain, core, taken, None if seed is None else seed + i) for i in range(n)]
    finally:
        if snapshot is None:
            release(env, taken)


def release(env: gym.Env, snapshot: EnvSnapshot) -> None:
    """Free ``snapshot`` (what was restored or forked from it keeps its files)."""
    _, core = _chain(env)
    core.release_state(snapshot.core)


def dump(env: gym.Env, snapshot: EnvSnapshot) -> dict[str, Any]:
    """``snapshot`` as JSON, to move it elsewhere: the bytes its workspace wrote (not the
    task's files), its episode's values and each wrapper's state. `load` it into an env made
    the same way, on any worker, node or server.

    Raises:
        TypeError: A wrapper whose state is not plain JSON, arrays or grades (give it
            ``snapshot_state``/``restore_state`` methods that are).
    """
    chain, core = _chain(env)
    _check(chain, snapshot)
    wrappers = []
    for wrapper, state in zip(chain, snapshot.wrappers, strict=True):
        try:
            wrappers.append({"wrapper": type(wrapper).__name__, "state": encode(state)})
        except TypeError as e:
            raise TypeError(f"{type(wrapper).__name__}'s state does not serialise: {e}") from e
    return {"version": DUMP_VERSION, "core": core.dump_state(snapshot.core), "wrappers": wrappers}


def load(env: gym.Env, record: Mapping[str, Any]) -> None:
    """Make ``env`` go on from a `dump` record (of an env with the same wrappers)."""
    chain, core = _chain(env)
    if record.get("version") != DUMP_VERSION:
        raise ValueError(f"a snapshot record of version {record.get('version')!r}; this codegym reads {DUMP_VERSION}")
    names = [item["wrapper"] for item in record["wrappers"]]
    if names != [type(wrapper).__name__ for wrapper in chain]:
        raise ValueError(f"the record was dumped under the wrappers {names}, the env has "
                         f"{[type(wrapper).__name__ for wrapper in chain]}")  # fmt: skip
    core.load_state(record["core"])
    for wrapper, item in zip(chain, record["wrappers"], strict=True):
        _restore_wrapper(wrapper, decode(item["state"]), fork=False)


def _fork_one(chain: list[gym.Wrapper], core: Branchable, taken: EnvSnapshot, seed: int | None) -> gym.Env:
    child: gym.Env = core.forked(taken.core, seed)
    for wrapper, state in zip(reversed(chain), reversed(taken.wrappers), strict=True):
        outer = copy.copy(wrapper)
        outer.env = child
        _restore_wrapper(outer, state, fork=True)
        child = outer
    return child


def _chain(env: gym.Env) -> tuple[list[gym.Wrapper], Branchable]:
    """``env``'s wrappers, outermost first, and the codegym env inside them (a `CodeEnv`, or a
    `codegym.remote.RemoteEnv` whose server keeps the snapshots)."""
    chain: list[gym.Wrapper] = []
    while isinstance(env, gym.Wrapper):
        chain.append(env)
        env = env.env
    if not isinstance(env, Branchable):
        raise TypeError(f"snapshots are of codegym envs, got {type(env).__name__} inside the wrappers")
    return chain, env


def _check(chain: list[gym.Wrapper], snapshot: EnvSnapshot) -> None:
    if len(chain) != len(snapshot.wrappers):
        raise ValueError(
            f"this snapshot was taken under {len(snapshot.wrappers)} wrappers, the env has {len(chain)}: "
            "restore it into the env it was taken of, or a fork of it"
        )


def _wrapper_state(wrapper: gym.Wrapper) -> Any:
    own = getattr(wrapper, "snapshot_state", None)
    if callable(own):
        return own()
    return {name: copy.deepcopy(value) for name, value in vars(wrapper).items() if name not in SHARED}


def _restore_wrapper(wrapper: gym.Wrapper, state: Any, *, fork: bool) -> None:
    own = getattr(wrapper, "restore_state", None)
    if callable(own):
        own(state, fork=fork)
        return
    vars(wrapper).update(copy.deepcopy(state))
