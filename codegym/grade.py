"""The verdict: one `Status` taxonomy for every family, and the frozen `Grade`."""

from __future__ import annotations

import enum
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from codegym.executor.base import StepResult

Severity = Literal["error", "warning", "note"]
FeedbackLevel = Literal["status", "public", "full"]
FEEDBACK_LEVELS: tuple[str, ...] = ("status", "public", "full")
REPR_MESSAGE = 120  # characters of the message a `Grade` repr shows
REPR_METRICS = 6  # metrics a `Grade` repr shows


class Status(str, enum.Enum):
    """What happened to a submission; the same for every family."""

    OK = "OK"  # all tests pass
    WA = "WA"  # ran, some test failed
    CE = "CE"  # did not compile / parse / lint
    RE = "RE"  # crashed
    TLE = "TLE"  # cpu or wall-clock limit
    MLE = "MLE"  # memory limit
    OLE = "OLE"  # output or file size limit
    SEC = "SEC"  # sandbox violation: a denied syscall, an escape attempt
    HACK = "HACK"  # integrity check failed: tests not all run, harness tampered, forbidden construct
    IE = "IE"  # not graded: the sandbox failed (when the caller asked to flag it) or the task cannot be graded

    @property
    def ordinal(self) -> int:
        """Position in `STATUSES` (the observation's ``status`` value)."""
        return STATUSES.index(self)


STATUSES: tuple[Status, ...] = tuple(Status)


# What a sandbox limit firing means, in every family: the status and a message.
LIMIT_STATUS: Mapping[str, tuple[Status, str]] = {
    "cpu": (Status.TLE, "CPU time limit exceeded"),
    "wall": (Status.TLE, "wall-clock time limit exceeded"),
    "memory": (Status.MLE, "memory limit exceeded"),
    "output": (Status.OLE, "output limit exceeded"),
    "file_size": (Status.OLE, "file size limit exceeded"),
    "disk": (Status.OLE, "disk quota exceeded"),
    "processes": (Status.RE, "process limit exceeded"),
}


# How feedback shows whitespace where expected and got differ only in it.
VISIBLE_WHITESPACE = {" ": "\u00b7", "\t": "\u2192", "\r": "\u240d", "\n": "\u23ce\n"}
WHITESPACE_NOTE = "(expected and got differ only in whitespace: \u00b7 is a space, \u2192 a tab, \u23ce a line's end)"


def _shown(test: TestOutcome) -> list[str]:
    """A failing test's call (or input), expected and got, for `Grade.feedback`: a value of
    several lines fenced; where expected and got differ only in whitespace, it made visible."""
    expected, got, note = test.expected, test.got, []
    if expected is not None and got is not None and expected != got and expected.split() == got.split():
        expected, got, note = visible_whitespace(expected), visible_whitespace(got), [f"  {WHITESPACE_NOTE}"]
    lines = []
    for label, value in ((test.call_label, test.call), ("expected", expected), ("got", got)):
        if value is None:
            continue
        body = value.removesuffix("\n")
        if "\n" not in body:
            lines.append(f"  {label}: {body}")
            continue
        fence = "```" if "```" not in body else "````"
        lines += [f"  {label}:", f"  {fence}", *(f"  {line}" for line in body.split("\n")), f"  {fence}"]
    return lines + note


def visible_whitespace(text: str) -> str:
    """``text`` with its spaces, tabs, carriage returns and line ends drawn (`VISIBLE_WHITESPACE`)."""
    return "".join(VISIBLE_WHITESPACE.get(char, char) for char in text)


