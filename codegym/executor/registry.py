"""Choosing a backend: by name, by ``codegym.configure``, or by ``CODEGYM_EXECUTOR``.

``local`` (default) runs jobs in warm sandboxed workers on this machine, ``docker`` in warm
containers on this machine's Docker engine, ``ray`` on a Ray cluster (``$RAY_ADDRESS``, or a
small local one). Each name maps to one shared executor per process, built on first use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

from codegym.executor.base import Executor

_shared: dict[str, Executor] = {}
_lock = threading.Lock()
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
    with _lock:
        executor = _shared.get(name)
        if executor is None:
            executor = _shared[name] = _FACTORIES[name](tuple(preload))
    if hasattr(executor, "ensure_preloaded"):
        executor.ensure_preloaded(preload)  # type: ignore[attr-defined]
    return executor


def close_shared(name: str | None = None) -> None:
    """Close and forget the shared executor of backend ``name`` (all of them when None);
    the next `get_executor` builds a new one. They are also closed at interpreter exit."""
    with _lock:
        names = [name] if name is not None else list(_shared)
        closing = [_shared.pop(n) for n in names if n in _shared]
    for executor in closing:
        executor.close()
