"""Agent mode of the Verilog family: the workspace (statement, stub, public interface check),
an episode from reference to reward, the stub's zero, malformed calls, and what the workspace
never holds (the reference, the hidden testbench)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.verilog.env import VerilogEnv, run_tests_script
from codegym.envs.verilog.runner import IVERILOG
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401
from codegym.executor.local import LocalExecutor

from .conftest import VERILOG_EVAL

MUX2 = "codegym-verilog/mux2"
FIFO = "codegym-verilog/fifo4"
AND4 = "verilog-eval/Prob001_and4"
WORKSPACE = {"./TASK.md", "./TopModule.sv", "./run_tests", "./tests/tb_interface.sv"}


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.fixture(scope="module")
def agent_env(executor: LocalExecutor) -> Iterator[VerilogEnv]:
    env = VerilogEnv(mode="agent", executor=executor, lint="never")
    yield env
    env.close()


@pytest.fixture(scope="module")
def agent_eval_env(executor: LocalExecutor) -> Iterator[VerilogEnv]:
    env = VerilogEnv(VERILOG_EVAL, mode="agent", executor=executor, lint="never")
    yield env
    env.close()


@pytest.fixture(params=[MUX2, FIFO, AND4])
def episode(request: pytest.FixtureRequest, agent_env: VerilogEnv, agent_eval_env: VerilogEnv) -> VerilogEnv:
    """An env reset to a combinational, a clocked and a VerilogEval task in turn."""
    env = agent_eval_env if request.param.startswith("verilog-eval/") else agent_env
    env.reset(options={"task_id": request.param})
    return env


def bash(env: VerilogEnv, command: str) -> dict[str, Any]:
    _, reward, terminated, truncated, info = env.step(call("bash", command=command))
    assert (reward, terminated, truncated, info["format_errors"]) == (0.0, False, False, 0)
    return info["tool_results"][0]


def test_the_reference_written_with_tools_passes_run_tests_and_gets_reward_one(episode: VerilogEnv) -> None:
    reference = episode.task.reference  # type: ignore[union-attr]
    _, _, _, _, info = episode.step(call("str_replace_editor", command="create", path="TopModule.sv",
                                         file_text=reference))  # fmt: skip
    assert info["tool_results"][0]["exit_code"] == 0
    result = bash(episode, "./run_tests")
    assert result["exit_code"] == 0, result["content"]
    assert "PASS: TopModule.sv compiles and fits the interface" in result["content"]
    assert "outputs after 10 ns with every input 0:" in result["content"]
    observation, reward, terminated, truncated, info = episode.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (1.0, True, False, "OK"), observation["feedback"]
    assert info["code"] == reference


def test_the_stub_fits_the_interface_but_submitted_unchanged_gets_zero(episode: VerilogEnv) -> None:
    stub = bash(episode, "cat TopModule.sv")["content"]
    assert stub.startswith("module TopModule (") and stub.endswith("endmodule")
    result = bash(episode, "./run_tests")
    assert result["exit_code"] == 0 and "=z" in result["content"]  # nothing drives the outputs
    _, reward, terminated, truncated, info = episode.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (0.0, True, False, "WA")
    assert info["code"].strip() == stub


@pytest.mark.parametrize(
    ("design", "expected"),
    [
        (
            "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n  assign y = sel ? b : ;\n"
            "endmodule\n",
            "TopModule.sv:2: syntax error",
        ),
        (
            "module TopModule(input [7:0] a, input [6:0] b, input sel, output [7:0] y);\n  assign y = a;\nendmodule\n",
            "expects 7 bits, got 8",
        ),
        (
            "module TopModule(input [7:0] a, input [7:0] b, output [7:0] y);\n  assign y = a;\nendmodule\n",
            "port ``sel'' is not a port of dut_i",
        ),
        (
            "module TopModule(input [7:0] a, input [7:0] b, input sel, input c, output [7:0] y);\n  assign y = a;\n"
            "endmodule\n",
            "dangling input port 4 (c)",
        ),
        (
            "module TopModule(input [7:0] a, input [7:0] b, input sel, output reg [7:0] y);\n"
            "  initial begin y = 0; forever y = y + 1; end\nendmodule\n",
            "exit status 124",
        ),
    ],
    ids=["syntax-error", "narrow-port", "missing-port", "extra-input", "hangs"],
)
def test_run_tests_fails_with_the_compilers_words(agent_env: VerilogEnv, design: str, expected: str) -> None:
    agent_env.reset(options={"task_id": MUX2})
    agent_env.step(call("str_replace_editor", command="create", path="TopModule.sv", file_text=design))
    result = bash(agent_env, "./run_tests")
    assert result["exit_code"] == 1 and "FAIL: " in result["content"] and "PASS" not in result["content"]
    assert expected in result["content"]


def test_run_tests_compiles_with_the_graders_flags() -> None:
    script = run_tests_script()
    flags = IVERILOG[: IVERILOG.index("-o")]
    assert f'{" ".join(flags)} -o "$build/sim.vvp" -s tb tests/tb_interface.sv TopModule.sv' in script  # design last


def test_malformed_calls_are_explained_and_end_nothing(agent_env: VerilogEnv) -> None:
    agent_env.reset(options={"task_id": MUX2})
    action = '<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>' + call("simulate", file="x")
    observation, reward, terminated, truncated, info = agent_env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_errors"] >= 1 and info["tool_results"] == []
    assert "JSON" in observation["feedback"] and "simulate" in observation["feedback"]
    assert bash(agent_env, "./run_tests")["exit_code"] == 0  # the episode goes on


def test_the_workspace_never_holds_the_reference_or_the_hidden_testbench(episode: VerilogEnv) -> None:
    task = episode.task
    assert task is not None and task.reference
    files = bash(episode, "find . -type f | sort")["content"].splitlines()
    assert {f for f in files if not f.startswith("./.codegym/output/")} == WORKSPACE
    shown = bash(episode, "find . -path ./.codegym -prune -o -type f -exec cat {} +")["content"]
    public = "".join(bash(episode, f"cat {path}")["content"] for path in sorted(WORKSPACE))
    assert len(shown) >= len(public) > 0
    hidden = ["RefModule", "codegym_nonce", "@@%s@@", "Mismatches", "stimulus_gen"]
    stub = episode.agent_setup(task).files["TopModule.sv"].decode()  # (the header is public)
    hidden += [line.strip() for line in task.reference.splitlines() if len(line.strip()) >= 8 and line not in stub]
    hidden += [line.strip() for line in task.metadata["harness"].splitlines() if len(line.strip()) >= 30]
    assert len(hidden) > 6
    assert [text for text in hidden if text in shown] == []


def test_agent_mode_passes_the_env_checker(executor: LocalExecutor) -> None:
    env = gym.make("codegym/Verilog-v1", mode="agent", executor=executor, lint="never")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
