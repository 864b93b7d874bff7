"""Agent mode of the visual envs: a workspace without the target, and a ``render`` tool that
compares on the harness's side."""

from __future__ import annotations

import shlex
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from .test_chart import BARS
from .test_page import PAGE
from .test_svg import HOUSE

TASKS = {"codegym/SVGFromImage-v1": HOUSE, "codegym/ChartFromImage-v1": BARS, "codegym/HTMLFromScreenshot-v0": PAGE}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@pytest.mark.parametrize("env_id", list(TASKS))
def test_render_scores_the_workspace_file_and_submit_grades_it(env_id: str) -> None:
    env = gym.make(env_id, mode="agent")
    try:
        observation, info = env.reset(seed=0, options={"task_id": TASKS[env_id]})
        unwrapped: Any = env.unwrapped
        file, reference = unwrapped.file, unwrapped.task.reference
        assert "render" in [tool["function"]["name"] for tool in info["tools"]]
        assert f"Write it in {file}" in observation["prompt"] and "Answer with" not in observation["prompt"]

        observation, reward, terminated, _, info = env.step(call("render"))  # (the stub draws nothing)
        assert (reward, terminated) == (0.0, False)
        assert info["tool_results"][0]["exit_code"] == 1 and "Status: WA" in observation["feedback"]

        edit = call("str_replace_editor", command="create", path=file, file_text=reference)
        observation, reward, terminated, _, info = env.step([edit, call("render")])
        assert (reward, terminated) == (0.0, False)
        assert "similarity 1.000" in observation["feedback"] and "00000000" in observation["feedback"]
        assert np.array_equal(observation["render"], observation["target"])
        assert env.observation_space.contains(observation)

        observation, reward, terminated, _, info = env.step(call("submit"))
        assert terminated and info["status"] == "OK" and float(reward) >= 0.99
    finally:
        env.close()


def test_the_target_and_the_reference_are_nowhere_a_tool_call_can_look() -> None:
    env = gym.make("codegym/SVGFromImage-v1", mode="agent")
    try:
        env.reset(seed=0, options={"task_id": HOUSE})
        reference: str = env.unwrapped.task.reference  # type: ignore[attr-defined]
        marker = max(reference.splitlines(), key=len).strip()  # (its longest line)
        assert len(marker) > 30
        look = 'grep -rlF "$(cat .mark)" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr'
        env.step(call("bash", command=f"printf '%s' {shlex.quote(marker)} > .mark"))
        observation, *_ = env.step(call("bash", command=f"{look} 2>/dev/null | grep -v '/.mark$'", timeout_s=100))
        assert observation["feedback"].splitlines()[1:] == ["(no output)"], observation["feedback"]  # (no file)
        env.step(call("bash", command="cp .mark planted.txt"))  # (and the search would find one)
        observation, *_ = env.step(call("bash", command=f"{look} 2>/dev/null | grep -v '/.mark$'", timeout_s=100))
        assert observation["feedback"].splitlines()[1].endswith("/planted.txt")
        observation, *_ = env.step(call("render"))
        assert reference not in observation["feedback"]
    finally:
        env.close()


def test_check_env_passes_in_agent_mode_and_the_render_tool_keeps_its_name() -> None:
    env = gym.make("codegym/SVGFromImage-v1", mode="agent")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()
    from codegym.agent import AgentLimits, FamilyTool, tools_for

    clash = FamilyTool("bash", "a second bash", lambda episode, arguments: ("", 0))
    with pytest.raises(ValueError, match="may not take the name of a common tool"):
        tools_for(AgentLimits(), (clash,))
