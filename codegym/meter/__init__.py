"""Cost meters: what a program's run costs, counted so that the count does not move with
machine load.

Two measures of ``"instructions"``, each the strongest this machine allows without
hardware counters (a VM's ``perf stat -e instructions`` is often "not supported"):

- **native** programs (C, C++): machine instructions retired, counted by valgrind's
  cachegrind (``I refs``), threads included, and weighed (`codegym.meter.native`): a division
  or square root counts as `native.DIVISION_WEIGHT` instructions and each branch cachegrind's
  predictor misses adds `native.MISPREDICT_WEIGHT`, so that the cost ranks programs as a
  clock does. Its log (the totals) is the step's stderr, written through a descriptor
  valgrind keeps out of the program's reach; its per-line file (one line per instruction of
  the annotated build, see `build_steps`) gives the divisions and the profile, and must
  agree with the log.
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

import hashlib
import json
import re
import secrets
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from codegym.executor import Step, StepResult
from codegym.meter import native
from codegym.meter.runner import SEAL, output_digest

Kind = Literal["python", "native", "python-wall", "native-wall"]
RUNNER = "codegym.meter.runner"
PRELOAD = (RUNNER, "codegym.meter._opcount", "codegym.executor._linux")
UNITS = {"python": "bytecode instructions", "native": "weighted machine instructions"}
_REFS = re.compile(rb"^==(\d+)== I\s+refs:\s+([\d,]+)\s*$", re.MULTILINE)
_MISSES = re.compile(rb"^==(\d+)== Mispredicts:\s+([\d,]+)\s", re.MULTILINE)
_RATE = re.compile(rb"==(\d+)== Mispred rate:[^\n]*$")


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
        instructions: Of a native run: the instructions retired (``cost`` weighs them).
        divisions: Of a native run: the divisions and square roots among them.
        mispredicts: Of a native run: the branches cachegrind's predictor missed.
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
    instructions: int = 0
    divisions: int = 0
    mispredicts: int = 0

    @property
    def ok(self) -> bool:
        return self.failure is None


PROFILE_REWRITTEN = "the meter's per-line counts were rewritten after valgrind wrote them (by a later run)"
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


TABLE_FILE = f"main{native.TABLE_SUFFIX}"  # (what `build_steps` leave beside ``main``)
ANNOTATOR = "codegym.meter.native"  # (the build's second step: a job that runs it preloads it)


def build_steps(compile_argv: tuple[str, ...], source_file: str) -> tuple[Step, ...]:
    """The steps that build ``main`` from ``source_file`` for the native meter, as
    ``compile_argv`` (``cc FLAGS -o main SOURCE LIBS``) would, with the instruction lines
    annotated (see `codegym.meter.native`): gcc writes assembly (the compiler's diagnostics
    come from this first step), the meter's annotator numbers its lines and writes
    `TABLE_FILE`, and gcc assembles and links the result. The machine code is the one
    ``compile_argv`` makes."""
    compiler, *rest = compile_argv
    flags = [a for a in rest if a not in ("-o", "main", source_file) and not a.startswith("-l")]
    link = [native.ANNOTATED if a == source_file else a for a in rest if not a.startswith("-std=")]
    return (
        Step(argv=(compiler, "-g", "-gno-variable-location-views", *flags, "-S", "-o", "main.s", source_file)),
        Step(argv=("python", "-m", ANNOTATOR, "main.s", source_file)),
        Step(argv=(compiler, *link)),
    )


def seals(step: StepResult) -> dict[str, str]:
    """The per-line files a native metered step's runner sealed before its program ran:
    name -> SHA-256 (see `codegym.meter.runner`)."""
    found: dict[str, str] = {}
    for row in _sealed(step.stderr)[0]:
        name, digest = row[len(SEAL) + 1 :].split(" ")
        found[name] = digest
    return found


def _sealed(stderr: bytes) -> tuple[list[str], bytes]:
    """The `SEAL` lines that begin ``stderr``, and the rest (valgrind's log)."""
    rows: list[str] = []
    prefix = f"{SEAL} ".encode()
    while stderr.startswith(prefix) and b"\n" in stderr:
        row, stderr = stderr.split(b"\n", 1)
        rows.append(row.decode("ascii", "replace"))
    return rows, stderr


def read(step: StepResult, key: str, kind: Kind, *, source_file: str, profile: bytes | None = None,
         table: native.Table | None = None, sealed: str | None = None, top: int = 5) -> Reading:  # fmt: skip
    """The `Reading` of a metered step, checked against ``key`` (``profile``: a native
    step's `profile_file`; ``table``: its build's annotation table; ``sealed``: the
    profile's SHA-256 as the job's next metered step sealed it, or as collected for the
    job's last one; a native reading fails without all three)."""
    if kind == "native":
        if profile is not None and (sealed is None or hashlib.sha256(profile).hexdigest() != sealed):
            return Reading(failure=PROFILE_REWRITTEN)
        return _read_native(step, source_file, profile, table, top)
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


def _read_native(step: StepResult, source_file: str, profile: bytes | None, table: native.Table | None,
                 top: int) -> Reading:  # fmt: skip
    """Cachegrind's totals from its log on the step's stderr (the ``I refs`` and
    ``Mispredicts`` lines of the process it started with: valgrind prints them last, once the
    program has ended), the output digested here, and the divisions and per-line profile from
    its per-line file, which must agree with those totals (the program could write the file,
    but not after cachegrind has: a file cachegrind could not write is an error in its log)."""
    base = {"output_sha256": output_digest(step.stdout), "output_head": step.stdout[:200].decode("utf-8", "replace"),
            "output_bytes": len(step.stdout), "cpu_s": step.cpu_s, "wall_s": step.wall_s}  # fmt: skip
    ended = f"signal {step.signal}" if step.signal is not None else f"exit {step.exit_code}"
    if step.signal == signal.SIGSYS:
        return Reading(**base, ended=ended, failure=STARTED_ANOTHER)
    if ended != "exit 0":
        return Reading(**base, ended=ended, failure=f"the program ended with {ended}")
    totals = _log_totals(_sealed(step.stderr)[1])
    if totals is None:
        return Reading(**base, ended=ended, failure="valgrind did not report the run's instruction count")
    instructions, mispredicts = totals
    counted = native.read_profile((profile or b"").decode("utf-8", "replace"), source_file)
    if table is None or counted is None or (counted[0][0], counted[0][2] + counted[0][4]) != totals:
        return Reading(**base, ended=ended, failure="the meter's per-line counts are missing or disagree with its log")
    weighed = native.weigh(counted[1], table)
    first: dict[str, int] = {}
    for row in counted[1]:
        if row.own and row.instructions:
            first[row.function] = min(first.get(row.function, row.line), row.line)
    cost = native.cost(instructions, weighed.divisions, mispredicts)
    lines: list[tuple[str, int | None, int]] = [(f"{source_file}:{n}", n, c) for n, c in weighed.lines.items()]
    functions = [(name, _source_line(table, first.get(name)), c) for name, c in weighed.functions.items()]
    return Reading(cost=cost, ended=ended, lines=_top(lines, cost, top), functions=_top(functions, cost, top),
                   instructions=instructions, divisions=weighed.divisions, mispredicts=mispredicts, **base)  # fmt: skip


def _source_line(table: native.Table, annotated: int | None) -> int | None:
    if annotated is None or not 0 < annotated <= len(table.source_lines):
        return None
    return table.source_lines[annotated - 1] or None


def _log_totals(log: bytes) -> tuple[int, int] | None:
    """The instructions and mispredicted branches valgrind's log gives for the process it
    started with, when its summary ends the log; None otherwise (or when cachegrind says it
    could not write its per-line file)."""
    first = re.match(rb"==(\d+)==", log)
    refs, misses, rate = _REFS.findall(log), _MISSES.findall(log), _RATE.search(log.rstrip())
    if first is None or not refs or not misses or rate is None or b"can't open output" in log:
        return None
    pid = first.group(1)
    if refs[-1][0] != pid or misses[-1][0] != pid or rate.group(1) != pid or rate.end() != len(log.rstrip()):
        return None
    return int(refs[-1][1].replace(b",", b"")), int(misses[-1][1].replace(b",", b""))


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


def _merged(rows: list[tuple[str, int | None, int]]) -> list[tuple[str, int | None, int]]:
    merged: dict[tuple[str, int | None], int] = {}
    for name, line, count in rows:
        merged[name, line] = merged.get((name, line), 0) + count
    return [(name, line, count) for (name, line), count in merged.items()]


def _top(rows: list[tuple[str, int | None, int]], total: int, top: int) -> tuple[Hotspot, ...]:
    ranked = sorted(rows, key=lambda row: (-row[2], row[0]))[:top]
    return tuple(Hotspot(name, line, count, count / total if total else 0.0) for name, line, count in ranked)
