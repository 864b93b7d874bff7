"""PIE (Shypula, Madaan et al., "Learning Performance-Improving Code Edits"): pairs of a slow
and a faster accepted CodeNet submission, with each problem's tests in a folder of their own
(``<tests>/<problem_id>/input.N.txt`` and ``output.N.txt``) or in memory. Benchmarked on the
hidden tests (PIE has no generator)."""

from __future__ import annotations

import ast
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codegym.envs.optimize.sources.rows import (
    LANGUAGES,
    Row,
    Rows,
    SkippedRow,
    field,
    optional_field,
    source_rows,
    task_set,
)

from codegym.error import TaskFormatError
from codegym.task import TaskSet, check_fields, shown

logger = logging.getLogger(__name__)

# PIE's tests in memory: problem id -> (input, output) pairs, or {"input", "output"} objects.
PieTests = Mapping[str, Sequence[Any]]
PIE_EXPECTED = (
    "a PIE row: a JSON object with problem_id, src_code (the slow program; also read as input or code_v0) "
    "and tgt_code (the faster one; also target or code_v1), and optionally src_id (or submission_id_v0), "
    "tests (the numbers of the problem's tests to use) and language"
)

# --- PIE ---------------------------------------------------------------------------------------


def load_pie(
    pairs: Rows,
    tests: str | Path | PieTests,
    *,
    descriptions: str | Path | Mapping[str, str] | None = None,
    public: int = 1,
    bench_inputs: int = 2,
) -> TaskSet:
    """PIE's pairs as Optimize tasks, benchmarked on their hidden tests.

    Reads, per row: ``problem_id``; the slow program ``src_code`` (PIE's later splits; the
    first release's ``input``, or ``code_v0`` of its trajectory tables), the reference; the
    faster one ``tgt_code`` (``target``, ``code_v1``), the task's ``fast``; ``src_id`` (or
    ``submission_id_v0``) for the id, ``pie/<problem_id>/<src_id>`` (without one,
    ``pie/<problem_id>/<n>``, n counting the problem's pairs); ``tests``, the numbers of the
    problem's tests to use, where given (a list, or its text; numbers the problem lacks are
    ignored); ``language`` (default C++). Everything else (``tgt_id``, runtimes, user ids,
    diffs) is ignored.

    A problem's tests are taken in number order; the first ``public`` are shown, the rest
    hidden, and the ``bench_inputs`` largest hidden inputs are the benchmark. A pair whose
    problem has fewer than ``public + 1`` tests is left out with a warning (a task needs a
    hidden test to benchmark on).

    Args:
        pairs: The pairs: a JSON/JSONL file (``.gz`` too), or rows in memory.
        tests: A folder as PIE publishes its test cases (``<problem_id>/input.N.txt`` with
            ``output.N.txt``; CodeNet's single ``input.txt``/``output.txt`` counts as test 0),
            or a mapping of problem id to ``(input, output)`` pairs (or ``{input, output}``).
        descriptions: Problem statements: a mapping of problem id to text, or a folder of
            ``<problem_id>.md``, ``.txt`` or ``.html`` (CodeNet's ``problem_descriptions``).
            Without one, the prompt names the problem and lets the program define it.
        public: How many of a problem's tests the agent sees.
        bench_inputs: How many hidden inputs (the largest) the cost is counted on.

    Raises:
        TaskFormatError: A row lacks a field or has one of the wrong type, a test file is
            unreadable, or no pair can be a task.
    """
    found = _PieTests(tests)
    if isinstance(descriptions, (str, Path)) and not Path(descriptions).is_dir():
        raise TaskFormatError(f"descriptions={str(descriptions)!r} is not a folder of <problem_id>.md, .txt or .html")
    ids = _PairIds()

    def convert(where: str, row: Row) -> dict[str, Any]:
        return _pie_row(where, row, found, descriptions, ids, public=public, bench_inputs=bench_inputs)

    return task_set(source_rows(pairs, PIE_EXPECTED, "pairs"), convert, name="pie", expected=PIE_EXPECTED)


def _pie_row(where: str, row: Row, tests: _PieTests, descriptions: str | Path | Mapping[str, str] | None,
             ids: _PairIds, *, public: int, bench_inputs: int) -> dict[str, Any]:  # fmt: skip
    check_fields(row, where, kind="PIE", required={"problem_id": (str, int)},
                 optional={"tests": (list, str), "language": str})  # fmt: skip
    problem = str(row["problem_id"])
    task_id = ids.new(problem, optional_field(row, ("src_id", "submission_id_v0")))
    slow = field(row, where, ("src_code", "input", "code_v0"), "the slow program", PIE_EXPECTED)
    fast = field(row, where, ("tgt_code", "target", "code_v1"), "the faster program", PIE_EXPECTED)
    cases = tests.of(problem, _numbers(row.get("tests"), where))
    if len(cases) <= public:
        raise SkippedRow(
            f"{where}: problem {problem} has {len(cases)} usable test(s) in {tests.described}; a task needs "
            f"{public + 1} or more ({public} shown, the rest hidden and benchmarked)"
        )
    language = LANGUAGES.get(str(row.get("language") or "cpp").lower())
    if language is None:
        raise TaskFormatError(f"{where}: language must be one of {sorted(LANGUAGES)}, got {row['language']!r}")
    return {
        "id": task_id,
        "language": language,
        "prompt": _description(descriptions, problem) or _pie_prompt(problem),
        "reference": slow,
        "fast": fast,
        "tests": [
            {"name": f"test_{number}", "input": given, "expected": wanted, "hidden": i >= public}
            for i, (number, given, wanted) in enumerate(cases)
        ],
        "bench_inputs": bench_inputs,
        "tags": ["pie", "codenet"],
    }


