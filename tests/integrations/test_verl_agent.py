"""verl's agent loop over codegym's agent episodes, built from verl's own classes.

Rows go through `write_parquet` and verl's ``RLHFDataset`` into `CodegymAgentLoop.run`, which
talks to a stand-in for verl's LLM server: an object with ``LLMServerClient.generate``'s
signature that returns verl's ``TokenOutput``, from a tiny local model (vLLM and SGLang do not
run on this machine). Tests that need verl skip without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import pytest

import codegym.integrations
from codegym.episodes import read_episodes
from codegym.error import DependencyNotInstalled, SandboxError
from codegym.executor import Executor
from codegym.integrations.verl import AGENT_LOOP, rows, write_agent_loop_config, write_parquet

from .tiny_tool_lm import TINY

ENV = "codegym/PythonFunction-v0"
TASK = "codegym-py/001-count-vowel-runs"
NO_VERL = "verl is not installed (its agent loop is verl.experimental.agent_loop)"
# What verl's AgentLoopWorker samples with (rollout.calculate_log_probs on).
SAMPLING = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}


@pytest.fixture(scope="module")
def verl() -> Any:
    return pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason=NO_VERL)


def call(name: str, arguments: dict[str, Any] | None = None) -> str:
    from .tiny_tool_lm import tool_call_text

    return tool_call_text(name, arguments)


class TinyServer:
    """Stands in for verl's ``LLMServerClient``: the same async ``generate``, the same
    ``TokenOutput``. It samples from the tiny model, or, given ``turns``, answers turn n with
    ``turns[n]`` (then the turn's end); log probabilities are the model's either way."""

    def __init__(
        self, model: Any, tokenizer: Any, turns: Sequence[str] = (), on_turn: Callable[[], Any] = lambda: None
    ):
        self.model, self.tokenizer = model, tokenizer
        self.turns = list(turns)
        self.on_turn = on_turn
        self.requests: list[dict[str, Any]] = []
        self.outputs: list[Any] = []

    async def generate(
        self,
        request_id: str,
        *,
        prompt_ids: list[int],
        sampling_params: dict[str, Any],
        image_data: list[Any] | None = None,
        video_data: list[Any] | None = None,
        audio_data: list[Any] | None = None,
        mm_processor_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.requests.append({"request_id": request_id, "prompt_ids": list(prompt_ids), **sampling_params, **kwargs})
        self.on_turn()
        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        if self.turns:
            tokens = [*self.tokenizer.encode(self.turns.pop(0), add_special_tokens=False), end]
        else:
            tokens = self._sample(prompt_ids, sampling_params, end)
        tokens = tokens[: sampling_params["max_tokens"]]
        logprobs = self._logprobs(prompt_ids, tokens) if sampling_params.get("logprobs") else None
        output = TokenOutput(token_ids=tokens, log_probs=logprobs, stop_reason="completed", num_preempted=0)
        self.outputs.append(output)
        return output

    def _sample(self, prompt_ids: list[int], params: dict[str, Any], end: int) -> list[int]:
        import torch

        greedy = params["temperature"] == 0
        sampled = self.model.generate(
            torch.tensor([prompt_ids]), max_new_tokens=params["max_tokens"], do_sample=not greedy,
            temperature=None if greedy else params["temperature"], top_p=params["top_p"],
            top_k=params["top_k"] if params["top_k"] > 0 else None, eos_token_id=end, pad_token_id=0,
        )  # fmt: skip
        return sampled[0, len(prompt_ids) :].tolist()

    def _logprobs(self, prompt_ids: list[int], tokens: list[int]) -> list[float]:
        import torch

        with torch.no_grad():
            logits = self.model(torch.tensor([prompt_ids + tokens])).logits[0, len(prompt_ids) - 1 : -1]
        return torch.log_softmax(logits.float(), -1).gather(1, torch.tensor(tokens)[:, None])[:, 0].tolist()


def trainer_config(response_length: int = 4096, max_assistant_turns: int | None = None) -> Any:
    """What `AgentLoopBase` and the loop read of verl's trainer config."""
    from omegaconf import OmegaConf

    rollout = {
        "prompt_length": 16384,
        "response_length": response_length,
        "full_determinism": False,
        "multi_turn": {"max_assistant_turns": max_assistant_turns, "max_user_turns": None},
    }
    data = {"max_prompt_length": 16384, "filter_overlong_prompts": False, "apply_chat_template_kwargs": {}}
    return OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": data})


def loop_arguments(config: Any, server: TinyServer) -> dict[str, Any]:
    """The arguments verl's AgentLoopWorker instantiates every agent loop with."""
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    return {
        "trainer_config": DictConfigWrap(config), "server_manager": server, "tokenizer": server.tokenizer,
        "processor": None, "hf_model_type": "qwen2", "dataset_cls": RLHFDataset,
        "data_config": DictConfigWrap(config.data), "tools": ToolListWrap([]),
    }  # fmt: skip


def dataset(tmp_path: Any, tokenizer: Any, config: Any, **env_kwargs: Any) -> Any:
    """verl's dataset over the parquet `write_parquet` writes for agent rows."""
    from verl.utils.dataset.rl_dataset import RLHFDataset

    path = write_parquet(ENV, tmp_path / "train.parquet", agent_name="codegym_agent", **env_kwargs)
    return RLHFDataset(str(path), tokenizer, config.data)


def run_fields(item: dict[str, Any]) -> dict[str, Any]:
    """What verl's worker passes ``run`` for a dataset item: its non-tensor fields, less the
    loop's name, plus the request priority its manager adds."""
    assert item["agent_name"] == "codegym_agent"
    return {**{k: v for k, v in item.items() if k not in ("agent_name", "dummy_tensor")}, "priority": 0}


def rollout(config: Any, server: TinyServer, item: dict[str, Any], **options: Any) -> Any:
    from codegym.integrations.verl_agent import CodegymAgentLoop

    async def main() -> Any:  # (verl makes each loop inside its worker's event loop)
        loop = CodegymAgentLoop(**loop_arguments(config, server), **options)
        return await loop.run(dict(SAMPLING), **run_fields(item))

    return asyncio.run(main())


def runs(mask: Sequence[int]) -> list[tuple[int, int, int]]:
    """The maximal runs of equal values of ``mask``: (value, start, end)."""
    out: list[tuple[int, int, int]] = []
    for i, value in enumerate(mask):
        if out and out[-1][0] == value:
            out[-1] = (value, out[-1][1], i + 1)
        else:
            out.append((value, i, i + 1))
    return out


def tool_turn(feedback: str) -> str:
    """What the chat template makes of one tool message, between two model turns."""
    return f"\n<|im_start|>user\n<tool_response>\n{feedback}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"


# --- rollouts ----------------------------------------------------------------------------


def test_a_scripted_episode_that_solves_the_task(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    reference = gym.make(ENV).unwrapped.tasks.get(TASK).reference  # type: ignore[attr-defined]
    turns = [
        call("str_replace_editor", {"command": "create", "path": "solution.py", "file_text": reference}),
        call("bash", {"command": "./run_tests"}),
        call("submit"),
    ]
    model, tokenizer = tiny_tool_model_and_tokenizer(turns, max_length=32768)
    config = trainer_config()
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    server = TinyServer(model, tokenizer, turns)
    output = rollout(config, server, item, env_kwargs={"executor": executor})

    # The env itself, given the same actions, returns the same reward and the same feedback.
    env = gym.make(ENV, mode="agent", executor=executor)
    observation, info = env.reset(options={"task_id": TASK})
    assert item["raw_prompt"] == [{"role": "user", "content": observation["prompt"]}]
    steps = [env.step(tokenizer.decode(o.token_ids, skip_special_tokens=True)) for o in server.outputs]
    env.close()
    assert [step[1:4] for step in steps] == [(0.0, False, False), (0.0, False, False), (1.0, True, False)]
    assert output.reward_score == 1.0 == sum(step[1] for step in steps)
    assert output.extra_fields["turn_scores"] == [0.0, 0.0, 1.0]
    assert output.num_turns == 6  # the prompt, three model turns, two tool turns
    assert {k: output.extra_fields[k] for k in ("codegym_task_id", "codegym_status", "codegym_ended_by")} == {
        "codegym_task_id": TASK, "codegym_status": "OK", "codegym_ended_by": "submit"
    }  # fmt: skip

    # The prompt is the chat template's rendering of the row's prompt with the env's tools.
    tools = info["tools"]
    assert output.prompt_ids == tokenizer.apply_chat_template(
        item["raw_prompt"], tools=tools, add_generation_prompt=True, tokenize=True, return_dict=False
    )
    assert server.requests[0]["prompt_ids"] == output.prompt_ids
    # Mask 1 over exactly the model's tokens, 0 over exactly the tool turns, which hold the feedback.
    response, mask = output.response_ids, output.response_mask
    assert len(response) == len(mask) == len(output.response_logprobs)
    assert [(value, response[start:end]) for value, start, end in runs(mask) if value] == [
        (1, o.token_ids) for o in server.outputs
    ]
    gaps = [tokenizer.decode(response[start:end]) for value, start, end in runs(mask) if not value]
    assert gaps == [tool_turn(step[0]["feedback"]) for step in steps[:2]]
    assert steps[1][0]["feedback"].startswith("[bash call_0: exit 0]") and "2 of 2 public tests passed" in gaps[1]
    # Each turn is generated from everything before it, and logprobs line up with the tokens.
    for n, request in enumerate(server.requests):
        start = runs(mask)[2 * n][1]
        assert request["prompt_ids"] == output.prompt_ids + response[:start]
        assert request["max_tokens"] == 4096 - start and request["logprobs"] is True
    logprobs = [p for p, m in zip(output.response_logprobs, mask, strict=True) if m]
    assert logprobs == [p for o in server.outputs for p in o.log_probs]
    assert all(p == 0.0 for p, m in zip(output.response_logprobs, mask, strict=True) if not m)
    assert len({r["request_id"] for r in server.requests}) == 1


def test_record_writes_each_rollout_s_episode_with_its_tokens(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    turns = [call("bash", {"command": "echo hi"}), call("submit")]
    model, tokenizer = tiny_tool_model_and_tokenizer(turns, max_length=32768)
    config = trainer_config()
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    server = TinyServer(model, tokenizer, turns)
    path = tmp_path / "episodes.jsonl"
    output = rollout(config, server, item, env_kwargs={"executor": executor}, record=str(path))
    [episode] = read_episodes(path)
    assert (episode["task"]["id"], episode["mode"], episode["ended"]) == (TASK, "agent", "terminated")
    assert episode["return"] == output.reward_score == 0.0 and episode["steps"][-1]["info"]["status"] == "WA"
    assert [step["action"] for step in episode["steps"]] == turns
    assert [step["generation"]["token_ids"] for step in episode["steps"]] == [o.token_ids for o in server.outputs]
    assert [step["generation"]["logprobs"] for step in episode["steps"]] == [o.log_probs for o in server.outputs]
    assert episode["steps"][0]["info"]["tool_results"][0]["content"] == "hi"


def test_a_sampled_episode_that_submits_the_stub_gets_zero(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    model, tokenizer = tiny_tool_model_and_tokenizer([call("submit")], max_length=32768)
    config = trainer_config()
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    server = TinyServer(model, tokenizer)
    output = rollout(config, server, item, env_kwargs={"executor": executor})
    assert tokenizer.decode(output.response_ids) == call("submit") + "<|im_end|>"
    assert output.response_mask == [1, 1] and output.num_turns == 2
    assert output.reward_score == 0.0 and output.extra_fields["codegym_status"] == "WA"
    assert output.extra_fields["codegym_ended_by"] == "submit" and output.extra_fields["codegym_calls"] == 0


def test_two_calls_in_one_turn_and_env_kwargs_of_the_loop(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    # Every turn the model writes a bash call that solves f1 (not f0), then submit.
    script = [call("bash", {"command": "printf '    return 1\\n' >> solution.py"}), "\n" + call("submit")]
    model, tokenizer = tiny_tool_model_and_tokenizer(script, max_length=32768)
    config = trainer_config()
    items = list(dataset(tmp_path, tokenizer, config, tasks=TINY))  # (TINY is no JSON: the loop gets it)
    assert [i["extra_info"]["env_kwargs"] for i in items] == ["{}", "{}"]
    scores = {}
    for item in items:
        output = rollout(config, TinyServer(model, tokenizer), item, env_kwargs={"executor": executor, "tasks": TINY})
        assert output.num_turns == 2 and output.extra_fields["codegym_calls"] == 1
        scores[item["reward_model"]["ground_truth"]] = output.reward_score
    assert scores == {"tiny/0": 0.0, "tiny/1": 1.0}


def test_verls_turn_limit_ends_an_episode_unscored(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    model, tokenizer = tiny_tool_model_and_tokenizer([call("bash", {"command": "echo hi"})], max_length=32768)
    config = trainer_config(max_assistant_turns=2)
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    output = rollout(config, TinyServer(model, tokenizer), item, env_kwargs={"executor": executor})
    assert output.reward_score == 0.0 and output.num_turns == 4 and output.extra_fields["codegym_status"] is None
    assert output.extra_fields["codegym_ended_by"] == "max_turns" and output.extra_fields["codegym_calls"] == 2
    assert [value for value, _, _ in runs(output.response_mask)] == [1, 0, 1]  # (it ends on the model's tokens)
    assert "hi" in tokenizer.decode(output.response_ids[output.response_mask.index(0) :])


def test_verls_response_length_ends_an_episode_unscored(verl, executor: Executor, tmp_path) -> None:
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    model, tokenizer = tiny_tool_model_and_tokenizer([call("bash", {"command": "echo hi"})], max_length=32768)
    config = trainer_config(response_length=40)  # room for one turn, not for its tool turn
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    server = TinyServer(model, tokenizer)
    output = rollout(config, server, item, env_kwargs={"executor": executor})
    assert output.response_mask == [1, 1] and output.num_turns == 2 and output.reward_score == 0.0
    assert output.extra_fields["codegym_ended_by"] == "response_length" and output.extra_fields["codegym_calls"] == 1
    assert server.requests[0]["max_tokens"] == 40


def test_an_infrastructure_failure_is_never_a_score(verl, tmp_path) -> None:
    from codegym.executor.local import LocalExecutor

    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    model, tokenizer = tiny_tool_model_and_tokenizer([call("bash", {"command": "sleep 5"})], max_length=32768)
    config = trainer_config()
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    with LocalExecutor(workers=1, isolation="full") as executor:
        kill = threading.Timer(1.0, lambda: os.kill(executor.worker_pids()[0], signal.SIGKILL))
        server = TinyServer(model, tokenizer, on_turn=kill.start)
        with pytest.raises(SandboxError, match=f"the agent episode of {TASK} lost its sandbox: .*lost"):
            rollout(config, server, item, env_kwargs={"executor": executor})
        kill.join()


# --- registration ------------------------------------------------------------------------


def test_verl_finds_the_loop_by_name_as_its_workers_do(verl, tmp_path, monkeypatch) -> None:
    import hydra
    from omegaconf import OmegaConf

    from codegym.integrations.verl import register_agent_loop
    from codegym.integrations.verl_agent import CodegymAgentLoop

    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    assert verl._agent_loop_registry["codegym_agent"] == {"_target_": AGENT_LOOP}
    monkeypatch.setattr(verl, "_agent_loop_registry", dict(verl._agent_loop_registry))  # (what the test adds goes)
    assert f"{CodegymAgentLoop.__module__}.{CodegymAgentLoop.__qualname__}" == AGENT_LOOP
    assert register_agent_loop("my_codegym") is CodegymAgentLoop
    assert verl._agent_loop_registry["my_codegym"] == {"_target_": AGENT_LOOP}

    # A worker loads the config file into the registry, then instantiates the entry of a row's agent_name.
    path = write_agent_loop_config(tmp_path / "agent_loops.yaml", name="cg", env_kwargs={"tasks": "codegym-py"})
    for entry in OmegaConf.load(path):
        verl._agent_loop_registry[entry.name] = entry
    _, tokenizer = tiny_tool_model_and_tokenizer([call("submit")])

    async def make() -> Any:
        server = TinyServer(None, tokenizer)
        return hydra.utils.instantiate(
            config=verl._agent_loop_registry["cg"], **loop_arguments(trainer_config(), server)
        )

    loop = asyncio.run(make())
    assert type(loop) is CodegymAgentLoop and loop.env_kwargs == {"tasks": "codegym-py"}
    env = loop.make_env({"data_source": ENV, "extra_info": {"env_kwargs": json.dumps({"tasks": "humaneval"})}})
    assert env.unwrapped.mode == "agent" and env.unwrapped.tasks.get("HumanEval/2")  # type: ignore[attr-defined]
    env.close()


def test_agent_rows_carry_the_episode_prompt_and_the_loops_name(executor: Executor) -> None:
    plain, agent = rows(ENV, tasks=TINY), rows(ENV, agent_name="codegym_agent", tasks=TINY)
    assert "agent_name" not in plain[0] and [r["agent_name"] for r in agent] == ["codegym_agent"] * 2
    env = gym.make(ENV, mode="agent", tasks=TINY, executor=executor)
    observation, _ = env.reset(options={"task_id": "tiny/1"})
    env.close()
    assert agent[1]["prompt"] == [{"role": "user", "content": observation["prompt"]}]
    assert {k: v for k, v in agent[1].items() if k not in ("prompt", "agent_name")} == {
        k: v for k, v in plain[1].items() if k != "prompt"
    }


def test_the_agent_loop_config_file(tmp_path) -> None:
    path = write_agent_loop_config(tmp_path / "loops.yaml", env_kwargs={"executor": "docker", "seed": 1})
    assert path.read_text() == (
        '- name: "codegym_agent"\n'
        f'  _target_: "{AGENT_LOOP}"\n'
        '  env_kwargs: {"executor": "docker", "seed": 1}\n'
    )  # fmt: skip
    path = write_agent_loop_config(tmp_path / "loops.yaml", record=tmp_path / "episodes.jsonl")
    assert path.read_text().splitlines()[-1] == f'  record: "{tmp_path / "episodes.jsonl"}"'


def test_importing_the_integration_does_not_import_verl() -> None:
    code = "import sys, codegym.integrations.verl; assert not any(m.split('.')[0] == 'verl' for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_loop_without_verl_names_what_to_install(monkeypatch) -> None:
    for name in [m for m in sys.modules if m.startswith("verl.")] + ["verl"]:
        monkeypatch.setitem(sys.modules, name, None)  # (as if verl were not installed)
    monkeypatch.delitem(sys.modules, "codegym.integrations.verl_agent", raising=False)
    monkeypatch.delattr(codegym.integrations, "verl_agent", raising=False)
    from codegym.integrations.verl import register_agent_loop

    with pytest.raises(DependencyNotInstalled, match=r"needs verl \(pip install verl\)"):
        register_agent_loop()


def test_a_harness_rollout_drives_a_real_agent_program(verl, tmp_path) -> None:
    """`CodegymHarnessLoop`: mini-swe-agent runs in the episode's machine and the (scripted) model
    answers its requests: the prompt is the program's first request through the chat template, the
    model's tokens are kept (mask 1) and the program's tool results follow (mask 0)."""
    from codegym.harness.install import installed
    from codegym.harness.recipe import recipe
    from codegym.integrations.verl_agent import CodegymHarnessLoop

    from .tiny_tool_lm import tiny_tool_model_and_tokenizer

    if installed(recipe("mini-swe-agent")) is None:
        pytest.skip("mini-swe-agent is not installed: python -m codegym.harness.install mini-swe-agent")
    reference = gym.make(ENV).unwrapped.tasks.get(TASK).reference  # type: ignore[attr-defined]
    turns = [
        call("bash", {"command": f"cat > solution.py <<'EOF'\n{reference}EOF"}),
        call("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}),
    ]
    model, tokenizer = tiny_tool_model_and_tokenizer(turns, max_length=32768)
    config = trainer_config()
    item = next(i for i in dataset(tmp_path, tokenizer, config) if i["reward_model"]["ground_truth"] == TASK)
    server = TinyServer(model, tokenizer, turns)

    async def main() -> Any:
        loop = CodegymHarnessLoop(
            **loop_arguments(config, server), env_kwargs={"harness": {"program": "mini-swe-agent"}}
        )
        return await loop.run(dict(SAMPLING), **run_fields(item))

    output = asyncio.run(main())
    assert output.reward_score == 1.0
    assert {k: output.extra_fields[k] for k in ("codegym_status", "codegym_ended_by")} == {
        "codegym_status": "OK", "codegym_ended_by": "exited"
    }  # fmt: skip
    assert "Please solve this issue" in tokenizer.decode(output.prompt_ids)  # (mini-swe-agent's own prompt)
    response, mask = output.response_ids, output.response_mask
    assert [(value, response[start:end]) for value, start, end in runs(mask) if value] == [
        (1, o.token_ids) for o in server.outputs
    ]
    gaps = [tokenizer.decode(response[start:end]) for value, start, end in runs(mask) if not value]
    assert len(gaps) == 1 and '"returncode": 0' in gaps[0]  # (the program's tool result of the first turn)
