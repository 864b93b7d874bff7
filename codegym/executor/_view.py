"""What of a machine's root file system a worker's view shows (stdlib only: the container
worker runs this before any codegym package is importable)."""

from __future__ import annotations

import os
from collections.abc import Iterable

ROOT_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


def toolchain(etc_allowlist: Iterable[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(symlinks, binds)``: the root's program and library folders (as the links they may
    be, or read-only binds) and the allowed files of ``/etc``, each at its own path."""
    symlinks, binds = [], []
    for name in sorted(os.listdir("/")):
        path = f"/{name}"
        if name not in ROOT_DIRS:
            continue
        if os.path.islink(path):
            symlinks.append((name, os.readlink(path)))
        elif os.path.isdir(path):
            binds.append((path, path))
    for name in etc_allowlist:
        if os.path.exists(f"/etc/{name}"):
            binds.append((f"/etc/{name}", f"/etc/{name}"))
    return symlinks, binds
