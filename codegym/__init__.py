"""codegym: Gymnasium environments in which a language model learns to write code.

``import codegym`` registers every env as ``codegym/<Family>-v<N>``::

    import gymnasium as gym
    import codegym

    env = gym.make("codegym/PythonFunction-v0", tasks="humaneval")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(code)
"""

from __future__ import annotations

from codegym import envs
from codegym.batch import Scorer, score
from codegym.core import CodeEnv, ReferenceTimeLimits
from codegym.executor.registry import configure
from codegym.grade import Diagnostic, Grade, Status, TestOutcome
from codegym.task import Task, TaskSet, TestCase
from codegym.validation import Validation, validate

__version__ = "0.1.0"
__all__ = [
    "CodeEnv",
    "Diagnostic",
    "Grade",
    "ReferenceTimeLimits",
    "Scorer",
    "Status",
    "Task",
    "TaskSet",
    "TestCase",
    "TestOutcome",
    "Validation",
    "configure",
    "envs",
    "score",
    "validate",
]
