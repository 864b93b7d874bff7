"""Verifiers: a formal checker's verdict on a set of files, as one small protocol.

A `Verifier` turns files into a sandbox `Job` (the tool runs in the sandbox, on the files,
with no network) and reads the job's result into a `VerifierReport`: which procedures (or
verification conditions) were proved, which failed and where, and whether the run ended in
time. Families judge from the report, never from the tool's exit status alone, and a run
that did not finish is a timeout, never a pass. In front of each verifier, a family's gate
refuses what would make a program verify without a proof (`GateReport`). A new checker (a Lean or Coq backend, another
Dafny) is one more class with ``job`` and ``read``, not a new family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from codegym.executor import Executor, Job, Limits, RunResult

Outcome = Literal["verified", "failed", "timeout", "inconclusive"]
Ended = Literal["complete", "syntax", "timeout", "crashed"]
_WORST_FIRST: tuple[Outcome, ...] = ("timeout", "inconclusive", "failed")


@dataclass(frozen=True)
class Message:
    """One error or warning of the verifier, where it points.

    Attributes:
        file: The file it names.
        line, column: 1-based; 0 when the tool gives none.
        severity: ``error``, ``warning`` or ``note`` (a related location).
        text: What the tool says.
        procedure: The procedure being verified when it was said ("" outside one).
    """

    file: str
    line: int
    column: int
    severity: str
    text: str
    procedure: str = ""


@dataclass(frozen=True)
class Procedure:
    """One procedure (or verification condition) and what became of it.

    Attributes:
        name: The source's name for it (``Sum``); ``check`` tells the tool's kind of
            check apart when one name has several (Dafny: ``Impl``, ``CheckWellformed``).
        check: The kind of check.
        outcome: ``verified``, ``failed``, ``timeout`` or ``inconclusive``.
        obligations: How many proof obligations it had, when the tool says.
    """

    name: str
    check: str
    outcome: Outcome
    obligations: int = 0


@dataclass(frozen=True)
class VerifierReport:
    """What a verifier run says.

    Attributes:
        verifier: The tool and its version (``Dafny 2.3.0``).
        ended: ``complete`` (every procedure got an outcome), ``syntax`` (the files did not
            parse, resolve or type-check: nothing was verified), ``timeout`` (the run was
            stopped) or ``crashed`` (the tool failed: no verdict can be read).
        procedures: Each procedure's outcome, in the tool's order.
        messages: Errors and warnings, in the tool's order.
        detail: Why it did not complete, in a line.
    """

    verifier: str
    ended: Ended
    procedures: tuple[Procedure, ...] = ()
    messages: tuple[Message, ...] = ()
    detail: str = ""

    @property
    def verified(self) -> tuple[Procedure, ...]:
        return tuple(p for p in self.procedures if p.outcome == "verified")

    @property
    def unproved(self) -> tuple[Procedure, ...]:
        return tuple(p for p in self.procedures if p.outcome != "verified")

    def outcome_of(self, name: str) -> Outcome | None:
        """The worst outcome among ``name``'s checks (None when it was never verified)."""
        outcomes = [p.outcome for p in self.procedures if p.name == name]
        if not outcomes:
            return None
        for worst in _WORST_FIRST:
            if worst in outcomes:
                return worst
        return "verified"


@dataclass(frozen=True)
class Violation:
    """A construct a verifier's gate refuses: what it is, and where (1-based)."""

    construct: str
    line: int
    column: int

    def render(self) -> str:
        return f"line {self.line}, column {self.column}: {self.construct}"


@dataclass(frozen=True)
class GateReport:
    """A gate's word on an answer: its violations, or why it could not be read."""

    violations: tuple[Violation, ...] = ()
    unreadable: str | None = None

    @property
    def passed(self) -> bool:
        return not self.violations and self.unreadable is None


class Verifier(Protocol):
    """A formal checker behind a sandbox job."""

    name: str

    def job(self, files: Mapping[str, str], limits: Limits) -> Job:
        """The sandbox job that checks ``files`` (the first is the one to verify)."""
        ...

    def read(self, result: RunResult) -> VerifierReport:
        """The report of a finished `job`."""
        ...


def check(verifier: Verifier, files: Mapping[str, str], executor: Executor, limits: Limits) -> VerifierReport:
    """Run ``verifier`` on ``files`` in ``executor``'s sandbox and read its report."""
    return verifier.read(executor.run(verifier.job(files, limits)))
