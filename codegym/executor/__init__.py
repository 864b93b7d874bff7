"""Executors run each `Job` in a sandbox and return its `RunResult` (see `codegym.executor.base`)."""

from __future__ import annotations

from codegym.executor.base import Executor, Harness, Job, Limits, RunResult, Step, StepResult

__all__ = ["Executor", "Harness", "Job", "Limits", "RunResult", "Step", "StepResult"]
