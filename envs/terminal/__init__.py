"""Terminal tasks in the Harbor format (``codegym/Terminal-v0``): an instruction, an environment
built offline from its Dockerfile, hidden tests and an oracle; the agent works in a machine of
its own and the tests judge a sanitized copy of its files in another (see
:mod:`codegym.envs.terminal.env`)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/Terminal-v0",
    entry_point="codegym.envs.terminal.env:TerminalEnv",
    kwargs={"tasks": "bundled"},
)