def step_failure(step: StepResult) -> tuple[Status, str] | None:
    """Why the sandbox says ``step`` failed, as every family words it: a `Status` and a short
    message. None when it ran to completion (exit status 0 within every limit): its output is
    then the family's to judge.

    A denied system call is ``SEC``; a limit that fired is its `LIMIT_STATUS`; a signal, a
    non-zero exit status (with the last line of stderr) or a step skipped because an earlier
    one failed is ``RE``.
    """
    if step.denied_syscall:
        return Status.SEC, "a system call the sandbox denies"
    if step.limit is not None:
        return LIMIT_STATUS[step.limit]
    if step.skipped:
        return Status.RE, "not run: an earlier step failed"
    if step.signal is not None:
        return Status.RE, f"killed by {_signal_name(step.signal)}"
    if step.exit_code != 0:
        last = step.stderr.decode(errors="replace").strip().splitlines()[-1:]
        return Status.RE, f"exit status {step.exit_code}" + (f": {last[0][:200]}" if last else "")
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(frozen=True)
class Diagnostic:
    """A compiler, parser or runtime message pinned to a place in the submission."""

    message: str
    file: str = "solution"
    line: int | None = None
    column: int | None = None
    severity: Severity = "error"
    code: str | None = None

    def render(self) -> str:
        where = ":".join(str(p) for p in (self.file, self.line, self.column) if p is not None)
        code = f" [{self.code}]" if self.code else ""
        return f"{where}: {self.severity}{code}: {self.message}"


@dataclass(frozen=True)
class TestOutcome:
    """One test's result. Hidden tests carry only their name, tier and pass/fail."""

    __test__ = False  # not a pytest class

    name: str
    passed: bool
    hidden: bool = False
    tier: str | None = None
    time_s: float | None = field(default=None, compare=False)  # measured, so not part of equality
    call: str | None = None
    expected: str | None = None
    got: str | None = None
    trace: str | None = None
    call_args: str | None = None  # the failing call's arguments, family-encoded, for credit assignment
    status: str | None = None  # this test's own outcome (a `Status` value), where the family has one
    memory_bytes: int | None = field(default=None, compare=False)  # measured peak, where available
    call_label: str = "call"  # how feedback labels ``call`` ("input": what a program read on stdin)
    group: str | None = None  # the count feedback puts it in (None: "Public tests" or "Hidden tests")

    def public_view(self) -> TestOutcome:
        """What the agent may see of this test."""
        if not self.hidden:
            return self
        return TestOutcome(name=self.name, passed=self.passed, hidden=True, tier=self.tier, status=self.status,
                           group=self.group)  # fmt: skip


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) else repr(value)[:40]


def pass_metrics(tests: Sequence[TestOutcome]) -> dict[str, float]:
    """The pass-rate metrics every family reports: overall, public, hidden, and counts.
    ``hidden_pass_rate`` is there only when some test is hidden (a task without hidden tests
    has no such rate, rather than a rate of 0)."""

    def rate(subset: list[TestOutcome]) -> float:
        return sum(t.passed for t in subset) / len(subset) if subset else 0.0

    hidden = [t for t in tests if t.hidden]
    return {
        "pass_rate": rate(list(tests)),
        "public_pass_rate": rate([t for t in tests if not t.hidden]),
        **({"hidden_pass_rate": rate(hidden)} if hidden else {}),
        "tests_passed": float(sum(t.passed for t in tests)),
        "tests_total": float(len(tests)),
    }


