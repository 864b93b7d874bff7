"""Formal verification with Dafny: put back a program's proof hints, or write bodies that meet a
fixed specification (``codegym/Dafny-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/Dafny-v1",
    entry_point="codegym.envs.dafny.env:DafnyEnv",
    kwargs={"tasks": "codegym-dafny", "task_kind": "hints"},
)
