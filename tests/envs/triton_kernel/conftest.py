"""Fixtures of the Triton kernel family: one env over the bundled problems, on the CPU."""

from __future__ import annotations

import os
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


def sandbox_processes(executor: Any) -> list[int]:
    """Host pids of processes running as one of ``executor``'s submission uids, except each
    fork server's one idle spare (as the root conftest counts them)."""
    uids = {executor.uid_base + i for i in range(executor.workers)}
    found: list[int] = []
    spares: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                status = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        if "Uid" not in status or int(status["Uid"].split()[0]) not in uids:
            continue
        if status["Name"].strip() == "codegym-spare":
            spares.setdefault(int(status["PPid"]), []).append(int(name))
        else:
            found.append(int(name))
    for parent, pids in spares.items():
        if len(pids) > 1 or _comm(parent) != "codegym-init":
            found += pids
    return found


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""
