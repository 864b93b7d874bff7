"""Scoring many submissions at once: every warm worker busy, results in input order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from typing import Any

import gymnasium as gym
from tqdm.auto import tqdm

from codegym.core import CodeEnv
from codegym.error import SandboxError
from codegym.executor import RunResult
from codegym.extract import extract_code
from codegym.grade import Grade, Status


def score(
    env_id: str, submissions: Iterable[tuple[str, str]], *, progress: bool = False, **env_kwargs: Any
) -> list[Grade]:
    """Grade ``(task_id, code)`` pairs with the env registered as ``env_id``.

    Submissions run concurrently on the env's executor; the grades come back in input
    order. Infrastructure failures follow the env's ``on_infra_error`` policy.

    Args:
        env_id: A registered id such as ``"codegym/PythonFunction-v0"``.
        submissions: ``(task_id, code)`` pairs; code may be a fenced chat answer.
        progress: Show a progress bar on stderr.
        **env_kwargs: Passed to ``gym.make`` (``tasks=...``, ``limits=...``, ...).
    """
    env = gym.make(env_id, **env_kwargs).unwrapped
    if not isinstance(env, CodeEnv):
        raise TypeError(f"{env_id} is not a codegym env (got {type(env).__name__})")
    try:
        return score_with(env, submissions, progress=progress)
    finally:
        env.close()


def score_with(env: CodeEnv, submissions: Iterable[tuple[str, str]], *, progress: bool = False) -> list[Grade]:
    """`score` with an env you already hold."""
    pairs = []
    for task_id, answer in submissions:
        task = env.tasks.get(task_id)
        pairs.append((task, extract_code(answer, task.language)))
    futures: Sequence[Future[RunResult]] = [env.executor.submit(env.build_job(t, c)) for t, c in pairs]
    grades = []
    bar = tqdm(futures, disable=not progress, desc="scoring", unit="sample")
    for (task, code), future in zip(pairs, bar, strict=True):
        try:
            grades.append(env.grade(task, code, future.result()))
        except SandboxError:
            if env.on_infra_error == "raise":
                raise
            grades.append(Grade(Status.IE, message="infrastructure failure (not the submission's fault)"))
    return grades
