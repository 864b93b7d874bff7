"""Fixtures of the Dafny family's tests: the bundled hints tasks on the session executor."""

from __future__ import annotations

import pytest
from codegym.envs.dafny.env import DafnyEnv

from codegym.executor.local import LocalExecutor


@pytest.fixture(scope="module")
def env(executor: LocalExecutor) -> DafnyEnv:
    return DafnyEnv(executor=executor)
