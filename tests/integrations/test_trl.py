"""A real GRPOTrainer run on CPU: codegym's rewards must reach the trainer's logged metrics."""

from __future__ import annotations

import math

import gymnasium as gym
import pytest

from codegym.executor.base import Executor
from codegym.integrations.trl import completion_text, prompt_dataset, reward_function, reward_functions
from codegym.task import Task, TaskSet, TestCase

trl = pytest.importorskip("trl", reason="the trl extra is not installed")
from .tiny_lm import tiny_model_and_tokenizer  # noqa: E402

TASKS = TaskSet(
    Task(id=f"tiny/{i}", family="PythonFunction", prompt=f"def f{i}(x):", tests=(TestCase("t", f"assert f{i}(1) == {i}", hidden=False),),
         metadata={"entry_point": f"f{i}", "prefix": "", "test_prelude": ""})
    for i in range(4)
)  # fmt: skip


def test_grpo_trainer_logs_codegym_rewards(executor, tmp_path) -> None:
    env = gym.make("codegym/PythonFunction-v0", tasks=TASKS, executor=executor)
    returned: dict[str, list[float]] = {"codegym_correct": [], "codegym_compile": []}

    def recording(function):
        def wrapped(*args, **kwargs):
            values = function(*args, **kwargs)
            returned[function.__name__].extend(values)
            return values

        wrapped.__name__ = function.__name__
        return wrapped

    model, tokenizer = tiny_model_and_tokenizer()
    config = trl.GRPOConfig(
        output_dir=str(tmp_path), max_steps=3, per_device_train_batch_size=4, num_generations=4, max_completion_length=12,
        logging_steps=1, report_to="none", use_cpu=True, learning_rate=1e-3, save_strategy="no", seed=0,
    )  # fmt: skip
    trainer = trl.GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[recording(f) for f in reward_functions(env, components=("correct", "compile"))],
        args=config,
        train_dataset=prompt_dataset(env),
    )
    trainer.train()
    logged = [h for h in trainer.state.log_history if "rewards/codegym_compile/mean" in h]
    assert len(logged) == 3 and trainer.state.global_step == 3  # three real optimisation steps
    compile_values = returned["codegym_compile"]
    assert len(compile_values) == 12 and any(v == -1.0 for v in compile_values)
    for step, entry in enumerate(logged):
        batch = compile_values[4 * step : 4 * step + 4]
        assert math.isclose(entry["rewards/codegym_compile/mean"], sum(batch) / 4, abs_tol=1e-6)
        assert math.isclose(
            entry["rewards/codegym_correct/mean"],
            sum(returned["codegym_correct"][4 * step : 4 * step + 4]) / 4,
            abs_tol=1e-6,
        )


def test_reward_function_grades_a_batch(executor) -> None:
    env = gym.make("codegym/PythonFunction-v0", tasks=TASKS, executor=executor)
    pass_rate = reward_function(env, "pass_rate")
    chat = [[{"role": "assistant", "content": "```python\ndef f2(x):\n    return 2\n```"}]]
    assert pass_rate(
        completions=["def f1(x):\n    return 1\n", "def f1(x): return 0", *chat], task_id=["tiny/1", "tiny/1", "tiny/2"]
    ) == [1.0, 0.0, 1.0]
    assert pass_rate.__name__ == "codegym_pass_rate"
    with pytest.raises(KeyError, match="task_id"):
        pass_rate(completions=["x"], prompts=["p"])
    with pytest.raises(ValueError, match="components must be among"):
        reward_functions(env, components=("style",))


def test_infrastructure_failures_are_none_or_raised() -> None:
    from codegym.error import SandboxError

    class Down(Executor):
        def submit(self, job):  # type: ignore[override]
            raise SandboxError("no workers")

    env = gym.make("codegym/PythonFunction-v0", tasks=TASKS, executor=Down())
    assert reward_function(env, on_infra_error="none")(completions=["x"], task_id=["tiny/0"]) == [None]
    with pytest.raises(SandboxError, match="no workers"):
        reward_function(env)(completions=["x"], task_id=["tiny/0"])


def test_prompt_dataset_has_prompts_and_ids_only(executor) -> None:
    env = gym.make("codegym/PythonFunction-v0", tasks=TASKS, executor=executor)
    dataset = prompt_dataset(env, chat=True, system="Write Python.")
    assert dataset.column_names == ["prompt", "task_id"] and len(dataset) == 4
    assert dataset[0]["prompt"] == [
        {"role": "system", "content": "Write Python."},
        {"role": "user", "content": "def f0(x):"},
    ]
    assert completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"
