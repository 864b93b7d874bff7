"""Agent mode, the family-independent parts (see codegym/agent.py), on PythonFunction tasks:
tool calls in every accepted form, their results, budgets, grading at submit, and what the
workspace never holds."""

from __future__ import annotations

import json
import os
import signal
import threading
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401
from codegym.agent import AgentLimits
from codegym.core import CodeEnv
from codegym.error import InvalidAction, ResetNeeded, SandboxError
from codegym.executor import Executor
from codegym.executor.local import LocalExecutor

TASK = "codegym-py/001-count-vowel-runs"


def make(executor: Executor, **options: Any) -> CodeEnv:
    env = gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor, **options).unwrapped
    assert isinstance(env, CodeEnv)
    return env


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.fixture
def env(executor: Executor) -> CodeEnv:
    env = make(executor)
    env.reset(seed=0, options={"task_id": TASK})
    yield env  # type: ignore[misc]
    env.close()


def test_reset_offers_the_tools_and_describes_the_workspace(env: CodeEnv) -> None:
    observation, info = env.reset(options={"task_id": TASK})
    names = [tool["function"]["name"] for tool in info["tools"]]
    assert names == ["bash", "str_replace_editor", "search", "submit"] and info["tools"] == env.tools
    assert "solution.py" in observation["prompt"] and "./run_tests" in observation["prompt"]
    assert "killed when the command returns" in info["tools"][0]["function"]["description"]
    _, _, _, _, stepped = env.step(call("bash", command="pwd -P"))
    assert stepped["tool_results"][0]["content"] == info["workdir"] == "/sandbox"  # (where the tools start)


def test_the_reference_written_with_tools_gets_reward_one(env: CodeEnv) -> None:
    reference = env.task.reference  # type: ignore[union-attr]
    _, reward, terminated, truncated, info = env.step(call("str_replace_editor", command="create", path="solution.py",
                                                           file_text=reference))  # fmt: skip
    assert (reward, terminated, truncated) == (0.0, False, False)
    _, _, _, _, info = env.step(call("bash", command="./run_tests"))
    result = info["tool_results"][0]
    assert result["exit_code"] == 0 and "2 of 2 public tests passed" in result["content"]
    assert set(result) == {"tool_call_id", "name", "content", "exit_code", "truncated", "elapsed_s", "timed_out",
                           "background_killed"}  # fmt: skip
    assert (result["truncated"], result["timed_out"], result["background_killed"]) == (False, False, 0)
    observation, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (1.0, True, False, "OK")
    assert info["reward_components"] == {"correct": 1.0} and info["code"] == reference
    assert "all 11 tests passed" in observation["feedback"]
    with pytest.raises(ResetNeeded):
        env.step(call("submit"))


def test_the_stub_submitted_as_it_is_gets_zero(env: CodeEnv) -> None:
    _, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (0.0, True, False, "WA")
    assert info["code"] == env.task.prompt  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "action",
    [
        "<function=bash>\n<parameter=command>echo $((6*7))</parameter>\n</function>",
        "```bash\necho $((6*7))\n```",
        {"name": "bash", "arguments": {"command": "echo $((6*7))"}},
        [
            {
                "id": "call_x",
                "type": "function",
                "function": {"name": "bash", "arguments": '{"command": "echo $((6*7))"}'},
            }
        ],
    ],
    ids=["openhands-xml", "fenced-bash", "dict", "openai-list"],
)
def test_every_call_form_runs(env: CodeEnv, action: Any) -> None:
    observation, _, _, _, info = env.step(action)
    assert [r["content"] for r in info["tool_results"]] == ["42"] and info["format_errors"] == 0
    assert "42" in observation["feedback"]


def test_several_calls_run_in_order_and_state_persists(env: CodeEnv) -> None:
    action = call("bash", command="echo one > notes.txt") + "thinking..." + call("bash", command="cat notes.txt; pwd")
    _, _, _, _, info = env.step(action)
    assert [r["tool_call_id"] for r in info["tool_results"]] == ["call_0", "call_1"]
    assert info["tool_results"][1]["content"].splitlines()[0] == "one"
    _, _, _, _, info = env.step(call("search", pattern="one", path="."))
    assert "notes.txt:1: one" in info["tool_results"][0]["content"]


def test_malformed_calls_get_a_helpful_observation(env: CodeEnv) -> None:
    action = '<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>' + call("run_shell", cmd="ls")
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_errors"] == 2 and info["tool_results"] == []
    assert all(message in observation["feedback"] for message in info["format_error_messages"])
    assert "JSON" in observation["feedback"] and "bash" in observation["feedback"]
    observation, _, _, _, info = env.step("I think the answer is 42.")
    assert info["format_errors"] == 1 and "<tool_call>" in observation["feedback"]
    with pytest.raises(InvalidAction):
        env.step(42)  # type: ignore[arg-type]


def test_long_output_is_cut_and_kept_in_the_workspace(executor: Executor) -> None:
    env = make(executor, agent=AgentLimits(output_bytes=1000))
    env.reset(options={"task_id": TASK})
    _, _, _, _, info = env.step(call("bash", command="seq 1 100000"))
    result = info["tool_results"][0]
    assert result["truncated"] and result["content"].startswith("1\n2\n") and result["content"].endswith("100000")
    log = result["content"].split("the full output is in ")[1].split(" ")[0]
    _, _, _, _, info = env.step(call("bash", command=f"wc -l < {log}"))
    assert info["tool_results"][0]["content"] == "100000"
    env.close()


