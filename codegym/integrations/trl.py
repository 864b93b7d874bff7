"""TRL: codegym as reward functions for ``GRPOTrainer``, and task sets as datasets.

    from trl import GRPOConfig, GRPOTrainer
    from codegym.integrations.trl import prompt_dataset, reward_functions

    dataset = prompt_dataset("codegym/PythonFunction-v0", tasks="codegym-py")
    trainer = GRPOTrainer(model=..., reward_funcs=reward_functions("codegym/PythonFunction-v0",
                          components=("correct", "compile"), tasks="codegym-py"), train_dataset=dataset, ...)

Each reward function receives the batch's completions (plain strings or chat messages) and
the dataset's ``task_id`` column, grades the whole batch at once on every warm worker, and
returns one float per completion. Several components share one grading per batch. An
infrastructure failure is never a silent 0: it raises (default) or, with
``on_infra_error="none"``, yields None, which TRL turns into NaN and leaves out of the mean.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import DependencyNotInstalled, SandboxError
from codegym.grade import Grade, Status

RewardFunc = Callable[..., list[float | None]]


def _correct(grade: Grade) -> float:
    return 1.0 if grade.status is Status.OK else 0.0


def _pass_rate(grade: Grade) -> float:
    if grade.status in (Status.HACK, Status.SEC):
        return 0.0
    hidden = [t for t in grade.tests if t.hidden] or list(grade.tests)
    return sum(t.passed for t in hidden) / len(hidden) if hidden else 0.0


def _compile(grade: Grade) -> float:
    return -1.0 if grade.status is Status.CE else 0.0


COMPONENTS: dict[str, Callable[[Grade], float]] = {"correct": _correct, "pass_rate": _pass_rate, "compile": _compile}


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the content of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, Sequence):
        return "".join(completion_text(message) for message in completion if _is_assistant(message))
    raise TypeError(f"a completion is a str or a list of chat messages, got {type(completion).__name__}")


def _is_assistant(message: Any) -> bool:
    return not isinstance(message, dict) or message.get("role", "assistant") == "assistant"


def reward_functions(
    env: str | gym.Env,
    components: Sequence[str] = ("correct",),
    *,
    task_column: str = "task_id",
    on_infra_error: str = "raise",
    **env_kwargs: Any,
) -> list[RewardFunc]:
    """One TRL reward function per component (``correct``, ``pass_rate``, ``compile``).

    Args:
        env: A codegym env or a registered id.
        components: Which terms to return, each as its own reward function (weight them with
            ``GRPOConfig(reward_weights=...)``); a batch is graded once for all of them.
        task_column: The dataset column holding each prompt's task id.
        on_infra_error: ``"raise"`` a `SandboxError`, or ``"none"`` to return None for the
            affected completions (TRL masks them).
        **env_kwargs: Passed to ``gym.make`` when ``env`` is an id.
    """
    unknown = [c for c in components if c not in COMPONENTS]
    if unknown or not components:
        raise ValueError(f"components must be among {sorted(COMPONENTS)}, got {list(components)}")
    if on_infra_error not in ("raise", "none"):
        raise ValueError(f"on_infra_error must be 'raise' or 'none', got {on_infra_error!r}")
    scorer = Scorer(env, **env_kwargs)
    if not isinstance(scorer.env, CodeEnv):
        raise TypeError("reward_functions needs a codegym env")
    return [_reward_function(scorer, name, task_column, on_infra_error) for name in components]


def reward_function(env: str | gym.Env, component: str = "correct", **kwargs: Any) -> RewardFunc:
    """A single TRL reward function (see `reward_functions`)."""
    return reward_functions(env, (component,), **kwargs)[0]


def _reward_function(scorer: Scorer, component: str, task_column: str, on_infra_error: str) -> RewardFunc:
    term = COMPONENTS[component]

    def reward(completions: Sequence[Any], **columns: Any) -> list[float | None]:
        if task_column not in columns:
            raise KeyError(f"the dataset needs a {task_column!r} column naming each prompt's task (see prompt_dataset)")
        futures = [scorer.submit(t, completion_text(c)) for t, c in zip(columns[task_column], completions, strict=True)]
        out: list[float | None] = []
        for future in futures:
            try:
                out.append(term(future.result()))
            except SandboxError:
                if on_infra_error == "raise":
                    raise
                out.append(None)
        return out

    reward.__name__ = reward.__qualname__ = f"codegym_{component}"
    return reward


def prompt_dataset(env: str | gym.Env, *, chat: bool = False, system: str | None = None, **env_kwargs: Any) -> Any:
    """A ``datasets.Dataset`` of the env's tasks: columns ``prompt`` and ``task_id``.

    ``chat=True`` makes each prompt a list of messages (with ``system`` first if given);
    otherwise a plain string. Hidden tests and references never enter the dataset.
    """
    try:
        import datasets
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled("prompt_dataset needs the datasets package: pip install 'codegym[trl]'") from e
    made = gym.make(env, **env_kwargs) if isinstance(env, str) else env
    core = made.unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError("prompt_dataset needs a codegym env")
    rows = []
    for task in core.tasks:
        text = core.render_prompt(task)
        if chat:
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}]
            rows.append({"prompt": messages, "task_id": task.id})
        else:
            rows.append({"prompt": text, "task_id": task.id})
    return datasets.Dataset.from_list(rows)
