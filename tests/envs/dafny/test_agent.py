"""Agent mode of Dafny-v1: the program in a workspace, a ``verify`` tool that checks it as the
grader does, Dafny in the shell, and ``submit``."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.dafny.tasks import BUNDLED, DATA

from codegym.error import InvalidTask

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


def test_a_spec_task_that_cannot_be_graded_says_why_in_its_workspace() -> None:
    """(Its workspace named its first open method, which it has none of: an IndexError.)"""
    cases = json.loads((DATA / BUNDLED / "count-positives.spec.json").read_text(encoding="utf-8"))
    row = {"id": "broken", "program": "method M() {\n", "spec_cases": cases}
    env = DafnyEnv([row], task_kind="spec", mode="agent", executor="local")
    task = env.tasks.get("broken")
    assert task.invalid is not None and "never closed" in task.invalid
    setup = env.agent_setup(task)
    assert setup.instructions.startswith("Task broken cannot be graded (not your fault): ")
    assert task.invalid in setup.instructions and "IE" in setup.instructions
    strict = DafnyEnv([row], task_kind="spec", mode="agent", executor="local", on_task_error="raise")
    with pytest.raises(InvalidTask, match="never closed"):
        strict.agent_setup(strict.tasks.get("broken"))
