"""`rollout`: many harness episodes at once, their programs' model calls answered by a server.

Pass-through training: a model server (vLLM, SGLang: anything speaking OpenAI Chat
Completions) answers every request the programs make; the proxy records each call with the
token ids and log-probs the server returned, so a trainer gets token-faithful rollouts::

    results = codegym.harness.rollout("codegym/Terminal-v0", harness="codex", model="http://gpu:8000/v1",
                                      tasks=["awk-busiest-hour"] * 8, concurrency=8)
    results[0].reward, results[0].model_calls[0]["reply"]["token_ids"]

Episodes run in threads (the programs run in boxes; the threads only wait), at most
``concurrency`` at once; a task that fails to start is a result with its error, never the
end of the batch.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from codegym.harness.mode import HarnessSpec
from codegym.harness.recipe import Recipe

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rollout:
    """One pass-through episode.

    Attributes:
        task_id: Its task.
        reward: The grade's reward (0.0 where there is none).
        status: The grade's status (``"OK"``, ``"WA"``, ...), None where it was not graded.
        harness_status: How the program ended (`ProgramEnd.status`), None where it never started.
        model_calls: Its model calls (`codegym.harness.mode.calls_record`): requests, replies with
            token ids and log-probs, statuses.
        error: Why the episode could not run (an infrastructure failure, an unknown task).
        info: The last step's ``info`` (the whole grade in ``info["grade"]``).
    """

    task_id: str
    reward: float = 0.0
    status: str | None = None
    harness_status: str | None = None
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict, repr=False)


def rollout(
    env_id: str,
    *,
    harness: HarnessSpec | Recipe | str,
    model: str,
    tasks: Sequence[str],
    concurrency: int = 4,
    **env_kwargs: Any,
) -> list[Rollout]:
    """Run one pass-through episode per entry of ``tasks`` (task ids; repeat one for a group
    of rollouts of the same prompt), ``concurrency`` at a time, with ``model`` (the root URL
    of an OpenAI-compatible server, ``http://host:8000/v1``) answering every request.
    Returns the results in ``tasks``' order."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    if not model:
        raise ValueError("rollout needs model=: the URL of an OpenAI-compatible server (pass-through)")

    def one(task_id: str) -> Rollout:
        try:
            env = gym.make(env_id, mode="harness", harness=harness, model=model, **env_kwargs)
        except Exception as e:  # (the same for every task: reported per result all the same)
            return Rollout(task_id, error=f"{type(e).__name__}: {e}")
        try:
            return _episode(env, task_id)
        except Exception as e:
            logger.warning("harness rollout of %s failed: %s", task_id, e)
            return Rollout(task_id, error=f"{type(e).__name__}: {e}")
        finally:
            env.close()

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="codegym-rollout") as pool:
        return list(pool.map(one, tasks))


def _episode(env: gym.Env[Any, Any], task_id: str) -> Rollout:
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(None)
    return Rollout(task_id, float(reward), info.get("status"), info.get("harness_status"),
                   list(info.get("model_calls", ())), info.get("infra_error"), info)  # fmt: skip