class _PairIds:
    """Ids of PIE pairs: ``pie/<problem>/<src_id>``, or ``pie/<problem>/<n>`` (n counting the
    problem's pairs); a second pair of the same slow program gets ``-2``, and so on."""

    def __init__(self) -> None:
        self.pairs: Counter[str] = Counter()
        self.used: Counter[str] = Counter()

    def new(self, problem: str, pair: str | None) -> str:
        number = self.pairs[problem]
        self.pairs[problem] += 1
        task_id = f"pie/{problem}/{pair if pair is not None else number}"
        self.used[task_id] += 1
        return task_id if self.used[task_id] == 1 else f"{task_id}-{self.used[task_id]}"


def _pie_prompt(problem: str) -> str:
    return (
        f"CodeNet problem {problem}. Its statement is not given: the program below defines it. It reads its "
        "input from stdin and prints its answer to stdout."
    )


def _numbers(value: Any, where: str) -> set[int] | None:
    """A PIE row's ``tests`` (the test numbers to use) as a set; None when it names none."""
    if value is None or value in ("", []):
        return None
    try:
        items = ast.literal_eval(value) if isinstance(value, str) else value
        return {int(item) for item in items}
    except (ValueError, TypeError, SyntaxError) as e:
        raise TaskFormatError(
            f"{where}: field 'tests' must list test numbers ([0, 3, 7] or its text), got {shown(value)}"
        ) from e


class _PieTests:
    """Each problem's numbered tests, from a folder or a mapping, read once per problem."""

    def __init__(self, tests: str | Path | PieTests) -> None:
        if isinstance(tests, (str, Path)):
            self.folder: Path | None = Path(tests)
            if not self.folder.is_dir():
                raise TaskFormatError(
                    f"tests={str(tests)!r} is not a folder; expected PIE's test cases: a folder of "
                    "<problem_id>/input.N.txt and output.N.txt, or a mapping of problem id to (input, output) pairs"
                )
            self.described = f"{self.folder}/<problem_id>"
        elif isinstance(tests, Mapping):
            self.folder, self.described = None, "the tests given"
        else:
            raise TaskFormatError(
                f"tests= must be a folder or a mapping of problem id to (input, output) pairs, got "
                f"{type(tests).__name__}"
            )
        self.mapping = tests if isinstance(tests, Mapping) else {}
        self._read: dict[str, list[tuple[int, str, str]]] = {}

    def of(self, problem: str, numbers: set[int] | None) -> list[tuple[int, str, str]]:
        """``problem``'s tests ``(number, input, output)`` in order, those of ``numbers`` only
        when given."""
        if problem not in self._read:
            self._read[problem] = self._folder(problem) if self.folder else self._given(problem)
        return [case for case in self._read[problem] if numbers is None or case[0] in numbers]

    def _folder(self, problem: str) -> list[tuple[int, str, str]]:
        assert self.folder is not None
        where = self.folder / problem
        numbered = {}
        for path in where.glob("input.*.txt"):
            match = re.fullmatch(r"input\.(\d+)\.txt", path.name)
            if match:
                numbered[int(match[1])] = (path, where / f"output.{match[1]}.txt")
        if not numbered and (where / "input.txt").is_file():  # (CodeNet's own layout: one test)
            numbered[0] = (where / "input.txt", where / "output.txt")
        return [(n, _read(given), _read(wanted)) for n, (given, wanted) in sorted(numbered.items())]

    def _given(self, problem: str) -> list[tuple[int, str, str]]:
        cases = self.mapping.get(problem) or ()
        return [(n, *_pair(case, f"tests[{problem!r}][{n}]")) for n, case in enumerate(cases)]


def _pair(case: Any, where: str) -> tuple[str, str]:
    if isinstance(case, Mapping) and isinstance(case.get("input"), str):
        wanted = case.get("output", case.get("expected"))
        if isinstance(wanted, str):
            return case["input"], wanted
    elif isinstance(case, (list, tuple)) and len(case) == 2 and all(isinstance(x, str) for x in case):
        return case[0], case[1]
    raise TaskFormatError(f"{where}: expected an (input, output) pair of strings or {{input, output}}, got "
                          f"{shown(case)}")  # fmt: skip


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError as e:
        raise TaskFormatError(f"{path}: missing; each input.N.txt needs its output.N.txt beside it") from e
    except (OSError, UnicodeDecodeError) as e:
        raise TaskFormatError(f"{path}: cannot be read as UTF-8 text ({e})") from e


def _description(source: str | Path | Mapping[str, str] | None, problem: str) -> str | None:
    """``problem``'s statement, from a mapping or a folder of ``<problem>.md|.txt|.html``."""
    if source is None or isinstance(source, Mapping):
        return source.get(problem) if source is not None else None
    paths = (Path(source) / f"{problem}{suffix}" for suffix in (".md", ".txt", ".html"))
    return next((_read(path) for path in paths if path.is_file()), None)
