"""Fixtures of the Triton kernel family: one env over the bundled problems, on the CPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("torch", reason="the TritonKernel family needs the triton extra (torch, triton)")
pytest.importorskip("triton", reason="the TritonKernel family needs the triton extra (torch, triton)")

from codegym.envs.triton_kernel.env import TritonKernelEnv


@pytest.fixture(scope="session")
def make_env() -> Callable[..., TritonKernelEnv]:
    """Builds CPU envs; they share the family's interpreter executor (started once)."""

    def make(**kwargs: Any) -> TritonKernelEnv:
        kwargs.setdefault("device", "cpu")
        return TritonKernelEnv(**kwargs)

    return make


@pytest.fixture(scope="session")
def cpu_env(make_env: Callable[..., TritonKernelEnv]) -> TritonKernelEnv:
    return make_env()


def submit(env: TritonKernelEnv, task_id: str, code: str) -> tuple[float, dict[str, Any], dict[str, Any]]:
    """One episode: reset on ``task_id``, step ``code``; (reward, observation, info)."""
    env.reset(seed=0, options={"task_id": task_id})
    observation, reward, terminated, truncated, info = env.step(code)
    assert terminated and not truncated
    return reward, observation, info
