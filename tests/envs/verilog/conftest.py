"""Fixtures of the Verilog family's tests: one env per task set on the session executor."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.verilog.env import VerilogEnv

from codegym.executor.local import LocalExecutor

VERILOG_EVAL = Path(__file__).with_name("verilog_eval")


@pytest.fixture(scope="module")
def env(executor: LocalExecutor) -> VerilogEnv:
    return VerilogEnv(executor=executor, lint="never")


@pytest.fixture(scope="module")
def eval_env(executor: LocalExecutor) -> VerilogEnv:
    return VerilogEnv(VERILOG_EVAL, executor=executor, lint="never")
