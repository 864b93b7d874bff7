"""Weighing a native program's instructions (stdlib only: it runs in the sandbox's build step
and in an agent's ``./profile``).

Valgrind's cachegrind counts the instructions a program retires (``I refs``) and, with
``--branch-sim=yes``, the branches its simulated predictor misses; it does not tell one
instruction from another. An instruction is not a fixed time, though: a 64-bit division
stalls a core for tens of cycles where an addition takes a fraction of one, and a
mispredicted branch throws away the pipeline's work. Counting instructions alone ranks
trial division below a pair loop that runs three times faster, and pays a program for
replacing cheap instructions with one slow one (a division by a runtime constant instead of
the multiply-and-shift a compiler would emit).

So the meter weighs them: the **cost** of a run is its instructions, plus ``DIVISION_WEIGHT``
- 1 more for each division or square root (integer, SSE/AVX or x87) executed, plus
``MISPREDICT_WEIGHT`` for each branch cachegrind's predictor missed. The weights are about
the cycles each costs a current x86 core (15-40 for a 64-bit division, 15-20 to refill the
pipeline after a mispredict) times the two to three instructions such a core otherwise
retires per cycle.

Cachegrind counts per source line, not per instruction. The build therefore **annotates**
the program: gcc writes it as assembly (``-S -g``); `annotate` gives every line of that
assembly which emits code a line number of its own in the debug line table (``.loc 1 N``)
and records, in a `Table`, what each such line is and which source line it came from; gcc
then assembles and links the annotated file. The machine code is the compiler's, unchanged
(only the line table differs), and cachegrind's per-line counts of the program's own file
are counts per instruction. `weigh` turns them into the divisions executed and the source
lines' shares. Inline assembly is refused (`InlineAssembly`): a line of it could hide a
division in ``.byte`` directives, or rewrite the line table itself.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

DIVISION_WEIGHT = 30
MISPREDICT_WEIGHT = 60
TABLE_SUFFIX = ".lines"  # the table beside an annotated binary: main -> main.lines
ANNOTATED = "main.annotated.s"

DIVISION = "d"  # a division or square root: DIVISION_WEIGHT
PLAIN = "i"  # any other instruction, or alignment padding: 1
_DIVISIONS = re.compile(r"(?:v?(?:div|sqrt)[sp][sdh]|i?div[bwlq]?|f(?:i?divr?|sqrt)[a-z]*)")
_CODE_DIRECTIVES = (".p2align", ".align", ".balign", ".skip", ".nops")  # (padding: nops when executed)
_DATA_DIRECTIVES = re.compile(r"\.(?:byte|value|word|short|long|int|quad|octa|ascii|asciz|string\w*|insn|inst"
                              r"|incbin|fill|zero|dc\b|ds\b|float|double|single|hword|2byte|4byte|8byte)")  # fmt: skip
_FILE = re.compile(r'\s*\.file\s+(\d+)\s+(?:"[^"]*"\s+)?"([^"]*)"')
_LOC = re.compile(r"\s*\.loc\s+(\d+)\s+(\d+)")


class InlineAssembly(Exception):
    """The program uses inline assembly, which the meter cannot weigh (``line``: where, in
    the source, when known)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Table:
    """What each annotated line is: ``kinds[n - 1]`` and ``source_lines[n - 1]`` for the
    line numbered ``n`` (`DIVISION` or `PLAIN`; the program's source line, 0 when the code
    came from elsewhere, such as a header's inline function)."""

    kinds: str
    source_lines: tuple[int, ...]

    def to_json(self) -> str:
        return json.dumps({"kinds": self.kinds, "source_lines": list(self.source_lines)})

    @classmethod
    def from_json(cls, text: str | bytes) -> Table:
        data = json.loads(text)
        kinds, lines = str(data["kinds"]), tuple(int(n) for n in data["source_lines"])
        if len(kinds) != len(lines) or set(kinds) - {DIVISION, PLAIN}:
            raise ValueError("not an annotation table")
        return cls(kinds, lines)


@dataclass(frozen=True)
class Row:
    """One row of cachegrind's per-line file: a line of a file, in a function, with the
    instructions retired there and the branches mispredicted (``own``: the program's own
    file, whose lines are the annotated ones)."""

    function: str
    own: bool
    line: int
    instructions: int
    mispredicts: int


@dataclass(frozen=True)
class Weighed:
    """A run's rows read through a `Table`: the divisions executed (a line the table does
    not know counts as one), and the weighted cost of each of the program's source lines
    and of each function."""

    divisions: int
    lines: dict[int, int]
    functions: dict[str, int]


def annotate(assembly: str, source_file: str) -> tuple[str, Table]:
    """``assembly`` (gcc's ``-S -g`` output for ``source_file``) with every code-emitting
    line numbered on its own, and the `Table` of those numbers."""
    out: list[str] = []
    kinds: list[str] = []
    lines: list[int] = []
    files: dict[str, str] = {}
    current = 0
    code = False
    inline = False
    for row in assembly.splitlines():
        text = row.strip()
        if text in ("#APP", "#NO_APP"):
            inline = text == "#APP"
            continue
        if inline and text and not text.startswith("#"):
            raise InlineAssembly(f"inline assembly ({text[:60]!r}) cannot be weighed by the meter", current)
        found = _FILE.match(row)
        if found:
            files[found.group(1)] = found.group(2)
        located = _LOC.match(row)
        if located:
            own = files.get(located.group(1), "").rsplit("/", 1)[-1] == source_file
            current = int(located.group(2)) if own else 0
            continue  # (every code line gets a .loc of its own below)
        code = _section(text, code)
        kind = _kind(text) if code else None
        if kind is not None:
            kinds.append(kind)
            lines.append(current)
            out.append(f"\t.loc 1 {len(kinds)} 0")
        out.append(row)
    header = f'\t.file 1 "{source_file}"'
    return "\n".join(_with_file(out, header)) + "\n", Table("".join(kinds), tuple(lines))


