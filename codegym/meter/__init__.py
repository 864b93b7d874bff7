"""Cost meters: what a program's run costs, counted so that the count does not move with
machine load.

Two measures of ``"instructions"``, each the strongest this machine allows without
hardware counters (a VM's ``perf stat -e instructions`` is often "not supported"):

- **native** programs (C, C++): machine instructions retired, counted by valgrind's
  cachegrind (``I refs``), threads included. Its log is the step's stderr, written through a
  descriptor valgrind keeps out of the program's reach; its per-line file is the profile.
- **Python** programs: bytecode instructions executed, counted by a C trace function in the
  program's own interpreter (`codegym.meter._opcount`), which the program cannot switch off
  or reach (see that module), plus the work builtins do for the program by what it
  touches: the items builtin iterators yield and the comparisons of builtin types, sorting,
  slices, concatenations, string and bytes methods, regular expressions and big-int digits,
  each weighed against an instruction (see that module's "work inside builtins"). Valgrind
  on the interpreter would count machine instructions too, at 20-35 times the run's time and
  two seconds of start-up: too slow for a reward.

A metered step is `metered_step`'s (see `codegym.meter.runner`); `read` checks what it left
(the key that signs a Python count, valgrind's own log) and turns it into a `Reading`. A
reading that cannot be trusted is never a low cost: it is a `Reading` with ``failure`` set,
which scores 0.
"""

from __future__ import annotations

import json
import re
import secrets
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from codegym.executor import Step, StepResult
from codegym.meter.runner import output_digest