@dataclass(frozen=True, repr=False)
class Grade:
    """The full verdict on one submission, built by a family's pure grader.

    Attributes:
        status: The outcome, from `Status`.
        tests: Per-test outcomes, public and hidden.
        diagnostics: Compiler and runtime messages.
        metrics: Deterministic numbers such as ``pass_rate``, ``public_pass_rate``,
            ``tests_passed``.
        reward_components: Named parts of the reward (filled by the env and wrappers).
        message: A one-line summary for humans.
        resources: Measured ``cpu_s``, ``wall_s``, ``peak_memory_bytes``. Measurements vary
            from run to run, so they take no part in equality: two grades are equal when
            their verdicts are.
        artifacts: What a feedback tool made, for the observation (a render and its
            difference from the target, as arrays): bulky and derived, so no part of
            equality either.
        solved: Whether the answer solves its task as its family defines "solved" (status
            ``OK`` for most; a similarity threshold, every mutant killed, at least the
            reference's speed for others: each family page says), recorded by the env that
            graded it (`codegym.CodeEnv.solved`); None for a grade no env has judged (a
            family grader's own output). pass@k, the ``correct`` reward of the trainer
            adapters, ``codegym score`` and ``codegym validate`` count it, not ``status``.
    """

    status: Status
    tests: tuple[TestOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    metrics: Mapping[str, float] = field(default_factory=dict)
    reward_components: Mapping[str, float] = field(default_factory=dict)
    message: str = ""
    resources: Mapping[str, float] = field(default_factory=dict, compare=False)
    artifacts: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    solved: bool | None = None

    @property
    def passed(self) -> bool:
        """Whether the status is ``OK`` (every test passes); see `solved` for whether that
        solves the task."""
        return self.status is Status.OK

    def __repr__(self) -> str:
        """One line: the status, the message, the verdict, the test counts and a few metrics
        (the tests themselves are in ``tests``, the text a model reads in `feedback`)."""
        message = self.message if len(self.message) <= REPR_MESSAGE else self.message[: REPR_MESSAGE - 3] + "..."
        parts = [self.status.value, repr(message)]
        if self.solved is not None:
            parts.append(f"solved={self.solved}")
        if self.tests:
            parts.append(f"tests={sum(t.passed for t in self.tests)}/{len(self.tests)} passed")
        if self.diagnostics:
            parts.append(f"diagnostics={len(self.diagnostics)}")
        shown = list(self.metrics.items())[:REPR_METRICS]
        if shown:
            more = ", ..." if len(self.metrics) > REPR_METRICS else ""
            parts.append("metrics={" + ", ".join(f"{k!r}: {_number(v)}" for k, v in shown) + more + "}")
        if self.reward_components:
            terms = ", ".join(f"{k!r}: {_number(v)}" for k, v in self.reward_components.items())
            parts.append("reward_components={" + terms + "}")
        return f"Grade({', '.join(parts)})"

    @property
    def pass_rate(self) -> float:
        return float(self.metrics.get("pass_rate", 0.0))

    def feedback(self, level: FeedbackLevel = "full", *, max_tests: int = 10, max_chars: int = 4000) -> str:
        """The text a programmer would read.

        Args:
            level: ``"status"``: the status line only; ``"public"``: plus the failing public
                tests (call, expected, got) and pass counts; ``"full"``: plus diagnostics and
                traces. Hidden tests only ever appear as a count.
            max_tests: Failing tests and diagnostics shown at most.
            max_chars: Length cap of the text.
        """
        if level not in FEEDBACK_LEVELS:
            raise ValueError(f"feedback level must be one of {FEEDBACK_LEVELS}, got {level!r}")
        lines = [f"Status: {self.status.value}" + (f" - {self.message}" if self.message else "")]
        if level == "status":
            return lines[0]
        if level == "full":
            lines += [d.render() for d in self.diagnostics[:max_tests]]
        for test in [t for t in self.tests if not t.hidden and not t.passed][:max_tests]:
            lines.append(f"FAILED {test.name}")
            lines += _shown(test)
            if test.trace and level == "full":
                lines.append("  " + test.trace.strip().replace("\n", "\n  "))
        groups: dict[str, list[TestOutcome]] = {"Public tests": [], "Hidden tests": []}
        for test in self.tests:
            groups.setdefault(test.group or ("Hidden tests" if test.hidden else "Public tests"), []).append(test)
        lines += [
            f"{name}: {sum(t.passed for t in tests)}/{len(tests)} passed" for name, tests in groups.items() if tests
        ]
        text = "\n".join(lines)
        return text if len(text) <= max_chars else text[: max_chars - 15] + "\n... (truncated)"
