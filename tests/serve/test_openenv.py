"""OpenEnv's own client plays codegym envs on the server, with the rewards and grades the same
env gives in this process: single, refine and agent episodes of three families."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from codegym.wrappers import read_episodes

from codegym.grade import Status
from codegym.serve import ServeConfig
from codegym.serve.wire import decode

pytest.importorskip("websockets")
pytest.importorskip("openenv.core")
from openenv.core import GenericEnvClient
from websockets.sync.client import connect

from .conftest import _free_port, _start

pytestmark = pytest.mark.timeout(240)

WRONG = "def nothing():\n    return None\n"


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command}}


def create(path: str, text: str) -> dict[str, Any]:
    return {"name": "str_replace_editor", "arguments": {"command": "create", "path": path, "file_text": text}}


SUBMIT = {"name": "submit", "arguments": {}}


def _right(env: Any) -> str:
    return env.unwrapped.tasks.get(env.unwrapped.task.id).reference or ""


def _agent_fix(env: Any) -> list[Any]:
    """A few tool calls, then the reference written to the submission file and submitted."""
    setup = env.unwrapped.agent_setup(env.unwrapped.task)
    return [[bash("ls")], [bash(f"cat {setup.submission} | head -5")], [create(setup.submission, _right(env)), SUBMIT]]


def _agent_look(env: Any) -> list[Any]:
    """A few tool calls, then a submit of the untouched workspace."""
    return [[bash("ls")], [{"name": "search", "arguments": {"pattern": "def "}}], [SUBMIT]]


Scenario = Callable[[Any], list[Any]]
CASES: list[tuple[str, str, Scenario, list[float]]] = [
    ("codegym/PythonFunction-v0", "single", lambda env: [_right(env)], [1.0]),
    ("codegym/PythonFunction-v0", "single", lambda env: [WRONG], [0.0]),
    ("codegym/PythonFunction-v0", "refine", lambda env: [WRONG, _right(env)], [0.0, 1.0]),
    ("codegym/PythonFunction-v0", "agent", _agent_fix, [0.0, 0.0, 1.0]),
    ("codegym/StdioProgram-v0", "single", lambda env: [_right(env)], [1.0]),
    ("codegym/StdioProgram-v0", "refine", lambda env: ["print(1)\n", _right(env)], [0.0, 1.0]),
    ("codegym/StdioProgram-v0", "agent", _agent_fix, [0.0, 0.0, 1.0]),
    ("codegym/RepoRepair-v1", "single", lambda env: ["not a diff"], [0.0]),  # (the right one: in refine)
    ("codegym/RepoRepair-v1", "refine", lambda env: ["not a diff", _right(env)], [0.0, 1.0]),
    ("codegym/RepoRepair-v1", "agent", _agent_look, [0.0, 0.0, 0.0]),
]


# One library's repositories: loading all seven mutates every library's source (tens of seconds).
EXTRA: dict[str, dict[str, Any]] = {"codegym/RepoRepair-v1": {"libraries": ["toolz"]}}


def _local(env_id: str, mode: str, scenario: Scenario) -> tuple[list[Any], list[tuple[Any, ...]]]:
    env = gym.make(env_id, mode=mode, **EXTRA.get(env_id, {}))
    try:
        first, info = env.reset(seed=0)
        actions = scenario(env)
        steps = [(first, None, False, False, info)] + [env.step(action) for action in actions]
    finally:
        env.close()
    return actions, steps


def _remote(url: str, env_id: str, mode: str, actions: list[Any]) -> list[tuple[Any, ...]]:
    field = "action" if mode == "agent" else "code"
    with GenericEnvClient(base_url=f"{url}/envs/{env_id}", message_timeout_s=120).sync() as client:
        results = [client.reset(seed=0, env_kwargs={"mode": mode, **EXTRA.get(env_id, {})})]
        results += [client.step({field: action}) for action in actions]
    steps = []
    for result in results:
        body = decode(result.observation)
        info, terminated, truncated = body.pop("info"), body.pop("terminated"), body.pop("truncated")
        assert result.done == (terminated or truncated)
        steps.append((body, result.reward, terminated, truncated, info))
    return steps


def _same_observation(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert list(a) == list(b)
    for key, value in a.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == b[key].dtype and np.array_equal(value, b[key]), key
        else:
            assert value == b[key], key


@pytest.mark.parametrize(("env_id", "mode", "scenario", "rewards"), CASES,
                         ids=[f"{c[0].split('/')[1]}-{c[1]}-{i}" for i, c in enumerate(CASES)])  # fmt: skip
def test_openenv_client_gets_the_in_process_rewards(
    server_url: str, env_id: str, mode: str, scenario: Scenario, rewards: list[float]
) -> None:
    actions, local = _local(env_id, mode, scenario)
    remote = _remote(server_url, env_id, mode, actions)
    assert [step[1] for step in local[1:]] == rewards
    assert [step[1] for step in remote[1:]] == rewards
    assert remote[0][1] is None  # (OpenEnv: no reward at reset)
    for (obs, _, terminated, truncated, info), (r_obs, _, r_terminated, r_truncated, r_info) in zip(
        local, remote, strict=True
    ):
        assert (r_terminated, r_truncated) == (terminated, truncated)
        assert r_info.get("grade") == info.get("grade")  # (a Grade: equal verdicts)
        if mode != "agent":  # (an agent's tool results carry their measured times)
            assert r_info == info  # (tuples stay tuples, the Grade an equal Grade)
            _same_observation(obs, r_obs)
    final = remote[-1][4]
    assert final["status"] == (Status.OK.value if rewards[-1] == 1.0 else final["grade"].status.value)


def test_agent_steps_stream_each_tool_call(server_url: str) -> None:
    url = server_url.replace("http://", "ws://") + "/envs/codegym/PythonFunction-v0/stream"
    with connect(url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0, "env_kwargs": {"mode": "agent"}}}))
        assert json.loads(ws.recv(timeout=60))["type"] == "observation"
        ws.send(json.dumps({"type": "step", "data": {"action": [bash("echo one"), bash("echo two")]}}))
        messages = [json.loads(ws.recv(timeout=60)) for _ in range(3)]
    assert [m["type"] for m in messages] == ["tool_result", "tool_result", "observation"]
    assert "one" in json.dumps(messages[0]["data"]) and "two" in json.dumps(messages[1]["data"])
    info = decode(messages[2]["data"]["observation"]["info"])
    assert len(info["tool_results"]) == 2 and messages[2]["data"]["done"] is False


def test_session_errors_come_back_as_openenv_errors(server_url: str) -> None:
    with GenericEnvClient(base_url=f"{server_url}/envs/codegym/PythonFunction-v0").sync() as client:
        with pytest.raises(RuntimeError, match="reset message before the first step"):
            client.step({"code": "x = 1"})
        with pytest.raises(RuntimeError, match="unknown reset options"):
            client.reset(options={"nope": 1})
        with pytest.raises(RuntimeError, match="server's to choose"):
            client.reset(env_kwargs={"executor": "docker"})
        assert client.reset(seed=1).observation["attempt"] == 0  # (the session goes on)


def test_a_server_that_records_writes_each_session_s_episodes(tmp_path) -> None:
    record = tmp_path / "served.jsonl"
    server, thread = _start(ServeConfig(port=_free_port(), record=str(record)))
    try:
        env = gym.make("codegym/PythonFunction-v0")
        task = env.unwrapped.tasks.get("codegym-py/004-digital-root")
        url = f"http://127.0.0.1:{server.config.port}/envs/codegym/PythonFunction-v0"
        with GenericEnvClient(base_url=url, message_timeout_s=120).sync() as client:
            client.reset(task_id=task.id)
            result = client.step({"code": task.reference})
        assert result.reward == 1.0 and result.done
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    [episode] = read_episodes(record)
    assert episode["task"]["id"] == task.id and episode["ended"] == "terminated"
    assert episode["steps"][0]["info"]["grade"].status is Status.OK and episode["return"] == 1.0
