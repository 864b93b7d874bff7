"""Scoring many submissions at once: every warm worker busy, results in input order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from typing import Any

import gymnasium as gym

from codegym.core import CodeEnv
from codegym.error import SandboxError
from codegym.executor import RunResult
from codegym.extract import extract_code
from codegym.grade import Grade, Status


def score(env_id: str, submissions: Iterable[tuple[str, str]], **env_kwargs: Any) -> list[Grade]:
    """Grade ``(task_id, code)`` pairs with the env registered as ``env_id``.

    Submissions run concurrently on the env's executor; the grades come back in input
    order. Infrastructure failures follow the env's ``on_infra_error`` policy.
    """
    env = gym.make(env_id, **env_kwargs).unwrapped
    if not isinstance(env, CodeEnv):
        raise TypeError(f"{env_id} is not a codegym env (got {type(env).__name__})")
    try:
        return score_with(env, submissions)
    finally:
        env.close()


def score_with(env: CodeEnv, submissions: Iterable[tuple[str, str]]) -> list[Grade]:
    """`score` with an env you already hold."""
    pairs = [(env.tasks.get(task_id), extract_code(code, env.tasks.get(task_id).language)) for task_id, code in submissions]
    futures: Sequence[Future[RunResult]] = [env.executor.submit(env.build_job(t, c)) for t, c in pairs]
    grades = []
    for (task, code), future in zip(pairs, futures):
        try:
            grades.append(env.grade(task, code, future.result()))
        except SandboxError:
            if env.on_infra_error == "raise":
                raise
            grades.append(Grade(Status.IE, message="infrastructure failure (not the submission's fault)"))
    return grades
