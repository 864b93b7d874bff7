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
grade without any other configuration.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
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
    """1.0 when the completion passes every test of task ``ground_truth``, else 0.0.

    ``data_source`` is a codegym env id; ``extra_info["env_kwargs"]`` (JSON) its arguments.
    An infrastructure failure raises `codegym.error.SandboxError`: it is never a score.
    """
    grade = _scorer(data_source, extra_info).submit(ground_truth, solution_str).result()
    return 1.0 if grade.passed else 0.0


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict[str, Any] | None],
) -> list[float]:
    """The batched form (verl's batch reward manager): every worker busy at once."""
    futures = [
        _scorer(source, info).submit(truth, solution)
        for source, solution, truth, info in zip(data_sources, solution_strs, ground_truths, extra_infos, strict=True)
    ]
    return [1.0 if f.result().passed else 0.0 for f in futures]


def rows(env: str, **env_kwargs: Any) -> list[dict[str, Any]]:
    """verl's data rows for every task of ``env`` (prompts only; tests stay out)."""
    core = gym.make(env, **env_kwargs).unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError(f"{env} is not a codegym env")
    extra = json.dumps({k: v for k, v in env_kwargs.items() if isinstance(v, (str, int, float, bool))})
    return [
        {
            "data_source": env,
            "prompt": [{"role": "user", "content": core.render_prompt(task)}],
            "ability": "coding",
            "reward_model": {"style": "rule", "ground_truth": task.id},
            "extra_info": {"index": index, "task_id": task.id, "env_kwargs": extra},
        }
        for index, task in enumerate(core.tasks)
    ]


def write_parquet(env: str, path: str | Path, **env_kwargs: Any) -> Path:
    """Write `rows` to a parquet file verl reads as ``data.train_files``."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled("write_parquet needs pyarrow: pip install 'codegym[verl]'") from e
    path = Path(path)
    pq.write_table(pa.Table.from_pylist(rows(env, **env_kwargs)), path)
    return path
