"""Terminal-v0 through the integrations that play agent episodes: TRL's ``environment_factory``,
verl's agent loop and ``codegym serve`` (a `RemoteEnv` and OpenEnv's own client). In each, one
episode of a Harbor task folder written by the tests (`fixtures.DOCKERFILE_APT_ONLY`: no PyPI at
build): the tools look around, write the answer and submit, for reward 1.0; a submit of the
untouched machine gets 0.0."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available

from . import fixtures

pytestmark = [pytest.mark.skipif(available() is not None, reason=str(available())), pytest.mark.timeout(600)]

ENV = "codegym/Terminal-v0"
TASK = "sum"
LOOK = "cat /app/numbers.txt; ls /opt/verifier-fixtures"
ANSWER = {"command": "create", "path": "/app/answer.txt", "file_text": "12\n"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("terminal-integrations")
    fixtures.write_harbor_task(root, TASK, dockerfile=fixtures.DOCKERFILE_APT_ONLY)
    return str(root)


# --- TRL's environment_factory -------------------------------------------------------------------


def test_trl_environment_factory_plays_an_episode(tasks: str) -> None:
    from codegym.integrations.trl import EPISODE_OVER, agent_dataset, environment_factory

    dataset = agent_dataset(ENV, tasks=tasks)
    assert dataset["task_id"] == [TASK]
    agent = environment_factory(ENV, tasks=tasks)()
    try:
        prompt = agent.reset(**dataset[0])
        assert prompt.startswith(fixtures.INSTRUCTION.strip()) and "in /app" in prompt and "submit" in prompt
        text = agent.bash(command=LOOK)
        assert text.startswith("3\n4\n5") and "No such file" in text and text.endswith("[exit status 2]")
        assert agent.str_replace_editor(command="create", path="/app/answer.txt", file_text="12\n").startswith(
            "Created"
        )
        assert agent.bash(command="cat /app/answer.txt") == "12"
        text = agent.submit()
        assert text.startswith("Status: OK") and agent.get_reward() == 1.0, text
        assert agent.calls == 4 and agent.info["reward_components"] == {"correct": 1.0}
        assert agent.bash(command="true") == EPISODE_OVER
        agent.reset(task_id=TASK)  # the next rollout: a fresh machine
        assert agent.bash(command="cat /app/answer.txt").endswith("[exit status 1]")
        assert agent.submit().startswith("Status: WA") and agent.get_reward() == 0.0
    finally:
        agent.env.close()


# --- verl's agent loop -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verl() -> Any:
    return pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason="verl is not installed")


def _tiny_tool_lm() -> Any:
    """The integrations' tiny tool-calling model (``tests/integrations/tiny_tool_lm.py``)."""
    path = Path(__file__).resolve().parents[2] / "integrations" / "tiny_tool_lm.py"
    spec = importlib.util.spec_from_file_location("tiny_tool_lm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ScriptedServer:
    """Stands in for verl's ``LLMServerClient`` (as in ``tests/integrations/test_verl_agent.py``):
    the same async ``generate`` and ``TokenOutput``, answering turn n with ``turns[n]``."""

    def __init__(self, tokenizer: Any, turns: list[str]) -> None:
        self.tokenizer, self.turns = tokenizer, list(turns)
        self.prompts: list[list[int]] = []

    async def generate(
        self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any
    ) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.prompts.append(list(prompt_ids))
        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        tokens = [*self.tokenizer.encode(self.turns.pop(0), add_special_tokens=False), end]
        return TokenOutput(token_ids=tokens[: sampling_params["max_tokens"]], log_probs=None, stop_reason="completed",
                           num_preempted=0)  # fmt: skip


def _verl_rollout(tasks: str, tmp_path: Path, turns: list[str]) -> tuple[Any, Any, ScriptedServer]:
    """One rollout of the agent loop, built as verl's worker builds it, whose model answers turn
    n with ``turns[n]``; returns the loop's output, the dataset's row and the server."""
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from codegym.integrations.verl import write_parquet
    from codegym.integrations.verl_agent import CodegymAgentLoop

    _, tokenizer = _tiny_tool_lm().tiny_tool_model_and_tokenizer(turns, max_length=32768)
    rollout = {"prompt_length": 16384, "response_length": 8192, "full_determinism": False,
               "multi_turn": {"max_assistant_turns": None, "max_user_turns": None}}  # fmt: skip
    data = {"max_prompt_length": 16384, "filter_overlong_prompts": False, "apply_chat_template_kwargs": {}}
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": data})
    path = write_parquet(ENV, tmp_path / "train.parquet", agent_name="codegym_agent", tasks=tasks)
    (item,) = list(RLHFDataset(str(path), tokenizer, config.data))
    server = ScriptedServer(tokenizer, turns)
    fields = {k: v for k, v in item.items() if k not in ("agent_name", "dummy_tensor")}

    async def main() -> Any:
        loop = CodegymAgentLoop(
            trainer_config=DictConfigWrap(config), server_manager=server, tokenizer=tokenizer, processor=None,
            hf_model_type="qwen2", dataset_cls=RLHFDataset, data_config=DictConfigWrap(config.data),
            tools=ToolListWrap([]),
        )  # fmt: skip
        return await loop.run({"temperature": 1.0, "top_p": 1.0, "top_k": -1}, **fields, priority=0)

    return asyncio.run(main()), item, server


def test_the_verl_agent_loop_plays_an_episode(verl: Any, tasks: str, tmp_path: Path) -> None:
    tool_call_text = _tiny_tool_lm().tool_call_text
    turns = [
        tool_call_text("bash", {"command": LOOK}),
        tool_call_text("str_replace_editor", ANSWER),
        tool_call_text("submit"),
    ]
    output, item, server = _verl_rollout(tasks, tmp_path, turns)
    assert item["reward_model"]["ground_truth"] == TASK and "in /app" in item["raw_prompt"][0]["content"]
    assert output.reward_score == 1.0 and output.extra_fields["turn_scores"] == [0.0, 0.0, 1.0]
    assert {k: output.extra_fields[k] for k in ("codegym_task_id", "codegym_status", "codegym_ended_by")} == {
        "codegym_task_id": TASK, "codegym_status": "OK", "codegym_ended_by": "submit"
    }  # fmt: skip
    # The first tool turn the model read holds the machine's answer to its command.
    feedback = server.tokenizer.decode(server.prompts[1][len(output.prompt_ids) :])
    assert "3\n4\n5" in feedback and "No such file" in feedback


def test_a_verl_episode_that_submits_nothing_scores_zero(verl: Any, tasks: str, tmp_path: Path) -> None:
    tool_call_text = _tiny_tool_lm().tool_call_text
    output, _, _ = _verl_rollout(tasks, tmp_path, [tool_call_text("submit")])
    assert output.reward_score == 0.0 and output.extra_fields["codegym_status"] == "WA"


# --- codegym serve -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """``codegym serve``'s app on a free loopback port, in a thread (task folders allowed)."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("websockets")
    from codegym.serve import ServeConfig, create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = ServeConfig(port=port, allow_paths=True, max_concurrency=4)
    server = uvicorn.Server(uvicorn.Config(create_app(config), host=config.host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="codegym-serve-terminal", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the test server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_a_remote_env_on_codegym_serve_plays_an_episode(server_url: str, tasks: str) -> None:
    from codegym.remote import RemoteEnv

    env = gym.make(ENV, server=server_url, tasks=tasks)
    assert isinstance(env.unwrapped, RemoteEnv)
    try:
        observation, info = env.reset(options={"task_id": TASK})
        assert "in /app" in observation["prompt"] and [t["function"]["name"] for t in info["tools"]][-1] == "submit"
        observation, reward, terminated, _, _ = env.step([call("bash", command=LOOK)])
        assert (reward, terminated) == (0.0, False) and "3\n4\n5" in observation["feedback"]
        observation, reward, terminated, _, info = env.step([call("str_replace_editor", **ANSWER), call("submit")])
        assert (reward, terminated, info["status"]) == (1.0, True, "OK"), observation["feedback"]
        env.reset(options={"task_id": TASK})
        _, reward, terminated, _, info = env.step([call("submit")])
        assert (reward, terminated, info["status"]) == (0.0, True, "WA")
    finally:
        env.close()


def test_openenvs_client_on_codegym_serve_plays_an_episode(server_url: str, tasks: str) -> None:
    pytest.importorskip("openenv.core")
    from openenv.core import GenericEnvClient

    from codegym.serve.wire import decode

    actions = [[call("bash", command=LOOK)], [call("str_replace_editor", **ANSWER), call("submit")]]
    with GenericEnvClient(base_url=f"{server_url}/envs/{ENV}", message_timeout_s=300).sync() as client:
        client.reset(options={"task_id": TASK}, env_kwargs={"tasks": tasks})
        results = [client.step({"action": action}) for action in actions]
    assert [(r.reward, r.done) for r in results] == [(0.0, False), (1.0, True)]
    assert decode(results[-1].observation)["info"]["status"] == "OK"
