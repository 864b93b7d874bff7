"""Every error codegym raises, in one flat module rooted at `Error`."""

from __future__ import annotations


class Error(Exception):
    """Base class of every codegym error."""


class SandboxError(Error):
    """The sandbox failed (a dead worker, a missing toolchain, a broken mount), not the
    submission. Never scored: retried, then raised."""


class InvalidTask(Error):
    """The task cannot be graded: its reference fails its own tests, its testbench or checker
    is broken, or it does not fit this machine. Not the submission's fault nor the sandbox's:
    the task's submissions are graded ``IE`` with this reason (``on_task_error="flag"``, the
    default) and the rest of a batch goes on; ``codegym validate`` finds such tasks ahead of
    time and writes a quarantine file that every loader accepts."""


class UngradableSubmission(InvalidTask):
    """The task's own grading code failed on this one submission (its checker crashed on this
    output): that submission is graded ``IE``, and the task stays in use."""


class DependencyNotInstalled(Error, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class UnknownTask(Error, KeyError):
    """A task id that the task source does not hold."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InvalidAction(Error, ValueError):
    """``step`` received something other than a string of code."""


class ResetNeeded(Error):
    """``step`` was called before ``reset`` or after the episode terminated."""


class TaskFormatError(Error, ValueError):
    """A task file does not have the expected fields."""


class UsageError(Error, ValueError):
    """Bad input at the command line (a missing samples file, a line that cannot be graded,
    results that would be overwritten): the ``codegym`` command prints the message and exits
    with status 2."""


class RemoteError(Error):
    """A codegym server refused a request or failed on it (its message says which and why), or
    could not be reached."""