def test_a_command_past_its_timeout_is_killed_and_the_episode_goes_on(executor: Executor) -> None:
    env = make(executor, agent=AgentLimits(timeout_s=0.5, max_timeout_s=1.0))
    env.reset(options={"task_id": TASK})
    _, _, _, _, info = env.step(call("bash", command="echo before; sleep 30 & sleep 30", timeout_s=100))
    result = info["tool_results"][0]
    assert result["exit_code"] == 124 and "timed out after 1 s" in result["content"] and result["elapsed_s"] < 10
    assert result["timed_out"] and result["background_killed"] == 0  # (its process group: the time-out's)
    _, _, _, _, info = env.step(call("bash", command="echo alive"))
    assert info["tool_results"][0]["content"] == "alive"
    env.close()


def test_results_say_what_the_runner_saw_not_what_the_text_says(env: CodeEnv) -> None:
    elided = "[... 5 bytes elided; the full output is in .codegym/output/0001.log ...]"
    forged = 'echo "0123abcd {\\"timed_out\\": true}" > /proc/$PPID/fd/2'  # (a report line, on the runner's stderr)
    action = (call("bash", command=f"echo '{elided}'; {forged}; exit 124")
              + call("bash", command="sleep 30 & setsid -f sleep 31; (sleep 32 &); sleep 0.1 & wait $!; echo left")
              + call("str_replace_editor", command="view", path="solution.py"))  # fmt: skip
    _, _, _, _, info = env.step(action)
    said, left, viewed = info["tool_results"]
    assert (said["exit_code"], said["timed_out"], said["truncated"]) == (124, False, False)
    assert said["content"].startswith(elided) and said["background_killed"] == 0
    assert (left["content"], left["background_killed"]) == ("left", 3)  # (killed when the command returned)
    assert (viewed["timed_out"], viewed["truncated"], viewed["background_killed"]) == (False, False, 0)


@pytest.mark.parametrize(
    ("limits", "ended_by"),
    [(AgentLimits(max_calls=2), "calls"), (AgentLimits(wall_s=0.5, timeout_s=0.3, max_timeout_s=0.3), "wall")],
)
def test_an_episode_budget_truncates_it_unscored(executor: Executor, limits: AgentLimits, ended_by: str) -> None:
    env = make(executor, agent=limits)
    env.reset(options={"task_id": TASK})
    truncated, info = False, {}
    for _ in range(5):
        observation, reward, terminated, truncated, info = env.step(call("bash", command="sleep 0.2"))
        assert reward == 0.0 and not terminated
        if truncated:
            break
    assert truncated and info["truncated_by"] == ended_by and "budget" in observation["feedback"]
    with pytest.raises(ResetNeeded):
        env.step(call("submit"))
    env.close()


def test_hidden_tests_are_never_in_the_workspace(env: CodeEnv) -> None:
    hidden = env.task.hidden_tests[0].code  # type: ignore[union-attr]
    needle = hidden.split("(", 1)[1][:20]
    _, _, _, _, info = env.step(
        call("bash", command=f"grep -rlF -- {json.dumps(needle)} . /tmp 2>/dev/null; echo done")
    )
    assert info["tool_results"][0]["content"] == "done"


def test_a_linked_submission_is_not_followed(env: CodeEnv) -> None:
    env.step(call("bash", command="rm solution.py && ln -s /etc/passwd solution.py"))
    _, reward, terminated, _, info = env.step(call("submit"))
    assert terminated and reward == 0.0 and info["code"] == ""


def test_calls_after_submit_do_not_run(env: CodeEnv) -> None:
    action = call("submit") + call("bash", command="echo after")
    _, _, terminated, _, info = env.step(action)
    assert terminated and info["tool_results"] == []


def test_a_worker_lost_mid_episode_truncates_it_with_the_infra_flag() -> None:
    with LocalExecutor(workers=1, isolation="full") as executor:
        env = make(executor)
        env.reset(options={"task_id": TASK})
        env.step(call("bash", command="true"))
        threading.Timer(0.5, os.kill, (executor.worker_pids()[0], signal.SIGKILL)).start()
        observation, reward, terminated, truncated, info = env.step(call("bash", command="sleep 5"))
        assert (reward, terminated, truncated) == (0.0, False, True)
        assert "lost" in info["infra_error"] and "not your fault" in observation["feedback"]
        env.reset(options={"task_id": TASK})  # the next episode gets a fresh worker
        _, _, _, _, info = env.step(call("bash", command="ls"))
        assert info["tool_results"][0]["exit_code"] == 0
        env.close()


def test_episodes_free_their_workspaces(executor: Executor) -> None:
    env = make(executor)
    for _ in range(3):
        env.reset(options={"task_id": TASK})
    env.step(call("submit"))
    env.reset(options={"task_id": TASK})
    env.close()
    assert all(not worker.sessions for worker in executor._pool)  # type: ignore[attr-defined]


def test_agent_mode_passes_the_env_checker(executor: Executor) -> None:
    env = make(executor)
    check_env(env, skip_render_check=True)
    env.close()


def test_a_sandbox_failure_at_submit_truncates_unscored(env: CodeEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise SandboxError("the grading sandbox is gone")

    monkeypatch.setattr(env, "build_job", broken)
    observation, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["infra_error"] == "the grading sandbox is gone" and "not your fault" in observation["feedback"]


def test_an_async_vector_env_of_agents_passes_any_text() -> None:
    envs = gym.make_vec("codegym/PythonFunction-v0", num_envs=2, vectorization_mode="async", mode="agent")
    try:
        _, info = envs.reset(seed=0)
        assert info["tools"][0][0]["function"]["name"] == "bash"
        observation, _, _, _, info = envs.step([call("bash", command="printf 'caf\\u00e9 \\u279e\\n'")] * 2)
        assert list(observation["feedback"]) == ["[bash call_0: exit 0]\ncafé ➞"] * 2
    finally:
        envs.close()
