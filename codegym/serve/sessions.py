"""What a server holds: env keyword arguments checked, sessions, the concurrency gate, and the
long-lived scoring envs. No grading happens here: sessions map to envs, batches to `Scorer`."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from codegym.agent import AgentLimits
from codegym.batch import Scorer
from codegym.core import ReferenceTimeLimits
from codegym.executor import Limits
from codegym.serve.config import SERVER_ONLY_KWARGS, ServeConfig

# Env keyword arguments given as JSON objects, and the value types they become.
OBJECT_KWARGS: Mapping[str, Callable[..., Any]] = {
    "limits": Limits,
    "agent": AgentLimits,
    "time_limits": ReferenceTimeLimits,
}


class ApiError(Exception):
    """A request the server refuses: its HTTP status, a type name and a message (and headers)."""

    def __init__(self, status: int, kind: str, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        return {"error": {"type": self.kind, "message": self.message}}


def busy(config: ServeConfig, what: str) -> ApiError:
    """The answer of a full server: 503 with ``Retry-After``."""
    return ApiError(
        503,
        "Busy",
        f"busy: {what}; retry after {config.retry_after_s} s (or add servers and spread the load over them)",
        {"Retry-After": str(config.retry_after_s)},
    )


# --- env ids and keyword arguments ---------------------------------------------------------------


def check_env_id(env_id: str, config: ServeConfig) -> str:
    """``env_id`` if this server serves it, else a 404 naming the nearest ids."""
    if env_id in gym.registry and (env_id.startswith("codegym/") or env_id in config.env_ids):
        return env_id
    served = served_ids(config)
    close = difflib.get_close_matches(env_id, served, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise ApiError(404, "UnknownEnv", f"this server serves no env {env_id!r}: {hint}served: {', '.join(served)}")


def served_ids(config: ServeConfig) -> list[str]:
    return sorted(i for i in gym.registry if i.startswith("codegym/") or i in config.env_ids)


def env_kwargs(config: ServeConfig, requested: Any) -> dict[str, Any]:
    """The keyword arguments of an env a client asks for: the server's ``env_kwargs`` under the
    client's (JSON values; ``limits``, ``agent`` and ``time_limits`` given as objects of
    their fields). Raises a 400 `ApiError` naming what is wrong."""
    if requested is None:
        requested = {}
    if not isinstance(requested, dict):
        raise ApiError(400, "InvalidKwargs", f"env_kwargs must be a JSON object, got {type(requested).__name__}")
    if "token" in requested:  # (a client's token goes in its Authorization header; its value is not repeated)
        raise ApiError(400, "InvalidKwargs", "env_kwargs has a 'token': a server's token is sent in the Authorization "
                       "header (Bearer TOKEN), never as an env setting; update the client")  # fmt: skip
    refused = sorted(set(requested) & SERVER_ONLY_KWARGS)
    if refused:
        raise ApiError(403, "ForbiddenKwargs", f"env_kwargs {refused} are the server's to choose (codegym serve "
                       "--option KEY=VALUE sets them for every env)")  # fmt: skip
    if not config.allow_paths:
        for key, value in requested.items():
            if isinstance(value, str) and (os.sep in value or value.startswith((".", "~"))):
                raise ApiError(403, "ForbiddenKwargs", f"env_kwargs[{key!r}] = {value!r} names a path on the "
                               "server; name a bundled task set, or start the server with --allow-paths")  # fmt: skip
    kwargs = {**config.env_kwargs, **requested}
    for key, kind in OBJECT_KWARGS.items():
        if isinstance(kwargs.get(key), dict):
            try:
                kwargs[key] = kind(**kwargs[key])
            except (TypeError, ValueError) as e:
                raise ApiError(400, "InvalidKwargs", f"env_kwargs[{key!r}]: {e}") from e
    return kwargs


def kwargs_key(requested: Mapping[str, Any]) -> str:
    """One string per distinct JSON kwargs (for caching envs made with them)."""
    return json.dumps(requested, sort_keys=True, default=str)


def make_env(env_id: str, kwargs: Mapping[str, Any]) -> gym.Env[Any, Any]:
    """``gym.make(env_id, **kwargs)``; a bad argument is a 400 `ApiError`, not a server error.
    (``max_episode_steps`` is gym.make's own: it adds a ``TimeLimit``.)"""
    try:
        return gym.make(env_id, **kwargs)
    except (TypeError, ValueError, gym.error.Error) as e:
        raise ApiError(400, "InvalidKwargs", f"cannot make {env_id} with {dict(kwargs)}: {e}") from e


# --- the gate: env operations at once ----------------------------------------------------------


class Gate:
    """At most ``limit`` operations at once; one more is refused at once, never queued (the
    event loop alone enters and leaves it)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0

    def try_enter(self) -> bool:
        if self.in_flight >= self.limit:
            return False
        self.in_flight += 1
        return True

    def leave(self) -> None:
        self.in_flight -= 1


# --- sessions ----------------------------------------------------------------------------------


@dataclass
class Session:
    """One WebSocket's env: made at the first ``reset`` (or ``configure``) with its kwargs."""

    env_id: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    env: gym.Env[Any, Any] | None = None
    kwargs_key: str | None = None
    episode_id: str | None = None
    step_count: int = 0
    done: bool = True
    created: float = field(default_factory=time.monotonic)
    last_active: float = field(default_factory=time.monotonic)
    busy: bool = False  # an operation of it is running
    expire: Callable[[], Any] | None = None  # closes its WebSocket (an awaitable factory)
    snapshots: dict[str, Any] = field(default_factory=dict)  # id -> (EnvSnapshot, step_count, done)

    def touch(self) -> None:
        self.last_active = time.monotonic()

    def close_env(self) -> None:
        if self.env is not None:
            env, self.env = self.env, None
            if self.snapshots:
                from codegym.episodes import release

                for taken, *_ in self.snapshots.values():
                    release(env, taken)
                self.snapshots.clear()
            env.close()


@dataclass
class Fork:
    """A session's fork (``{"type": "fork"}``), waiting for a session to ``adopt`` it."""

    env: gym.Env[Any, Any]
    env_id: str
    kwargs_key: str | None
    step_count: int
    done: bool
    made: float = field(default_factory=time.monotonic)


class Sessions:
    """The live sessions, at most ``limit`` (the event loop alone changes them)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.live: dict[str, Session] = {}
        self.expired = 0

    def open(self, env_id: str) -> Session | None:
        """A new session, or None when the server holds ``limit`` already."""
        if len(self.live) >= self.limit:
            return None
        session = Session(env_id)
        self.live[session.id] = session
        return session

    def drop(self, session: Session) -> None:
        self.live.pop(session.id, None)

    def idle(self, timeout_s: float) -> list[Session]:
        """Sessions with nothing running that were last active over ``timeout_s`` ago."""
        now = time.monotonic()
        return [s for s in self.live.values() if not s.busy and now - s.last_active > timeout_s]


# --- scoring envs ------------------------------------------------------------------------------


# Distinct submissions a server's scorer remembers, to grade a repeat once: a GRPO group's
# copies come in one batch; across batches, memory held for ever-new samples would only grow.
SCORER_DEDUPE_WINDOW = 1024


class Scorers:
    """One long-lived `Scorer` per (env id, kwargs), the ``limit`` most recently used. A scorer
    pushed out while a batch still grades on it is closed when that batch is done."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._scorers: OrderedDict[tuple[str, str], Scorer] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[tuple[str, str], threading.Lock] = {}
        self._users: dict[int, int] = {}  # id(scorer) -> batches grading on it now
        self._retired: dict[int, Scorer] = {}  # pushed out, closed when its last batch ends

    @contextlib.contextmanager
    def use(self, env_id: str, key: str, kwargs: Mapping[str, Any]) -> Iterator[Scorer]:
        """The scorer of ``(env_id, key)`` for one batch, made with ``kwargs`` on first use."""
        scorer = self._acquire(env_id, key, kwargs)
        try:
            yield scorer
        finally:
            with self._lock:
                self._users[id(scorer)] -= 1
                done = self._users[id(scorer)] == 0 and id(scorer) in self._retired
                if done:
                    del self._retired[id(scorer)], self._users[id(scorer)]
            if done:
                scorer.env.close()

    def _acquire(self, env_id: str, key: str, kwargs: Mapping[str, Any]) -> Scorer:
        slot = (env_id, key)
        with self._lock:
            making = self._making.setdefault(slot, threading.Lock())
        with making:  # (two first requests make it once)
            with self._lock:
                if slot in self._scorers:
                    self._scorers.move_to_end(slot)
                    scorer = self._scorers[slot]
                    self._users[id(scorer)] += 1
                    return scorer
            scorer = Scorer(make_env(env_id, kwargs), dedupe_window=SCORER_DEDUPE_WINDOW)
            idle: list[Scorer] = []
            with self._lock:
                self._scorers[slot] = scorer
                self._users[id(scorer)] = 1
                while len(self._scorers) > self.limit:
                    old = self._scorers.popitem(last=False)[1]
                    if self._users[id(old)] == 0:
                        del self._users[id(old)]
                        idle.append(old)
                    else:
                        self._retired[id(old)] = old
            for old in idle:
                old.env.close()
            return scorer

    def close(self) -> None:
        with self._lock:
            for scorer in self._scorers.values():
                scorer.env.close()
            self._scorers.clear()
