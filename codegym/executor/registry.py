"""Choosing a backend: by name, by ``codegym.configure``, or by ``CODEGYM_EXECUTOR``.

``local`` (default) runs jobs in warm sandboxed workers on this machine, ``docker`` in warm
containers on this machine's Docker engine, ``ray`` on a Ray cluster (``$RAY_ADDRESS``, or a
small local one). Each name maps to one shared executor per process, built on first use; a
forked child builds its own, since two processes never share workers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from codegym.executor.base import Executor

K = TypeVar("K", bound=Hashable)
E = TypeVar("E", bound=Executor)


class PerProcess(Generic[K, E]):
    """Executors shared within one process, one per key, built on first use. A forked child
    starts with none of its parent's: two processes never share workers (their replies
    would cross)."""

    def __init__(self) -> None:
        self._start()
        os.register_at_fork(after_in_child=self._start)

    def _start(self) -> None:
        self.lock = threading.Lock()
        self.executors: dict[K, E] = {}

    def get(self, key: K, make: Callable[[], E], *, stale: Callable[[E], bool] = lambda _: False) -> E:
        """The executor of ``key``, made (again, when ``stale``) with ``make``."""
        with self.lock:
            executor = self.executors.get(key)
            if executor is None or stale(executor):
                executor = self.executors[key] = make()
            return executor

    def pop(self, keys: Iterable[K] | None = None) -> list[E]:
        """Forget the executors of ``keys`` (all when None) and return them."""
        with self.lock:
            wanted = list(self.executors) if keys is None else [k for k in keys if k in self.executors]
            return [self.executors.pop(k) for k in wanted]


_shared: PerProcess[str, Executor] = PerProcess()
_default: str | None = None
BACKENDS = ("local", "docker", "ray")


def _local(preload: tuple[str, ...]) -> Executor:
    from codegym.executor.local import LocalExecutor

    return LocalExecutor(preload=preload)


def _docker(preload: tuple[str, ...]) -> Executor:
    from codegym.executor.docker import DockerExecutor

    return DockerExecutor(preload=preload)


def _ray(preload: tuple[str, ...]) -> Executor:
    from codegym.executor.ray import RayExecutor

    return RayExecutor(preload=preload)


_FACTORIES: dict[str, Callable[[tuple[str, ...]], Executor]] = {"local": _local, "docker": _docker, "ray": _ray}


def _check(name: str) -> str:
    if name not in BACKENDS:
        raise ValueError(
            f"unknown executor {name!r}; choose one of {', '.join(BACKENDS)} "
            "(set by argument, codegym.configure(executor=...) or $CODEGYM_EXECUTOR), "
            "or pass an Executor instance"
        )
    return name


def configure(executor: str | None = None) -> None:
    """Set the process-wide default backend (else ``$CODEGYM_EXECUTOR``, else "local")."""
    global _default
    _default = None if executor is None else _check(executor)


def default_backend() -> str:
    """The backend name `get_executor` uses when given none."""
    return _check(_default or os.environ.get("CODEGYM_EXECUTOR") or "local")


def get_executor(choice: Executor | str | None = None, *, preload: Iterable[str] = ()) -> Executor:
    """The shared executor for ``choice`` (an instance is returned as is)."""
    if isinstance(choice, Executor):
        return choice
    name = _check(choice) if choice else default_backend()
    preload = tuple(preload)
    executor = _shared.get(name, lambda: _FACTORIES[name](preload))
    if hasattr(executor, "ensure_preloaded"):
        executor.ensure_preloaded(preload)  # type: ignore[attr-defined]
    return executor


def close_shared(name: str | None = None) -> None:
    """Close and forget the shared executor of backend ``name`` (all of them when None);
    the next `get_executor` builds a new one. They are also closed at interpreter exit."""
    for executor in _shared.pop(None if name is None else [name]):
        executor.close()
