"""Python functions judged by unit tests (``codegym/PythonFunction-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/PythonFunction-v0",
    entry_point="codegym.envs.python_function.env:PythonFunctionEnv",
    kwargs={"tasks": "codegym-py"},
)
