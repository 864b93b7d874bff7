"""Formal verification with Why3: implement a WhyML module against a fixed specification
(``codegym/WhyML-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/WhyML-v0",
    entry_point="codegym.envs.whyml.env:WhyMLEnv",
    kwargs={"tasks": "codegym-whyml"},
)
