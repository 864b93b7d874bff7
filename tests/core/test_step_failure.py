"""`codegym.step_failure`: how the sandbox stopped a step, in every family's words."""

from __future__ import annotations

import signal

import pytest

import codegym
from codegym import Status, StepResult

ARGV = ("python", "-c", "pass")


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (StepResult(ARGV, exit_code=0), None),
        (StepResult(ARGV, signal=signal.SIGSYS), (Status.SEC, "a system call the sandbox denies")),
        (StepResult(ARGV, signal=signal.SIGKILL, limit="cpu"), (Status.TLE, "CPU time limit exceeded")),
        (StepResult(ARGV, signal=signal.SIGKILL, limit="memory"), (Status.MLE, "memory limit exceeded")),
        (StepResult(ARGV, exit_code=0, limit="output"), (Status.OLE, "output limit exceeded")),
        (StepResult(ARGV, signal=signal.SIGSEGV), (Status.RE, "killed by SIGSEGV")),
        (
            StepResult(ARGV, exit_code=1, stderr=b"Traceback\nValueError: bad\n"),
            (Status.RE, "exit status 1: ValueError: bad"),
        ),
        (StepResult(ARGV, exit_code=3), (Status.RE, "exit status 3")),
        (StepResult(ARGV, skipped=True), (Status.RE, "not run: an earlier step failed")),
    ],
)
def test_step_failure_names_what_stopped_the_step(step: StepResult, expected: tuple[Status, str] | None) -> None:
    assert codegym.step_failure(step) == expected
