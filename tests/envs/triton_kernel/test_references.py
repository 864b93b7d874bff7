"""Every bundled problem's reference Triton solution is OK on the CPU, in the interpreter."""

from __future__ import annotations

import pytest
from codegym.envs.triton_kernel.env import TritonKernelEnv
from codegym.envs.triton_kernel.tasks import bundled, load_tasks

from codegym.grade import Status

from .conftest import submit

TASKS = bundled()
CATEGORIES = ("elementwise", "activation", "reduction", "softmax", "layernorm", "matmul", "fused")


def test_the_bundled_set_is_large_and_covers_every_category() -> None:
    assert len(TASKS) >= 20
    tags = {tag for task in TASKS for tag in task.tags}
    assert set(CATEGORIES) <= tags
    assert all(task.reference and "class ModelNew" in task.reference for task in TASKS)
    assert all("cpu_shapes" in task.metadata["problem"] for task in TASKS)
    assert load_tasks("codegym-triton").ids == tuple(t.id for t in TASKS)


@pytest.mark.parametrize("task_id", [t.id for t in TASKS])
def test_reference_solution_is_ok_in_the_interpreter(cpu_env: TritonKernelEnv, task_id: str) -> None:
    task = cpu_env.tasks.get(task_id)
    reward, observation, info = submit(cpu_env, task_id, task.reference or "")
    grade = info["grade"]
    assert grade.status is Status.OK, observation["feedback"]
    assert reward == 1.0
    assert grade.metrics["kernels_launched"] >= 1
    assert "max_abs_error" in grade.metrics and "max_rel_error" in grade.metrics
    assert len(grade.tests) == 3 and all(t.passed for t in grade.tests)
    # the front-end compile for an NVIDIA target ran (no "unavailable" note)
    assert not [d for d in grade.diagnostics if d.severity == "note"], grade.diagnostics
    assert "Triton kernel launch" in observation["feedback"]
