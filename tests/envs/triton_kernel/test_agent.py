"""Agent mode of the Triton family: the workspace (statement, problem, stub, public check),
./run_tests run with torch and triton inside the sandbox, and grading at submit."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.triton_kernel import integrity, workspace
from codegym.envs.triton_kernel.env import TritonKernelEnv
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401
from codegym.grade import Status

from .conftest import submit

TASK = "codegym-triton/vector_add"


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.fixture(scope="module")
def agent_env(make_env: Callable[..., TritonKernelEnv]) -> Iterator[TritonKernelEnv]:
    env = make_env(mode="agent")
    yield env
    env.close()


def start(env: TritonKernelEnv, task_id: str = TASK) -> dict[str, Any]:
    observation, _ = env.reset(seed=0, options={"task_id": task_id})
    return observation


def bash(env: TritonKernelEnv, command: str) -> dict[str, Any]:
    observation, reward, terminated, truncated, info = env.step(call("bash", command=command))
    assert (reward, terminated, truncated) == (0.0, False, False)
    return info["tool_results"][0]


def test_the_reference_written_with_tools_passes_run_tests_and_submit(
    agent_env: TritonKernelEnv, cpu_env: TritonKernelEnv
) -> None:
    observation = start(agent_env)
    assert "model_new.py" in observation["prompt"] and "./run_tests" in observation["prompt"]
    reference = agent_env.tasks.get(TASK).reference or ""
    _, reward, terminated, _, info = agent_env.step(
        call("str_replace_editor", command="create", path="model_new.py", file_text=reference)
    )
    assert (reward, terminated, info["format_errors"]) == (0.0, False, 0)
    result = bash(agent_env, "./run_tests")
    assert result["exit_code"] == 0, result["content"]
    assert "Triton's interpreter" in result["content"] and "2 of 2 public trials passed" in result["content"]
    assert "output 0 (float32 [8, 100]): matches" in result["content"]
    observation, reward, terminated, truncated, info = agent_env.step(call("submit"))
    single_reward, _, single = submit(cpu_env, TASK, reference)
    assert (terminated, truncated, info["status"]) == (True, False, "OK")
    assert reward == single_reward > 0 and info["reward_components"] == single["reward_components"]
    assert info["code"] == reference and info["device"] == "cpu"
    assert "all 3 trials match" in observation["feedback"]


def test_run_tests_reports_a_mismatch_and_fails(agent_env: TritonKernelEnv) -> None:
    start(agent_env)
    wrong = (agent_env.tasks.get(TASK).reference or "").replace("a + b, mask=mask", "a - b, mask=mask")
    agent_env.step(call("str_replace_editor", command="create", path="model_new.py", file_text=wrong))
    result = bash(agent_env, "./run_tests 5")
    assert result["exit_code"] == 1 and "FAIL seed 5" in result["content"]
    assert "elements differ beyond atol = rtol = 0.0001" in result["content"]
    assert "0 of 1 public trials passed" in result["content"]


def test_the_stub_submitted_as_it_is_gets_zero(agent_env: TritonKernelEnv) -> None:
    start(agent_env, "codegym-triton/layernorm")
    result = bash(agent_env, "./run_tests")
    assert result["exit_code"] == 1 and "NotImplementedError" in result["content"]
    observation, reward, terminated, truncated, info = agent_env.step(call("submit"))
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["status"] == Status.RE.value and info["reward_components"]["correct"] == 0.0
    assert "NotImplementedError" in observation["feedback"]


def test_malformed_calls_are_explained_and_the_episode_goes_on(agent_env: TritonKernelEnv) -> None:
    start(agent_env)
    action = '<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>' + call("run_shell", cmd="ls")
    observation, reward, terminated, truncated, info = agent_env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_errors"] == 2 and info["tool_results"] == []
    assert "not valid JSON" in observation["feedback"] and 'unknown tool "run_shell"' in observation["feedback"]
    assert bash(agent_env, "cat problem.py")["exit_code"] == 0


def test_the_workspace_holds_no_reference_solution_nor_graded_seeds(agent_env: TritonKernelEnv) -> None:
    start(agent_env)
    task = agent_env.tasks.get(TASK)
    result = bash(agent_env, "find . /tmp -type f -print -exec cat {} +")
    listing = result["content"]
    assert "./model_new.py" in listing and "./tests/check.py" in listing and not result["truncated"]
    kernel_lines = [line.strip() for line in (task.reference or "").splitlines() if "tl." in line or "_kernel" in line]
    assert len(kernel_lines) >= 5
    assert not [line for line in kernel_lines if line in listing]
    graded = [str(task.metadata["init_seed"]), *(t.code for t in task.tests)]
    assert not [seed for seed in graded if re.search(rf"\b{seed}\b", listing)]


def test_the_stub_copies_models_signatures_and_passes_the_static_checks() -> None:
    layernorm = workspace.stub("class Model:\n    def __init__(self, dim: int, eps: float = 1e-5):\n        pass\n")
    assert "def __init__(self, dim: int, eps: float=1e-05):" in layernorm
    assert "def forward(self, *inputs):" in layernorm and not integrity.check(layernorm)
    unresolvable = workspace.stub("N = 4\nclass Model:\n    def __init__(self, n=N):\n        pass\n")
    assert "def __init__(self, *args, **kwargs):" in unresolvable


def test_public_seeds_avoid_the_graded_ones() -> None:
    assert workspace.public_seeds([1, 3], count=3) == [2, 4, 5, 6]


def test_agent_mode_through_make_passes_the_env_checker() -> None:
    env = gym.make("codegym/TritonKernel-v0", mode="agent", device="cpu")
    try:
        check_env(env.unwrapped, skip_render_check=True)
        _, info = env.reset(options={"task_id": TASK})
        assert [tool["function"]["name"] for tool in info["tools"]][-1] == "submit"
    finally:
        env.close()
