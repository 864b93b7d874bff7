"""Fixtures of the PyContracts family's tests: one env over the bundled tasks, on the family's
own executor (warm workers with CrossHair imported), shared by the module's tests."""

from __future__ import annotations

import pytest
from codegym.envs.pycontracts.env import PyContractsEnv


@pytest.fixture(scope="module")
def env() -> PyContractsEnv:
    return PyContractsEnv()
