"""Agent episodes through TRL's ``environment_factory``: the environment class on its own, then a
real multi-turn GRPOTrainer run whose rollouts call codegym's tools and are scored by get_reward."""

from __future__ import annotations

import inspect
import math
import os
import signal
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import codegym  # noqa: F401
from codegym.agent import AgentLimits
from codegym.episodes import read_episodes
from codegym.executor import Executor
from codegym.executor.local import LocalExecutor
from codegym.integrations.trl import EPISODE_OVER, CodegymAgentEnvironment, agent_dataset, environment_factory
from codegym.tools.schemas import TOOL_NAMES, tool_schemas

from .tiny_tool_lm import TINY

TASK = "codegym-py/001-count-vowel-runs"
SOLVE_F1 = "printf '    return 1\\n' >> solution.py"


def make(executor: Executor, **options: Any) -> CodegymAgentEnvironment:
    return CodegymAgentEnvironment(gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor, **options))


@pytest.fixture
def agent(executor: Executor) -> Any:
    environment = make(executor)
    yield environment
    environment.env.close()


def test_the_reference_written_with_the_editor_then_submitted_gets_one(agent: CodegymAgentEnvironment) -> None:
    prompt = agent.reset(task_id=TASK, prompt=[{"role": "user", "content": ""}])  # TRL passes the whole row
    assert prompt.startswith("def count_vowel_runs") and "solution.py" in prompt and "call submit" in prompt
    reference = agent.env.unwrapped.task.reference  # type: ignore[attr-defined]
    text = agent.str_replace_editor(command="create", path="solution.py", file_text=reference)
    assert text.startswith("Overwrote solution.py") and agent.get_reward() == 0.0
    text = agent.bash(command="./run_tests")
    assert text == agent.results[-1]["content"] and text.endswith("2 of 2 public tests passed")
    text = agent.submit()
    assert text.startswith("Status: OK - all 11 tests passed") and agent.get_reward() == 1.0
    assert agent.calls == 3 and agent.info["reward_components"] == {"correct": 1.0}


def test_the_stub_submitted_as_it_is_gets_zero(agent: CodegymAgentEnvironment) -> None:
    agent.reset(task_id=TASK)
    assert agent.submit().startswith("Status: WA") and agent.get_reward() == 0.0


def test_an_episode_never_submitted_gets_zero(agent: CodegymAgentEnvironment) -> None:
    agent.reset(task_id=TASK)
    agent.bash(command="true")
    assert agent.get_reward() == 0.0 and agent.calls == 1


def test_every_tool_latches_after_submit(agent: CodegymAgentEnvironment) -> None:
    agent.reset(task_id=TASK)
    agent.submit()
    after = [
        agent.bash(command="touch ran"),
        agent.str_replace_editor(command="create", path="ran", file_text="x"),
        agent.search(pattern="x"),
        agent.submit(),
    ]
    assert after == [EPISODE_OVER] * 4 and agent.calls == 1 and len(agent.results) == 0
    assert agent.get_reward() == 0.0
    agent.reset(task_id=TASK)  # the next rollout starts afresh
    assert agent.bash(command="ls ran || echo absent").endswith("absent") and agent.calls == 1


def test_a_budget_ends_the_episode_unscored_and_says_so(executor: Executor) -> None:
    agent = make(executor, agent=AgentLimits(max_calls=2))
    agent.reset(task_id=TASK)
    assert agent.bash(command="echo one") == "one"
    text = agent.bash(command="echo two")
    assert text.startswith("two\n\n[episode over]") and "budget of tool calls ran out" in text
    assert agent.submit() == EPISODE_OVER and agent.get_reward() == 0.0 and agent.info["truncated_by"] == "calls"
    agent.env.close()


def test_tool_texts_show_failures(agent: CodegymAgentEnvironment) -> None:
    agent.reset(task_id=TASK)
    assert agent.bash(command="echo oops >&2; exit 3") == "oops\n[exit status 3]"
    assert agent.bash(command="true") == "(no output)"
    text = agent.bash(command="ls", timeout_s="soon")  # type: ignore[arg-type]  # as a model may write it
    assert text.startswith("[format error]") and "timeout_s" in text and len(agent.results) == 2  # (not run)
    text = agent.str_replace_editor(command="str_replace", path="solution.py", old_str="no such text")
    assert text.startswith("error: old_str does not occur") and text.endswith("[exit status 1]")
    assert "solution.py:1: def count_vowel_runs" in agent.search(pattern="def ", path=".")


