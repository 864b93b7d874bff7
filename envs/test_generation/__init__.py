"""Writing tests, scored by the mutants they kill (``codegym/TestGeneration-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/TestGeneration-v1",
    entry_point="codegym.envs.test_generation.env:TestGenerationEnv",
    kwargs={"tasks": "codegym-py"},
)
