"""verl: a ``compute_score`` for its reward manager, and task sets written as its parquet data.

Write the data, then point verl at it and at this function::

    from codegym.integrations.verl import write_parquet
    write_parquet("codegym/PythonFunction-v0", "train.parquet", tasks="codegym-py")

    # verl config
    data.train_files=train.parquet
    custom_reward_function.path=<site-packages>/codegym/integrations/verl.py
    custom_reward_function.name=compute_score

Each row's ``data_source`` is the env id, ``reward_model.ground_truth`` the task id, and
``extra_info`` the env's keyword arguments (``tasks``...), so ``compute_score`` knows how to
grade without any other configuration. A task whose prompt refers to pictures (a visual
task's target) has them as verl's vision-language datasets hold them: an ``<image>`` in the
prompt per picture, and PNG bytes in ``images``.

Multi-turn agents train through verl's agent loops: rows made with ``agent_name`` run as
episodes of the env's ``mode="agent"`` (`codegym.integrations.verl_agent.CodegymAgentLoop`,
which scores each rollout itself), and an agent-loop config file tells verl's rollout workers
where the loop lives::

    write_parquet("codegym/PythonFunction-v0", "train.parquet", agent_name="codegym_agent")
    write_agent_loop_config("agent_loops.yaml")

    # verl config
    data.train_files=train.parquet
    actor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loops.yaml

This module never imports verl: only the agent loop needs it.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import DependencyNotInstalled

_scorers: dict[str, Scorer] = {}
_lock = threading.Lock()


def _scorer(data_source: str, extra_info: dict[str, Any] | None) -> Scorer:
    env_kwargs = json.loads((extra_info or {}).get("env_kwargs", "{}"))
    key = json.dumps([data_source, env_kwargs], sort_keys=True)
    with _lock:
        if key not in _scorers:
            _scorers[key] = Scorer(data_source, **env_kwargs)
        return _scorers[key]


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None
) -> float:
    """The env's reward for the completion on task ``ground_truth``, as ``step`` gives it
    (`CodeEnv.reward_of`): 1.0 or 0.0 for a pass/fail family, a family's own terms (a
    speedup, a mutation score, a picture's similarity) where it has them.

    ``data_source`` is a codegym env id; ``extra_info["env_kwargs"]`` (JSON) its arguments.
    An infrastructure failure raises `codegym.error.SandboxError`: it is never a score. A
    task that cannot be graded (`codegym.error.InvalidTask`, logged once with why) scores 0.0
    for every completion, which leaves its GRPO group without advantage, and the rest of the
    batch is scored (verl has no way to leave one rollout out).
    """
    scorer = _scorer(data_source, extra_info)
    return scorer.env.reward_of(scorer.submit(ground_truth, solution_str).result())


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict[str, Any] | None],
) -> list[float]:
    """The batched form (verl's batch reward manager): every worker busy at once."""
    scorers = [_scorer(source, info) for source, info in zip(data_sources, extra_infos, strict=True)]
    answers = zip(scorers, ground_truths, solution_strs, strict=True)
    futures = [scorer.submit(truth, solution) for scorer, truth, solution in answers]
    return [scorer.env.reward_of(future.result()) for scorer, future in zip(scorers, futures, strict=True)]


def rows(env: str, *, agent_name: str | None = None, **env_kwargs: Any) -> list[dict[str, Any]]:
    """verl's data rows for every task of ``env`` (prompts only; tests stay out).

    Args:
        env: A registered codegym env id.
        agent_name: Make agent rows: each names the agent loop that runs it (``"codegym_agent"``,
            see `write_agent_loop_config`), and its prompt is the agent episode's (the task, the
            workspace's files, how to finish), as the env words it at reset.
        **env_kwargs: Passed to ``gym.make``; those of a plain JSON type go into every row's
            ``extra_info["env_kwargs"]``, for the reward function or the agent loop to make
            the same env.
    """
    core = gym.make(env, **env_kwargs).unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError(f"{env} is not a codegym env")
    extra = json.dumps({k: v for k, v in env_kwargs.items() if isinstance(v, (str, int, float, bool))})
    out = []
    for index, task in enumerate(core.tasks):
        prompt = core.episode_prompt(task) if agent_name is not None else core.render_prompt(task)
        pictures = core.prompt_images(task)
        row = {
            "data_source": env,
            "prompt": [{"role": "user", "content": "<image>\n" * len(pictures) + prompt}],
            "ability": "coding",
            "reward_model": {"style": "rule", "ground_truth": task.id},
            "extra_info": {"index": index, "task_id": task.id, "env_kwargs": extra},
        }
        if pictures:  # (verl's vision-language datasets: an <image> per picture, PNG bytes)
            row["images"] = [{"bytes": _png(picture)} for picture in pictures]
        if agent_name is not None:
            row["agent_name"] = agent_name
        out.append(row)
    return out


def _png(picture: Any) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(picture).save(buffer, format="PNG")
    return buffer.getvalue()


def write_parquet(env: str, path: str | Path, *, agent_name: str | None = None, **env_kwargs: Any) -> Path:
    """Write `rows` to a parquet file verl reads as ``data.train_files``."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled("write_parquet needs pyarrow: pip install 'codegym[verl]'") from e
    path = Path(path)
    pq.write_table(pa.Table.from_pylist(rows(env, agent_name=agent_name, **env_kwargs)), path)
    return path


AGENT_LOOP = "codegym.integrations.verl_agent.CodegymAgentLoop"
HARNESS_LOOP = "codegym.integrations.verl_agent.CodegymHarnessLoop"  # (env_kwargs with harness=: a real agent program)


def write_agent_loop_config(
    path: str | Path,
    *,
    name: str = "codegym_agent",
    env_kwargs: Mapping[str, Any] | None = None,
    record: str | Path | None = None,
) -> Path:
    """Write the agent-loop config file verl reads as
    ``actor_rollout_ref.rollout.agent.agent_loop_config_path``.

    verl runs agent loops in Ray worker processes, which know a loop only from its entry in
    this file: ``name`` (the rows' ``agent_name``) and the class's import path.

    Args:
        path: Where to write the file (YAML).
        name: The name rows use to pick the loop.
        env_kwargs: Keyword arguments of every rollout's env, of plain JSON types
            (``{"executor": "docker"}``); a row's own ``env_kwargs`` win.
        record: Append every rollout's episode to this JSON-lines file
            (`codegym.episodes.RecordEpisodes`; see
            `codegym.integrations.verl_agent.CodegymAgentLoop`): a path every rollout
            worker reaches.
    """
    harness = bool(env_kwargs) and "harness" in env_kwargs  # type: ignore[operator]
    entry: dict[str, Any] = {"name": name, "_target_": HARNESS_LOOP if harness else AGENT_LOOP}
    if env_kwargs:
        entry["env_kwargs"] = dict(env_kwargs)
    if record is not None:
        entry["record"] = str(record)
    path = Path(path)
    # (YAML's flow style is JSON, so each value is written as JSON)
    path.write_text("- " + "\n  ".join(f"{key}: {json.dumps(value)}" for key, value in entry.items()) + "\n")
    return path


def register_agent_loop(name: str = "codegym_agent") -> type:
    """Register `CodegymAgentLoop` with verl's agent-loop registry under ``name``, in this
    process, and return the class (verl's own workers find it through
    `write_agent_loop_config`'s file instead).

    Raises:
        DependencyNotInstalled: verl is not installed.
    """
    from codegym.integrations import verl_agent

    return verl_agent.register(name)(verl_agent.CodegymAgentLoop)