def test_an_infrastructure_failure_is_never_a_reward() -> None:
    with LocalExecutor(workers=1, isolation="full") as executor:
        agent = make(executor)
        agent.reset(task_id=TASK)
        agent.bash(command="true")
        threading.Timer(0.5, os.kill, (executor.worker_pids()[0], signal.SIGKILL)).start()
        text = agent.bash(command="sleep 5")
        assert "not your fault" in text and agent.get_reward() is None and "lost" in agent.info["infra_error"]
        assert agent.submit() == EPISODE_OVER and agent.get_reward() is None
        agent.reset(task_id=TASK)  # a fresh worker for the next rollout
        assert agent.submit().startswith("Status: WA") and agent.get_reward() == 0.0
        agent.env.close()


def test_a_workspace_that_cannot_open_masks_the_rollout() -> None:
    from codegym.error import SandboxError

    class Down(Executor):
        def submit(self, job):  # type: ignore[override]
            raise SandboxError("no workers")

        def open_workspace(self, layer, **options):  # type: ignore[override]
            raise SandboxError("no workers")

    agent = make(Down())
    assert agent.reset(task_id=TASK) == "[episode over] the sandbox failed (not your fault): no workers"
    assert agent.bash(command="ls") == EPISODE_OVER and agent.calls == 0 and agent.get_reward() is None


def test_the_tools_trl_sees_are_codegyms_word_for_word() -> None:
    from transformers.utils import get_json_schema

    methods = [name for name, _ in inspect.getmembers(CodegymAgentEnvironment, inspect.isfunction)]
    assert sorted(m for m in methods if not m.startswith("_") and m not in ("reset", "get_reward")) == sorted(
        TOOL_NAMES
    )
    for schema in tool_schemas():
        want = schema["function"]
        got = get_json_schema(getattr(CodegymAgentEnvironment, want["name"]))["function"]
        assert got["description"] == want["description"]
        assert got["parameters"].get("required", []) == want["parameters"]["required"]
        for name, spec in want["parameters"]["properties"].items():
            found = got["parameters"]["properties"][name]
            assert {k: found.get(k) for k in ("type", "description", "enum")} == {
                k: spec.get(k) for k in ("type", "description", "enum")
            }, name
        assert set(got["parameters"]["properties"]) == set(want["parameters"]["properties"])


def test_reset_draws_a_task_without_an_id_and_the_dataset_leaves_the_prompt_to_it(executor: Executor) -> None:
    made = environment_factory("codegym/PythonFunction-v0", seed=3, tasks=TINY, executor=executor)
    first, second = made(), made()
    assert first.reset().startswith("def f") and second.reset().startswith("def f")
    assert first.env.unwrapped.mode == "agent"  # type: ignore[attr-defined]
    dataset = agent_dataset("codegym/PythonFunction-v0", system="Use the tools.", tasks=TINY)
    assert dataset.column_names == ["prompt", "task_id"] and dataset["task_id"] == ["tiny/0", "tiny/1"]
    assert dataset[0]["prompt"] == [{"role": "system", "content": "Use the tools."}, {"role": "user", "content": ""}]
    for environment in (first, second):
        environment.env.close()


