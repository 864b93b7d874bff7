"""Helpers for wrapper tests: small real task sets and a scripted agent."""

from __future__ import annotations

import gymnasium as gym
import pytest
from codegym.envs.python_function.tasks import load_tasks

import codegym  # noqa: F401
from codegym.executor.local import LocalExecutor
from codegym.task import Task, TaskSet


@pytest.fixture(scope="session")
def codegym_py() -> TaskSet:
    return load_tasks("codegym-py")


def make(executor: LocalExecutor, tasks: TaskSet | str = "codegym-py", **kwargs) -> gym.Env:
    return gym.make("codegym/PythonFunction-v0", tasks=tasks, executor=executor, **kwargs)


def solve(task: Task) -> str:
    return task.reference or ""


def fail(task: Task) -> str:
    return task.prompt + "    return None\n"
