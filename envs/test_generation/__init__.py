"""Writing tests, scored by the mutants they kill (``codegym/TestGeneration-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/TestGeneration-v0",
    entry_point="codegym.envs.test_generation.env:TestGenerationEnv",
    kwargs={"tasks": "codegym-py"},
)
