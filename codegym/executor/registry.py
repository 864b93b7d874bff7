"""Choosing a backend: by name, by ``codegym.configure``, or by ``CODEGYM_EXECUTOR``."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from codegym.executor.base import Executor

_shared: dict[str, Executor] = {}
_lock = threading.Lock()
_default: str | None = None
BACKENDS = ("local",)


def configure(executor: str | None = None) -> None:
    """Set the process-wide default backend (else ``$CODEGYM_EXECUTOR``, else "local")."""
    global _default
    if executor is not None and executor not in BACKENDS:
        raise ValueError(f"unknown executor {executor!r}; choose one of {BACKENDS}")
    _default = executor


def get_executor(choice: Executor | str | None = None, *, preload: Iterable[str] = ()) -> Executor:
    """The shared executor for ``choice`` (an instance is returned as is)."""
    if isinstance(choice, Executor):
        return choice
    name = choice or _default or os.environ.get("CODEGYM_EXECUTOR") or "local"
    if name not in BACKENDS:
        raise ValueError(
            f"unknown executor {name!r}; choose one of {BACKENDS} "
            "(set by argument, codegym.configure or $CODEGYM_EXECUTOR)"
        )
    with _lock:
        executor = _shared.get(name)
        if executor is None:
            from codegym.executor.local import LocalExecutor

            executor = _shared[name] = LocalExecutor(preload=preload)
    if hasattr(executor, "ensure_preloaded"):
        executor.ensure_preloaded(preload)  # type: ignore[attr-defined]
    return executor
