"""Agent mode of Dafny-v1: the program in a workspace, a ``verify`` tool that checks it as the
grader does, Dafny in the shell, and ``submit``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from .test_env import SUM


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def test_verify_checks_the_workspace_file_and_submit_grades_it() -> None:
    env = gym.make("codegym/Dafny-v1", mode="agent")
    try:
        _, info = env.reset(options={"task_id": SUM})
        task: Any = env.unwrapped.task  # type: ignore[attr-defined]
        assert "verify" in [tool["function"]["name"] for tool in info["tools"]]

        observation, reward, terminated, _, info = env.step(call("verify"))  # (the program as given)
        assert (reward, terminated, info["tool_results"][0]["exit_code"]) == (0.0, False, 1)
        assert "Status: WA" in observation["feedback"] and "answer:14:3" in observation["feedback"]

        observation, _, _, _, info = env.step(call("bash", command="dafny /compile:0 program.dfy | tail -1"))
        assert "verified, 1 error" in observation["feedback"]

        edit = call("str_replace_editor", command="create", path="program.dfy", file_text=task.reference)
        observation, reward, terminated, _, info = env.step([edit, call("verify")])
        assert (reward, terminated) == (0.0, False) and "Status: OK" in observation["feedback"]

        observation, reward, terminated, _, info = env.step(call("submit"))
        assert (reward, terminated, info["status"]) == (1.0, True, "OK")
    finally:
        env.close()


def test_a_spec_agent_is_told_the_share_of_mutants_its_spec_rules_out() -> None:
    env = gym.make("codegym/Dafny-v1", mode="agent", task_kind="spec")
    try:
        observation, _ = env.reset(options={"task_id": SUM})
        task: Any = env.unwrapped.task  # type: ignore[attr-defined]
        assert "Write the requires and ensures clauses of Sum in program.dfy" in observation["prompt"]
        edit = call("str_replace_editor", command="create", path="program.dfy", file_text=task.reference)
        observation, reward, terminated, _, info = env.step([edit, call("verify")])
        assert (reward, terminated) == (0.0, False) and "rules out 5 of 5 held mutants" in observation["feedback"]
        observation, reward, terminated, _, info = env.step(call("submit"))
        assert (reward, terminated, info["status"]) == (1.0, True, "OK")
    finally:
        env.close()
