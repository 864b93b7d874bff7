"""Fixtures of the terminal family's tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import fixtures

# The cheat suite's tasks that `imported_tasks` imports.
IMPORTED = ("sum", "sum-service", "sum-user", "sum-uv", "sum-module", "sum-tb1")


@pytest.fixture(scope="session")
def imported_tasks() -> Iterator[Path]:
    """A few of the cheat suite's tasks (``IMPORTED``) in a folder readable by all, imported by
    root: every layer their episodes use is in the store (a plain user's or a container's
    harness then runs them from it)."""
    from codegym.envs.terminal.env import TerminalEnv

    from .test_cheats import DOCKERFILE, _variants

    root = Path(tempfile.mkdtemp(prefix="codegym-imported-tasks-"))
    os.chmod(root, 0o755)
    variants = _variants()
    for name in IMPORTED[:-1]:
        options = variants[name]
        fixtures.write_harbor_task(root, name, dockerfile=str(options.get("dockerfile", DOCKERFILE)),
                                   **{k: v for k, v in options.items() if k != "dockerfile"})  # type: ignore[arg-type]  # fmt: skip
    fixtures.write_tb1_task(root, "sum-tb1", dockerfile=DOCKERFILE)
    subprocess.run(["chmod", "-R", "a+rX", str(root)], check=True)
    env = TerminalEnv(str(root), mode="single")
    try:
        for task in env.tasks:
            env.check_task(task)
    finally:
        env.close()
    yield root
    shutil.rmtree(root, ignore_errors=True)
