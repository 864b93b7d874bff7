"""Make slow programs faster, scored by a deterministic cost (``codegym/Optimize-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/Optimize-v0",
    entry_point="codegym.envs.optimize.env:OptimizeEnv",
    kwargs={"tasks": "codegym-optimize"},
)
