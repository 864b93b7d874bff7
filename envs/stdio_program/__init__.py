"""Stdin/stdout programs in many languages (``codegym/StdioProgram-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/StdioProgram-v0",
    entry_point="codegym.envs.stdio_program.env:StdioProgramEnv",
    kwargs={"tasks": "codegym-stdio", "language": "python"},
)
