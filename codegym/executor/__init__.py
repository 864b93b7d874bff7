"""Executors run `Job`s in a sandbox and return `RunResult`s (see `base`)."""

from __future__ import annotations

from codegym.executor.base import Executor, Harness, Job, Limits, RunResult, Step, StepResult

__all__ = ["Executor", "Harness", "Job", "Limits", "RunResult", "Step", "StepResult"]