def test_record_writes_each_rollout_s_episode(executor: Executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    made = environment_factory("codegym/PythonFunction-v0", record=path, tasks=TINY, executor=executor)
    agent = made()
    agent.reset(task_id="tiny/1")
    agent.bash(command=SOLVE_F1)
    agent.submit()  # (written when it ends)
    agent.reset(task_id="tiny/0")
    agent.bash(command="true")
    agent.reset(task_id="tiny/0")  # (the model stopped calling tools: written at the next rollout's reset)
    agent.env.close()
    solved, abandoned, still_open = read_episodes(path)
    assert (solved["task"]["id"], solved["ended"], solved["return"], solved["mode"]) == ("tiny/1", "terminated", 1.0,
                                                                                         "agent")  # fmt: skip
    assert [step["tool_calls"][0]["name"] for step in solved["steps"]] == ["bash", "submit"]
    assert solved["steps"][0]["tool_calls"][0]["arguments"] == {"command": SOLVE_F1}
    assert (abandoned["ended"], len(abandoned["steps"]), still_open["ended"]) == ("abandoned", 1, "open")
    assert agent.env.unwrapped.mode == "agent"  # type: ignore[attr-defined]


def test_misuse_is_refused_with_the_fix(executor: Executor) -> None:
    with pytest.raises(ValueError, match="mode='agent', got mode='single'"):
        CodegymAgentEnvironment(gym.make("codegym/PythonFunction-v0", executor=executor))
    with pytest.raises(TypeError, match="not an env: each rollout needs one of its own"):
        environment_factory(gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor))
    with pytest.raises(TypeError, match="env_kwargs go with an env id"):
        environment_factory(lambda: gym.make("codegym/PythonFunction-v0", mode="agent"), tasks=TINY)


# --- a real GRPOTrainer run ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_grpo_trainer_runs_agent_episodes_and_logs_get_reward(executor, tmp_path, monkeypatch) -> None:
    trl = pytest.importorskip("trl", reason="the trl extra is not installed")
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer, tool_call_text

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    scored: list[tuple[str, float | None, int, list[str]]] = []  # per rollout: task, reward, calls run, their tools
    get_reward = CodegymAgentEnvironment.get_reward

    def recording(self: CodegymAgentEnvironment) -> float | None:
        reward = get_reward(self)
        task = self.env.unwrapped.task.id  # type: ignore[attr-defined]
        scored.append((task, reward, self.calls, [r["name"] for r in self.results]))
        return reward

    monkeypatch.setattr(CodegymAgentEnvironment, "get_reward", recording)
    # Every turn the model writes a bash call that solves f1 (not f0), then submit, then ends the turn.
    script = [tool_call_text("bash", {"command": SOLVE_F1}), "\n" + tool_call_text("submit")]
    model, tokenizer = tiny_tool_model_and_tokenizer(script)
    config = trl.GRPOConfig(
        output_dir=str(tmp_path), max_steps=3, per_device_train_batch_size=4, num_generations=2,
        max_completion_length=1024, max_tool_calling_iterations=2, logging_steps=1, report_to="none",
        use_cpu=True, learning_rate=1e-3, save_strategy="no", seed=0,
    )  # fmt: skip
    trainer = trl.GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=agent_dataset("codegym/PythonFunction-v0", tasks=TINY),
        environment_factory=environment_factory("codegym/PythonFunction-v0", tasks=TINY, executor=executor),
    )
    trainer.train()

    assert trainer.state.global_step == 3
    logged = [h for h in trainer.state.log_history if "rewards/CodegymAgentEnvironment/mean" in h]
    assert len(logged) == 3 and len(scored) == 12  # 4 rollouts a step, each scored once
    for step, entry in enumerate(logged):
        rewards = [reward for _, reward, _, _ in scored[4 * step : 4 * step + 4]]
        assert math.isclose(entry["rewards/CodegymAgentEnvironment/mean"], sum(rewards) / 4, abs_tol=1e-6)
        # TRL parsed two calls a turn and ran two turns of them: codegym ran the first two, then latched.
        assert entry["tools/call_frequency"] == 4.0 and entry["tools/failure_frequency"] == 0.0
    assert {(task, reward) for task, reward, _, _ in scored} == {("tiny/0", 0.0), ("tiny/1", 1.0)}
    assert all(calls == 2 and names == ["bash"] for _, _, calls, names in scored)
    for environment in trainer._environment_pool[None]:
        environment.env.close()


