"""What of a machine's root file system a worker's view shows (stdlib only: the container
worker runs this before any codegym package is importable)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from typing import Any

ROOT_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


def closed_at(path: str) -> str | None:
    """The first folder on the way to ``path`` that other users may not pass (no search
    bit for others), or None: the `container` tier's submissions, another uid, reach it
    in place (that tier has no view of its own)."""
    parts = os.path.realpath(path).split("/")[1:]
    for depth in range(len(parts) + 1):
        folder = "/" + "/".join(parts[:depth])
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


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


# How long a worker waits for its next job before its spare runs the preloaded modules'
# `warm_up()`: longer than a busy machine leaves a worker idle between jobs (a few ms back to
# back), far shorter than a policy takes to write the next submission.
WARM_AFTER_S = 0.01


def worker_config(
    view: Mapping[str, Any],
    *,
    index: int,
    preload: Iterable[str],
    ctl_fd: int,
    res_fd: int,
    root: str,
    uid: int | None,
    etc: Mapping[str, str],
    cgroup: Mapping[str, Any],
    warm_after_s: float | None = WARM_AFTER_S,
    isolation: str = "full",
    user_map: str = "identity",
) -> dict[str, Any]:
    """Everything ``_worker.py`` reads from its command line, for the host and containers alike.

    Args:
        view: ``packages``, ``symlinks``, ``binds``, ``masks``, ``hide`` (and optional
            ``devices``, and ``python_path``: folders of the view to append to the worker's
            ``sys.path`` before it imports ``preload``) of the file system view.
        index: The worker's number in its pool.
        preload: Modules it imports before its first job.
        ctl_fd: Descriptor it reads jobs from.
        res_fd: Descriptor it writes results to.
        root: Empty directory its root file system is built in.
        uid: The unprivileged uid its submissions run as (None: the caller's).
        etc: Generated ``/etc`` files by name.
        cgroup: ``{"version", "paths"}`` of the cgroup it puts its submissions in.
        warm_after_s: How long it stays idle before its spare warms up (None: never).
        isolation: Its tier ("full" or "userns"; see `codegym.executor.isolation`).
        user_map: In "userns": "identity" (root maps every uid) or "single" (a plain
            user's own uid alone).
    """
    return {
        **view,
        "index": index,
        "preload": list(preload),
        "ctl_fd": ctl_fd,
        "res_fd": res_fd,
        "root": root,
        "uid": uid,
        "etc": dict(etc),
        "cgroup": {"version": cgroup["version"], "paths": cgroup["paths"]},
        "warm_after_s": warm_after_s,
        "isolation": isolation,
        "user_map": user_map,
    }
