"""Verilog/SystemVerilog RTL designs judged by simulation against a reference (``codegym/Verilog-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/Verilog-v1",
    entry_point="codegym.envs.verilog.env:VerilogEnv",
    kwargs={"tasks": "codegym-verilog"},
)