def _with_file(rows: list[str], header: str) -> list[str]:
    """``rows`` with file 1 declared before the first ``.loc`` (gcc declares it inside the
    first function, after code that may now carry a ``.loc``)."""
    kept = [row for row in rows if not re.match(r"\s*\.file\s+1\s", row)]
    first = next((i for i, row in enumerate(kept) if row.startswith("\t.loc 1 ")), len(kept))
    return [*kept[:first], header, *kept[first:]]


def _section(text: str, code: bool) -> bool:
    """Whether code follows ``text`` (``code``: whether it did before)."""
    if text == ".text" or text.startswith(".text\t") or text.startswith(".text "):
        return True
    if text.startswith((".data", ".bss", ".rodata")):
        return False
    if text.startswith((".section", ".pushsection")):
        name, _, rest = text.split(None, 1)[1].partition(",")
        return name.startswith(".text") or "x" in rest.split(",")[0]
    return code


def _kind(text: str) -> str | None:
    """What a line of a code section emits: an instruction (`DIVISION` or `PLAIN`), padding
    (`PLAIN`), data (`DIVISION`: charged at the most, never hidden), or nothing (None)."""
    if not text or text.startswith("#") or text.endswith(":"):
        return None
    if text.startswith("."):
        if text.startswith(_CODE_DIRECTIVES):
            return PLAIN
        return DIVISION if _DATA_DIRECTIVES.match(text) else None
    mnemonic = text.split(None, 1)[0].rstrip(";")
    while mnemonic in ("rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16", "rex64"):
        text = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
        mnemonic = text.split(None, 1)[0].rstrip(";") if text else ""
    return DIVISION if _DIVISIONS.fullmatch(mnemonic) else PLAIN


def read_profile(text: str, source_file: str) -> tuple[tuple[int, ...], list[Row]] | None:
    """A cachegrind out file's summary (its events: ``Ir Bc Bcm Bi Bim``) and its `Row`s
    (``source_file``'s lines are the program's own); None when it is not such a file."""
    rows: list[Row] = []
    own = False
    function = "?"
    summary: tuple[int, ...] | None = None
    events = ""
    try:
        for row in text.splitlines():
            if row.startswith("fl="):
                own = row[3:].strip().rsplit("/", 1)[-1] == source_file
            elif row.startswith("fn="):
                function = row[3:].strip()
            elif row.startswith("events:"):
                events = row[7:].strip()
            elif row.startswith("summary:"):
                summary = tuple(int(part) for part in row.split()[1:])
            elif row[:1].isdigit():
                number, ir, _, bcm, _, bim = (int(part) for part in row.split())
                rows.append(Row(function, own, number, ir, bcm + bim))
    except ValueError:
        return None
    if events != "Ir Bc Bcm Bi Bim" or summary is None or len(summary) != 5:
        return None
    return summary, rows


def weigh(rows: list[Row], table: Table) -> Weighed:
    """The divisions, and the cost per source line and per function, of a run whose
    per-line file gave ``rows``."""
    divisions = 0
    lines: dict[int, int] = {}
    functions: dict[str, int] = {}
    for row in rows:
        divided = source = 0
        if row.own:
            known = 0 < row.line <= len(table.kinds)
            divided = row.instructions if not known or table.kinds[row.line - 1] == DIVISION else 0
            source = table.source_lines[row.line - 1] if known else 0
        weighed = cost(row.instructions, divided, row.mispredicts)
        divisions += divided
        functions[row.function] = functions.get(row.function, 0) + weighed
        if row.own and source:
            lines[source] = lines.get(source, 0) + weighed
    return Weighed(divisions, lines, functions)


def cost(instructions: int, divisions: int, mispredicts: int) -> int:
    """A run's weighted cost (see the module's docstring)."""
    return instructions + (DIVISION_WEIGHT - 1) * divisions + MISPREDICT_WEIGHT * mispredicts


def main() -> None:
    """``python -m codegym.meter.native ASSEMBLY SOURCE_FILE``: write `ANNOTATED` and the
    table (``main.lines``) beside it; exit 1, saying why on stderr, for inline assembly."""
    path, source_file = sys.argv[1], sys.argv[2]
    with open(path) as handle:
        assembly = handle.read()
    try:
        annotated, table = annotate(assembly, source_file)
    except InlineAssembly as e:
        sys.stderr.write(f"{source_file}:{e.line}:1: error: {e}\n")
        sys.exit(1)
    with open(ANNOTATED, "w") as handle:
        handle.write(annotated)
    with open(f"main{TABLE_SUFFIX}", "w") as handle:
        handle.write(table.to_json())


if __name__ == "__main__":
    main()