def test_a_harness_environment_offers_the_programs_tools_and_scores_its_machine() -> None:
    """`harness_environment_factory`: mini-swe-agent's ``bash`` becomes a method TRL reads; a call
    runs through the program; ``get_reward`` stops the waiting program and grades the machine."""
    from transformers.utils import get_json_schema

    from codegym.harness.install import installed
    from codegym.harness.recipe import recipe
    from codegym.integrations.trl import harness_environment_factory

    if installed(recipe("mini-swe-agent")) is None:
        pytest.skip("mini-swe-agent is not installed: python -m codegym.harness.install mini-swe-agent")
    task = "codegym-py/004-digital-root"
    factory = harness_environment_factory("codegym/PythonFunction-v0", harness="mini-swe-agent", task_id=task)
    environment = factory()
    try:
        schema = get_json_schema(type(environment).bash)["function"]  # type: ignore[attr-defined]
        assert schema["name"] == "bash" and schema["parameters"]["required"] == ["command"]
        prompt = environment.reset(task_id=task)
        assert "digital_root" in prompt and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in prompt
        reference = gym.make("codegym/PythonFunction-v0").unwrapped.tasks.get(task).reference  # type: ignore[attr-defined]
        text = environment.bash(command=f"cat > solution.py <<'EOF'\n{reference}EOF")  # type: ignore[attr-defined]
        assert '"returncode": 0' in text
        assert environment.get_reward() == 1.0 and environment.info["harness_status"] == "stopped"
        assert environment.bash(command="ls") == EPISODE_OVER  # type: ignore[attr-defined]
    finally:
        environment.env.close()


def test_grpo_trainer_runs_harness_episodes(tmp_path, monkeypatch) -> None:
    """GRPOTrainer with `harness_environment_factory`: the tests' tiny agent program runs each
    rollout's episode, the model's ``bash`` calls go through it, and get_reward scores its machine."""
    import shutil
    from pathlib import Path

    from codegym.harness import HarnessSpec, Recipe
    from codegym.integrations.trl import CodegymHarnessEnvironment, harness_environment_factory

    trl = pytest.importorskip("trl", reason="the trl extra is not installed")
    from .tiny_tool_lm import tiny_tool_model_and_tokenizer, tool_call_text

    tools = tmp_path / "tools"
    tools.mkdir(mode=0o755)
    shutil.copy(Path(__file__).parents[1] / "harness" / "programs" / "tiny_agent.py", tools / "tiny_agent.py")
    os.chmod(tools, 0o755)
    program = Recipe(name="tiny-agent", api="chat", package="pypi:none",
                     argv=("python3", "{tools}/tiny_agent.py", "agent", "{instruction_file}"),
                     env=(("AGENT_BASE_URL", "{base_url}"), ("AGENT_MODEL", "{model}")))  # fmt: skip
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    scored: list[tuple[str, float | None, str]] = []
    get_reward = CodegymHarnessEnvironment.get_reward

    def recording(self: CodegymHarnessEnvironment) -> float | None:
        reward = get_reward(self)
        scored.append((self.env.unwrapped.task.id, reward, self.info.get("harness_status")))  # type: ignore[attr-defined]
        return reward

    monkeypatch.setattr(CodegymHarnessEnvironment, "get_reward", recording)
    model, tokenizer = tiny_tool_model_and_tokenizer([tool_call_text("bash", {"command": SOLVE_F1})])
    config = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4, num_generations=2,
        max_completion_length=1024, max_tool_calling_iterations=1, logging_steps=1, report_to="none",
        use_cpu=True, learning_rate=1e-3, save_strategy="no", seed=0,
    )  # fmt: skip
    factory = harness_environment_factory(
        "codegym/PythonFunction-v0", harness=HarnessSpec(program, tools=str(tools)), tasks=TINY, task_id="tiny/0"
    )
    trainer = trl.GRPOTrainer(model=model, processing_class=tokenizer, args=config, environment_factory=factory,
                              train_dataset=agent_dataset("codegym/PythonFunction-v0", tasks=TINY))  # fmt: skip
    trainer.train()
    assert trainer.state.global_step == 2 and len(scored) == 8
    assert {(task, reward, status) for task, reward, status in scored} == {
        ("tiny/0", 0.0, "stopped"), ("tiny/1", 1.0, "stopped")
    }  # fmt: skip
    for environment in trainer._environment_pool[None]:
        environment.env.close()
