"""Fixtures of the WhyML family's tests: the bundled modules on the session executor."""

from __future__ import annotations

import pytest
from codegym.envs.whyml.env import WhyMLEnv

from codegym.executor.local import LocalExecutor


@pytest.fixture(scope="module")
def env(executor: LocalExecutor) -> WhyMLEnv:
    return WhyMLEnv(executor=executor)
