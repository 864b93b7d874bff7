"""Every error codegym raises, in one flat module rooted at `Error`."""

from __future__ import annotations


class Error(Exception):
    """Base class of every codegym error."""


class SandboxError(Error):
    """The sandbox failed (a dead worker, a missing toolchain, a broken mount), not the
    submission. Never scored: retried, then raised."""


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
