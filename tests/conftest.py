"""Shared fixtures: one warm local executor for the whole session."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from codegym.executor.local import LocalExecutor


@pytest.fixture(scope="session")
def executor() -> Iterator[LocalExecutor]:
    with LocalExecutor(
        workers=2, preload=("codegym.envs.python_function.candidate", "codegym.envs.python_function.harness")
    ) as ex:
        yield ex  # type: ignore[misc]


@pytest.fixture
def leftovers(executor: LocalExecutor) -> Callable[[], list[int]]:
    """Call it to list processes of the session executor's submissions still alive."""
    return lambda: sandbox_processes(executor)


def sandbox_processes(executor: LocalExecutor) -> list[int]:
    """Host pids of processes running as one of ``executor``'s submission uids."""
    uids = {executor.uid_base + i for i in range(executor.workers)}
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as handle:
                    uid_line = next(line for line in handle if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if int(uid_line.split()[1]) in uids:
                found.append(int(name))
    return found
