"""On a GPU: correctness at the tasks' own shapes, timing with a confidence interval, and
the checks only a GPU can exercise (streams, the real compiler at launch, illegal memory
accesses). Skipped, with the reason, where torch sees no CUDA device."""

from __future__ import annotations

import math

import pytest
import torch
from codegym.envs.triton_kernel.env import TritonKernelEnv
from codegym.envs.triton_kernel.tasks import bundled

from codegym.grade import Status

from .conftest import submit
from .test_attacks import CORRECT, TASK

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU: torch.cuda.is_available() is False"),
]


@pytest.fixture(scope="module")
def gpu_env() -> TritonKernelEnv:
    return TritonKernelEnv(device="cuda", shapes="task")


@pytest.mark.parametrize("task_id", [t.id for t in bundled()])
def test_reference_solution_is_ok_on_the_gpu_at_task_shapes(gpu_env: TritonKernelEnv, task_id: str) -> None:
    task = gpu_env.tasks.get(task_id)
    reward, observation, info = submit(gpu_env, task_id, task.reference or "")
    assert info["grade"].status is Status.OK, observation["feedback"]
    assert reward == 1.0 and info["device"] == "cuda"


def test_timing_reports_a_speedup_with_its_interval() -> None:
    env = TritonKernelEnv(device="cuda", shapes="task", reward="log_speedup")
    reward, observation, info = submit(env, TASK, CORRECT)
    timing = info["timing"]
    assert info["grade"].status is Status.OK, observation["feedback"]
    assert timing is not None and timing["pairs"] == 30.0
    assert timing["reference_ms"] > 0 and timing["candidate_ms"] > 0
    assert timing["speedup_low"] <= timing["speedup"] <= timing["speedup_high"]
    assert reward == pytest.approx(max(0.0, 1.0 + math.log(timing["speedup"])))
    assert "reward_notes" not in info


def test_fast_p_rewards_a_speedup_above_p() -> None:
    env = TritonKernelEnv(device="cuda", shapes="task", reward="fast_p", p=1e-6)
    reward, observation, info = submit(env, TASK, CORRECT)
    assert info["grade"].status is Status.OK and reward == 1.0
    slow = TritonKernelEnv(device="cuda", shapes="task", reward="fast_p", p=1e6)
    reward, observation, info = submit(slow, TASK, CORRECT)
    assert info["grade"].status is Status.OK and reward == 0.0


def test_a_side_stream_left_current_is_hack() -> None:
    env = TritonKernelEnv(device="cuda", shapes="task", static_checks=False)
    code = CORRECT.replace(
        "out = torch.empty_like(a)", "torch.cuda.set_stream(torch.cuda.Stream())\n        out = torch.empty_like(a)"
    )
    reward, observation, info = submit(env, TASK, code)
    assert info["grade"].status is Status.HACK and reward == 0.0
    assert "'streams'" in info["grade"].message or "'patched'" in info["grade"].message


def test_patching_cuda_events_is_hack() -> None:
    env = TritonKernelEnv(device="cuda", shapes="task", reward="log_speedup", static_checks=False)
    code = CORRECT + "\ntorch.cuda.Event.elapsed_time = lambda self, end: 1e-9\n"
    reward, observation, info = submit(env, TASK, code)
    assert info["grade"].status is Status.HACK and reward == 0.0


def test_compile_error_at_launch_is_ce_with_the_line(gpu_env: TritonKernelEnv) -> None:
    bad = CORRECT.replace("tl.arange(0, BLOCK)", "tl.arange(0, 3)")
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if "tl.arange(0, 3)" in text)
    reward, observation, info = submit(gpu_env, TASK, bad)
    assert info["grade"].status is Status.CE, observation["feedback"]
    assert info["grade"].diagnostics[0].line == line


def test_an_illegal_memory_access_is_contained(gpu_env: TritonKernelEnv) -> None:
    wild = CORRECT.replace("tl.store(out_ptr + offsets,", "tl.store(out_ptr + offsets * 100000000,").replace(
        ", mask=mask)\n\n\nclass", ")\n\n\nclass"
    )
    reward, observation, info = submit(gpu_env, TASK, wild)
    assert info["grade"].status is Status.RE and reward == 0.0
    reward, observation, info = submit(gpu_env, TASK, CORRECT)
    assert info["grade"].status is Status.OK
