"""The agent-loop example plays whole episodes in-process, with its own policies and with chat
callables that answer in the forms a model does."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym
import pytest

import codegym  # noqa: F401

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "agent_loop.py"
TASK = "codegym-py/004-digital-root"


@pytest.fixture(scope="module")
def agent_loop() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_loop", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_loop"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def reference() -> str:
    return gym.make("codegym/PythonFunction-v0").unwrapped.tasks.get(TASK).reference


def answered_calls(messages: list[dict[str, Any]]) -> list[tuple[list[str], list[str]]]:
    """For each assistant turn with tool_calls: the calls' ids, and the ids of the tool messages after it."""
    pairs = []
    for i, message in enumerate(messages):
        if message["role"] == "assistant" and message.get("tool_calls"):
            answers = []
            for later in messages[i + 1 :]:
                if later["role"] != "tool":
                    break
                answers.append(later["tool_call_id"])
            pairs.append(([c["id"] for c in message["tool_calls"]], answers))
    return pairs


def test_the_scripted_policy_solves_the_task_with_answered_tool_calls(agent_loop: ModuleType, capsys: Any) -> None:
    trajectory = agent_loop.main(agent_loop.Args(policy="scripted", task_id=TASK))
    assert trajectory.rewards == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert (
        trajectory.terminated and not trajectory.truncated and trajectory.info["reward_components"] == {"correct": 1.0}
    )
    assert [m["role"] for m in trajectory.messages[:2]] == ["system", "user"]
    assert "digital_root" in trajectory.messages[1]["content"]
    pairs = answered_calls(trajectory.messages)
    assert len(pairs) == 5 and all(ids == answers for ids, answers in pairs)
    tools = [m for m in trajectory.messages if m["role"] == "tool"]
    assert [m["name"] for m in tools] == ["bash", "str_replace_editor", "str_replace_editor", "bash", "submit"]
    assert "2 of 2 public tests passed" in tools[3]["content"] and tools[4]["content"].startswith("Status: OK")
    assert "Status: OK" not in "".join(m["content"] for m in tools[:4])
    assert "reward 1.0" in capsys.readouterr().out


def test_the_stub_policy_submits_as_text_and_gets_zero(agent_loop: ModuleType) -> None:
    trajectory = agent_loop.main(agent_loop.Args(policy="stub", task_id=TASK))
    assert trajectory.rewards == [0.0] and trajectory.terminated and trajectory.info["status"] == "WA"
    assert [m["role"] for m in trajectory.messages] == ["system", "user", "assistant", "user"]
    assert trajectory.messages[-1]["content"].startswith("Status: WA")  # text calls get the feedback as a user turn


def test_openai_style_tool_calls_work_in_parallel_and_malformed_ones_are_answered(agent_loop: ModuleType) -> None:
    solution = reference()

    def chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        assert [t["function"]["name"] for t in tools] == ["bash", "str_replace_editor", "search", "submit"]
        turn = sum(m["role"] == "assistant" for m in messages)
        if turn == 0:
            calls = [
                {"id": "a1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls'}},
                {"function": {"name": "str_replace_editor", "arguments": json.dumps(
                    {"command": "create", "path": "solution.py", "file_text": solution})}},
                {"id": "a3", "type": "function", "function": {"name": "bash", "arguments": '{"command": "./run_tests"}'}},
            ]  # fmt: skip
        else:
            calls = [{"id": "b1", "type": "function", "function": {"name": "submit", "arguments": ""}}]
        return {"role": "assistant", "content": "Let me work.", "tool_calls": calls}

    trajectory = agent_loop.main(agent_loop.Args(task_id=TASK), chat=chat)
    assert trajectory.rewards == [0.0, 1.0] and trajectory.terminated
    assert answered_calls(trajectory.messages) == [
        (["a1", "call_0_1", "a3"], ["a1", "call_0_1", "a3"]),
        (["b1"], ["b1"]),
    ]
    malformed, created, tested = (m["content"] for m in trajectory.messages[3:6])
    assert malformed.startswith("[format error] Tool call a1 to bash:") and "not valid JSON" in malformed
    assert created.startswith("Overwrote solution.py")
    assert "2 of 2 public tests passed" in tested


def test_garbage_gets_helpful_feedback_until_the_turns_run_out(agent_loop: ModuleType) -> None:
    def chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        return "I believe the answer is 42."

    trajectory = agent_loop.main(agent_loop.Args(task_id=TASK, max_turns=3), chat=chat)
    assert trajectory.rewards == [0.0, 0.0, 0.0]
    assert trajectory.truncated and not trajectory.terminated
    feedback = [m["content"] for m in trajectory.messages[3::2]]
    assert len(feedback) == 3 and all(text.startswith("[format error] No tool call found") for text in feedback)
    assert "<tool_call>" in feedback[0] and "submit" in feedback[0]


def test_an_unknown_policy_is_refused(agent_loop: ModuleType) -> None:
    with pytest.raises(ValueError, match="--policy must be scripted, stub or openai, got 'random'"):
        agent_loop.main(agent_loop.Args(policy="random"))
    with pytest.raises(ValueError, match="needs --model"):
        agent_loop.main(agent_loop.Args(policy="openai"))