Kind = Literal["python", "native", "python-wall", "native-wall"]
RUNNER = "codegym.meter.runner"
PRELOAD = (RUNNER, "codegym.meter._opcount", "codegym.executor._linux")
UNITS = {"python": "bytecode instructions", "native": "machine instructions"}
_REFS = re.compile(rb"^==(\d+)== I\s+refs:\s+([\d,]+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Hotspot:
    """A line or function of the program and its share of the count.

    Attributes:
        name: ``main.py:12`` for a line, the function's name for a function.
        line: The line (of a function: its first line), when known.
        cost: Instructions counted there (its own, not its callees').
        share: ``cost`` over the run's total.
    """

    name: str
    line: int | None
    cost: int
    share: float


@dataclass(frozen=True)
class Reading:
    """One metered run of a program on one input.

    Attributes:
        cost: Instructions counted (`UNITS` says which).
        output_sha256: The digest of the output's whitespace-separated tokens.
        output_head: The output's first bytes.
        output_bytes: Its size.
        ended: How the program ended: ``returned``, ``exit N``, ``raised Type``,
            ``signal N``.
        lines: The program's own lines by cost, highest first.
        functions: Functions by cost, highest first.
        failure: Why the run's count cannot be used (the program crashed, the report was
            missing, unsigned or tampered with), else None.
        cpu_s: CPU seconds of the program's process (measured, not counted).
        wall_s: Its wall-clock seconds, from the runner's fork to its wait (measured).
    """

    cost: int = 0
    output_sha256: str = ""
    output_head: str = ""
    output_bytes: int = 0
    ended: str = ""
    lines: tuple[Hotspot, ...] = ()
    functions: tuple[Hotspot, ...] = ()
    failure: str | None = None
    cpu_s: float = field(default=0.0, compare=False)
    wall_s: float = field(default=0.0, compare=False)

    @property
    def ok(self) -> bool:
        return self.failure is None


STARTED_ANOTHER = (
    "the program was stopped (SIGSYS) at a system call the sandbox denies; a metered run denies starting another "
    "process or thread (for C and C++, threads are allowed), since work done there would not be counted"
)


def new_key() -> str:
    """A fresh key for one job's reports."""
    return secrets.token_hex(16)


def metered_step(kind: Kind, input_file: str, key: str, command: tuple[str, ...] = ()) -> Step:
    """The step that runs the program (``main.py``, or ``command`` for a native one) on
    ``input_file`` under the meter; ``key`` signs a Python count (it travels on the step's
    stdin, which no other step sees). A native step leaves its per-line counts in
    `profile_file` of ``input_file``."""
    return Step(argv=("python", "-m", RUNNER, kind, input_file, *command), stdin=key.encode(), stop_on_failure=False)


def profile_file(input_file: str) -> str:
    """Where a native metered step on ``input_file`` leaves cachegrind's per-line counts."""
    return f"{input_file}.cachegrind"


def read(step: StepResult, key: str, kind: Kind, *, source_file: str, profile: bytes | None = None,
         top: int = 5) -> Reading:  # fmt: skip
    """The `Reading` of a metered step, checked against ``key`` (``profile``: a native
    step's `profile_file`)."""
    if kind == "native":
        return _read_native(step, source_file, profile, top)
    try:
        report = json.loads(step.stdout)
    except ValueError:
        return Reading(failure="the meter's runner gave no report")
    if not isinstance(report, dict) or report.get("key") != key or not report.get("output_sha256"):
        return Reading(failure="the meter's report is not this job's")
    base = {
        "output_sha256": str(report.get("output_sha256", "")),
        "output_head": str(report.get("output_head", "")),
        "output_bytes": int(report.get("output_bytes") or 0),
        "cpu_s": float(report.get("cpu_s") or 0.0),
        "wall_s": float(report.get("wall_s") or 0.0),
    }
    if report.get("output_over"):
        return Reading(**base, failure="the output was over the meter's limit")
    if report.get("signal") == signal.SIGSYS:
        return Reading(**base, ended=_ended(report), failure=STARTED_ANOTHER)
    if kind.endswith("-wall"):  # (timed, not counted)
        ended = _ended(report)
        return Reading(**base, ended=ended, failure=None if ended == "exit 0" else f"the program ended with {ended}")
    counted = _python(report, key)
    if isinstance(counted, str):
        return Reading(**base, ended=_ended(report), failure=counted)
    cost, ended, lines, functions = counted
    return Reading(cost=cost, ended=ended, lines=_top(lines, cost, top), functions=_top(functions, cost, top), **base)


def _read_native(step: StepResult, source_file: str, profile: bytes | None, top: int) -> Reading:
    """Cachegrind's total from its log on the step's stderr (the ``I refs`` line of the process
    it started with: valgrind prints it last, once the program has ended), the output digested
    here, and the per-line profile when its file agrees with that total."""
    base = {"output_sha256": output_digest(step.stdout), "output_head": step.stdout[:200].decode("utf-8", "replace"),
            "output_bytes": len(step.stdout), "cpu_s": step.cpu_s, "wall_s": step.wall_s}  # fmt: skip
    ended = f"signal {step.signal}" if step.signal is not None else f"exit {step.exit_code}"
    refs = _REFS.findall(step.stderr)
    first = re.match(rb"==(\d+)==", step.stderr)
    if step.signal == signal.SIGSYS:
        return Reading(**base, ended=ended, failure=STARTED_ANOTHER)
    if ended != "exit 0":
        return Reading(**base, ended=ended, failure=f"the program ended with {ended}")
    if not refs or first is None or refs[-1][0] != first.group(1) or not step.stderr.rstrip().endswith(refs[-1][1]):
        return Reading(**base, ended=ended, failure="valgrind did not report the run's instruction count")
    total = int(refs[-1][1].replace(b",", b""))
    lines, functions = _cachegrind_profile((profile or b"").decode("utf-8", "replace"), total, source_file)
    return Reading(cost=total, ended=ended, lines=_top(lines, total, top), functions=_top(functions, total, top),
                   **base)  # fmt: skip


def _ended(report: Mapping[str, Any]) -> str:
    if report.get("signal") is not None:
        return f"signal {report['signal']}"
    return f"exit {report.get('exit_code')}"


Counted = tuple[int, str, list[tuple[str, int | None, int]], list[tuple[str, int | None, int]]]


def _python(report: Mapping[str, Any], key: str) -> Counted | str:
    """The bytecode meter's signed report: between ``codegym-meter KEY`` and ``end KEY``."""
    text = str(report.get("report", ""))
    start, end = f"codegym-meter {key}\n", f"end {key}\n"
    if not text.startswith(start) or not text.endswith(end) or text.count(start) != 1:
        return "the program ended before the meter could report (or wrote on its channel)"
    fields: dict[str, str] = {}
    lines: list[tuple[str, int | None, int]] = []
    functions: list[tuple[str, int | None, int]] = []
    for row in text[len(start) : -len(end)].splitlines():
        name, _, rest = row.partition(" ")
        if name == "line":
            number, count = rest.split()
            lines.append((f"main.py:{number}", int(number), int(count)))
        elif name == "function":
            count, first, qualname = rest.split(" ", 2)
            functions.append((qualname, int(first), int(count)))
        else:
            fields[name] = rest
    if fields.get("intact") != "1":
        return "the program switched the meter's trace function off"
    ended = fields.get("ended", "")
    if ended.startswith("exit") and ended != "exit 0":
        return f"the program ended with {ended}"
    if ended.startswith("raised"):
        return f"the program {ended}"
    return int(fields.get("total", "0")) + int(fields.get("builtin", "0")), ended, _merged(lines), _merged(functions)


def _cachegrind_profile(text: str, total: int, source_file: str) -> tuple[list[Any], list[Any]]:
    """Per-line and per-function counts from a cachegrind out file (empty when its summary
    is not ``total``: a file the program could have written)."""
    lines: dict[int, int] = {}
    functions: dict[str, int] = {}
    first_line: dict[str, int] = {}
    own = False
    function = "?"
    summary = None
    for row in text.splitlines():
        if row.startswith("fl="):
            own = row[3:].rsplit("/", 1)[-1] == source_file
        elif row.startswith("fn="):
            function = row[3:]
        elif row.startswith("summary:"):
            summary = int(row.split()[1])
        elif row[:1].isdigit():
            number, count = (int(part) for part in row.split()[:2])
            functions[function] = functions.get(function, 0) + count
            if own and number > 0:
                lines[number] = lines.get(number, 0) + count
                first_line[function] = min(first_line.get(function, number), number)
    if summary != total:
        return [], []
    return (
        [(f"{source_file}:{n}", n, c) for n, c in lines.items()],
        [(name, first_line.get(name), c) for name, c in functions.items()],
    )


def _merged(rows: list[tuple[str, int | None, int]]) -> list[tuple[str, int | None, int]]:
    merged: dict[tuple[str, int | None], int] = {}
    for name, line, count in rows:
        merged[name, line] = merged.get((name, line), 0) + count
    return [(name, line, count) for (name, line), count in merged.items()]


def _top(rows: list[tuple[str, int | None, int]], total: int, top: int) -> tuple[Hotspot, ...]:
    ranked = sorted(rows, key=lambda row: (-row[2], row[0]))[:top]
    return tuple(Hotspot(name, line, count, count / total if total else 0.0) for name, line, count in ranked)
