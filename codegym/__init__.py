"""codegym: Gymnasium environments in which a language model learns to write code.

``import codegym`` registers every env as ``codegym/<Family>-v<N>``::

    import gymnasium as gym
    import codegym

    env = gym.make("codegym/PythonFunction-v0", tasks="humaneval")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(code)

A family of your own subclasses `CodeEnv` and fills its hooks: ``build_job`` turns a task and
a submission into a `Job` (files and `Step` commands, run under `Limits` in the sandbox) and
``grade``, a pure function of the task and the `RunResult`, returns a `Grade` (a `Status`,
`TestOutcome` per test, `Diagnostic` messages; `step_failure` and `pass_metrics` do the parts
every family shares). Tasks are `Task` values with `TestCase` tests, in a `TaskSet`. Register
it with ``gymnasium.register`` from anywhere; docs/tutorial_new_family.md builds one.
"""

from __future__ import annotations

from codegym import envs
from codegym.batch import Scorer, score
from codegym.core import CodeEnv, ReferenceTimeLimits
from codegym.executor import Job, Limits, RunResult, Step, StepResult
from codegym.executor.registry import configure
from codegym.grade import Diagnostic, Grade, Status, TestOutcome, pass_metrics, step_failure
from codegym.task import Task, TaskSet, TestCase
from codegym.validation import Validation, validate

__version__ = "0.1.0"
__all__ = [
    "CodeEnv",
    "Diagnostic",
    "Grade",
    "Job",
    "Limits",
    "ReferenceTimeLimits",
    "RunResult",
    "Scorer",
    "Status",
    "Step",
    "StepResult",
    "Task",
    "TaskSet",
    "TestCase",
    "TestOutcome",
    "Validation",
    "configure",
    "envs",
    "pass_metrics",
    "score",
    "step_failure",
    "validate",
]
