"""A small library written here (never a third party's), its tasks made by the real builder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.repo_repair.build import build
from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.library import Library
from codegym.envs.repo_repair.tasks import tasks_of

from codegym.task import Task, TaskSet

CORE = '''\
"""Small helpers."""


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def mean(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)


class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()

    def __len__(self):
        return len(self.items)
'''
TEST_CORE = """\
from minilib.core import clamp, mean


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_clamp_low():
    assert clamp(-3, 0, 10) == 0


def test_clamp_high():
    assert clamp(30, 0, 10) == 10


def test_mean():
    assert mean([1, 2, 3, 6]) == 3
"""
TEST_STACK = """\
import pytest

from minilib.core import Stack


def test_push_pop():
    stack = Stack()
    stack.push(1)
    stack.push(2)
    assert stack.pop() == 2
    assert len(stack) == 1


def test_pop_empty():
    with pytest.raises(IndexError):
        Stack().pop()
"""
FILES = {
    "minilib/__init__.py": "from minilib.core import Stack, clamp, mean\n",
    "minilib/core.py": CORE,
    "tests/test_core.py": TEST_CORE,
    "tests/test_stack.py": TEST_STACK,
    "pyproject.toml": '[project]\nname = "minilib"\nversion = "0.1"\n\n[tool.pytest.ini_options]\naddopts = "-x"\n',
}


def write_library(root: Path) -> Library:
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Library.local(root, name="minilib", packages=("minilib",))


@pytest.fixture(scope="session")
def minilib(tmp_path_factory: pytest.TempPathFactory) -> tuple[Library, dict[str, Any]]:
    """The library and the task file the builder makes of it."""
    library = write_library(tmp_path_factory.mktemp("minilib"))
    return library, build(library, tasks=8, seed=0, runs=3, timeout_s=10.0)


@pytest.fixture(scope="session")
def repo_tasks(minilib: tuple[Library, dict[str, Any]]) -> TaskSet:
    library, document = minilib
    return TaskSet(tasks_of(library, document), name="minilib")


@pytest.fixture(scope="session")
def core_task(repo_tasks: TaskSet) -> Task:
    """A task whose bug is in clamp or mean: its FAIL_TO_PASS tests (hidden) are all in
    tests/test_core.py, and tests/test_stack.py (visible) passes."""
    for task in repo_tasks:
        expected = task.metadata["instance"].expected
        if all(node.startswith("tests/test_core.py::") for node in expected.fail_to_pass):
            return task
    raise AssertionError(f"no task with its failing tests in tests/test_core.py among {repo_tasks.ids}")


@pytest.fixture(scope="session")
def stack_task(repo_tasks: TaskSet) -> Task:
    """A task whose bug is in Stack: its FAIL_TO_PASS tests are all in tests/test_stack.py,
    which pytest imports after tests/test_core.py (and so after the library)."""
    for task in repo_tasks:
        if all(node.startswith("tests/test_stack.py::") for node in task.metadata["instance"].expected.fail_to_pass):
            return task
    raise AssertionError(f"no task with its failing tests in tests/test_stack.py among {repo_tasks.ids}")


@pytest.fixture
def env(repo_tasks: TaskSet) -> RepoRepairEnv:
    return RepoRepairEnv(repo_tasks)


def dump(document: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(document))
    return path
