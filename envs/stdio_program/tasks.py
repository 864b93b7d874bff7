"""Stdin/stdout task sets: the bundled ``codegym-stdio``, and public data sets as they are
published, each row's format told from its fields (`detect_format`):

- ``codecontests`` (DeepMind CodeContests): ``name``, ``description``, ``public_tests``,
  ``private_tests``, ``generated_tests`` (each ``{"input": [...], "output": [...]}``),
  ``time_limit`` (``{"seconds", "nanos"}`` or seconds), ``memory_limit_bytes``, ``solutions``
  (``{"language": [...], "solution": [...]}``: a Python 3, else C++, one is the reference),
  ``difficulty`` (its enum), ``cf_rating``, ``cf_tags``. Public tests are shown; private and,
  with ``include_generated`` (default True: the set's own false-positive guard), generated
  tests are hidden. ``public=`` does not apply: the row says which tests are public.
- ``livecodebench``: ``question_id``, ``question_content``, ``public_test_cases`` and
  ``private_test_cases`` (JSON, or LiveCodeBench's compressed form), ``difficulty``; stdin
  tests only.
- ``apps``: ``problem_id``, ``question``, ``input_output`` (JSON with ``inputs`` and
  ``outputs``), ``solutions`` (a JSON list; the first is the reference), ``difficulty``
  (introductory / interview / competition), ``starter_code``.
- ``taco``: the APPS fields without ``problem_id`` (ids are ``taco/<row>``), plus
  ``time_limit`` (``"2 seconds"``), ``memory_limit`` (``"256 megabytes"``), ``difficulty``
  (EASY ... VERY_HARD), ``tags``, ``source``.
- ``codeforces``: ``id``, ``title``, ``description``, ``input_format``, ``output_format``,
  ``note``, ``examples`` (shown) and ``official_tests`` (hidden), or ``tests``: lists of
  ``{"input", "output"}``; ``time_limit`` in seconds, ``memory_limit`` in megabytes,
  ``rating``, ``tags``. Interactive problems (an ``interaction_format``) are refused.
- ``plain`` JSON(L), one task per line::

    {"task_id": "...", "prompt": "...", "tests": [{"input": "...", "output": "...",
     "hidden": true, "tier": "edge"}], "checker": {"kind": "tokens"}, "difficulty": "easy"}

  with optional ``time_limit`` (seconds) and ``memory_limit`` (megabytes) as Codeforces rows.

Call-based rows (an ``fn_name`` in ``input_output``, LiveCodeBench ``functional`` tests) belong
to the PythonFunction family and are refused here. A task's own limits, as its source gives
them, are in ``Task.metadata["limits"]`` (``time_s``, ``memory_bytes``); the env scales them
(`codegym.envs.stdio_program.env.ProblemLimits`). A limit that cannot be read is left out, and
the task runs under the env's.

``checker`` (plain rows) is optional: ``tokens`` (default), ``exact``, ``float`` with
``abs``/``rel``, or ``program`` with ``source``: a Python program the task owns, run in a
sandbox of its own (never the submission's) as ``python checker.py input.txt expected.txt
output.txt``; exit status 0 accepts.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.error import TaskFormatError
from codegym.task import (
    Difficulty,
    FieldType,
    Task,
    TaskSet,
    TestCase,
    as_rows,
    check_fields,
    inflate_test_cases,
    nearest_formats,
    read_rows,
    row_errors,
)

logger = logging.getLogger(__name__)

FAMILY = "StdioProgram"
DATA = Path(__file__).with_name("data")
CHECKERS = ("tokens", "exact", "float", "program")
# CodeContests' generated tests are the set's guard against false positives (a wrong program
# that passes the few public and private tests); they cost one process each.
INCLUDE_GENERATED = True
MiB = 1 << 20

# What each format is told by, for the error a row of none of them gets.
FORMATS = {
    "codecontests": "public_tests / private_tests / generated_tests ({'input': [...], 'output': [...]}), "
    "with name and description",
    "livecodebench": "public_test_cases (and private_test_cases), with question_id and question_content",
    "apps": "problem_id, question and input_output (JSON with inputs and outputs)",
    "taco": "question and input_output (JSON with inputs and outputs), without problem_id",
    "codeforces": "examples and/or official_tests (lists of {input, output}), or tests, with id and description",
    "plain": "task_id, prompt and tests (a list of {input, output})",
}
# The fields each format is told by ("a|b": either), for naming what a row of the nearest lacks.
DETECTED_BY = {
    "codecontests": ("public_tests|private_tests|generated_tests", "name", "description"),
    "livecodebench": ("public_test_cases", "question_id", "question_content"),
    "apps": ("problem_id", "question", "input_output"),
    "taco": ("question", "input_output"),
    "codeforces": ("examples|official_tests|tests", "id", "description"),
    "plain": ("task_id|id", "prompt", "tests"),
}
_ID = (str, int)
_QUANTITY_TYPES = (int, float, str, Mapping)
# The types of the fields of the hand-written formats, checked before a row is read.
FIELD_TYPES: dict[str, tuple[dict[str, FieldType], dict[str, FieldType]]] = {
    "plain": ({"prompt": str, "tests": list},
              {"task_id": _ID, "id": _ID, "checker": Mapping, "reference": str, "reference_language": str,
               "difficulty": str, "tags": list, "time_limit": _QUANTITY_TYPES, "memory_limit": _QUANTITY_TYPES}),
    "codeforces": ({}, {"tests": list, "examples": list, "official_tests": list, "description": str, "tags": list,
                        "time_limit": _QUANTITY_TYPES, "memory_limit": _QUANTITY_TYPES}),
}  # fmt: skip
ROWS = (
    "a task row: plain (task_id, prompt, tests: a list of {input, output}), or a CodeContests, APPS, TACO, "
    "Codeforces or LiveCodeBench row"
)
CALL_BASED = "call-based (fn_name) problems belong to the PythonFunction family (codegym/PythonFunction-v0)"

# CodeContests' enums: Problem.Difficulty (7 = A, 8 = B, ...: a Codeforces problem's letter) and
# Solution.Language.
_CC_DIFFICULTY: dict[int, Difficulty] = {1: "easy", 2: "medium", 3: "hard", 4: "hard", 5: "hard"}
_CC_LETTER_A = 7
_CC_LANGUAGES = {3: "python", 2: "cpp"}  # in order of preference; 1 (Python 2) and 4 (Java) are not used
_WORDS: dict[str, Difficulty] = {
    "easy": "easy", "introductory": "easy",
    "medium": "medium", "interview": "medium",
    "hard": "hard", "competition": "hard", "medium_hard": "hard", "very_hard": "hard",
}  # fmt: skip
_TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "second": 1.0, "ms": 1e-3, "millisecond": 1e-3}
_MEMORY_UNITS = {
    "b": 1, "byte": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "kilobyte": 1 << 10,
    "m": MiB, "mb": MiB, "mib": MiB, "megabyte": MiB, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "gigabyte": 1 << 30,
}  # fmt: skip
_QUANTITY = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*")


def load_tasks(
    source: str | Path | TaskSet | Iterable[Task] | Any,
    *,
    public: int = 1,
    include_generated: bool = INCLUDE_GENERATED,
) -> TaskSet:
    """A task set from ``"codegym-stdio"``, a JSON/JSONL path, rows in memory (a list of
    dicts, a ``datasets.Dataset`` or ``IterableDataset``: any supported format, detected per
    row), a `TaskSet`, or tasks.

    Args:
        source: Where the tasks are.
        public: How many tests of a row that does not say which are public the agent sees.
        include_generated: Keep CodeContests' ``generated_tests`` (hidden).
    """
    if isinstance(source, TaskSet):
        return source
    read = {"public": public, "include_generated": include_generated}
    if source == "codegym-stdio":
        return TaskSet(_tasks(_records(DATA / "problems.jsonl"), **read), name="codegym-stdio")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise TaskFormatError(
                f"tasks={str(source)!r}: no such file{' (it is a folder)' * path.is_dir()}, and not 'codegym-stdio'; "
                "expected 'codegym-stdio' or a JSON/JSONL file of task rows (plain, CodeContests, APPS, TACO, "
                "Codeforces or LiveCodeBench)"
            )
        return TaskSet(_tasks(_records(path), **read), name=path.stem)
    rows = as_rows(source)
    if rows is not None:
        formats = sorted({detect_format(row, where=f"row {i}") for i, row in enumerate(rows)})
        return TaskSet(_tasks([(f"row {i}", row) for i, row in enumerate(rows)], **read), name="+".join(formats))
    return TaskSet(source)


class UnsupportedRow(TaskFormatError):
    """A well-formed row of a problem this family does not run (call-based, functional,
    interactive). A source that mixes them with stdin problems (TACO, APPS, LiveCodeBench)
    loads the rest, with a warning counting those left out; a source of nothing else fails."""


def _tasks(records: Iterable[tuple[str, Mapping[str, Any]]], *, public: int, include_generated: bool) -> list[Task]:
    """The tasks of ``(where, row)`` pairs (``where`` names the row in errors)."""
    tasks: list[Task] = []
    skipped: list[UnsupportedRow] = []
    for index, (where, record) in enumerate(records):
        try:
            with row_errors(where, ROWS, passing=(UnsupportedRow,)):
                task = task_from(record, public=public, include_generated=include_generated, index=index, where=where)
            tasks.append(task)
        except UnsupportedRow as e:
            skipped.append(e)
    if skipped and not tasks:
        raise skipped[0]
    if skipped:
        logger.warning("left out %d row(s) this family does not run, e.g. %s", len(skipped), skipped[0])
    return tasks


def _records(path: Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The rows of a JSON array or JSONL file, gzipped (``.gz``) or not, with where each is."""
    yield from read_rows(path, expected=ROWS)


def detect_format(record: Mapping[str, Any], *, index: int | None = None, where: str | None = None) -> str:
    """The name of ``record``'s format (a key of `FORMATS`), told from its fields."""
    if any(_given(record, k) for k in ("public_tests", "private_tests", "generated_tests")):
        return "codecontests"
    if _given(record, "public_test_cases"):
        return "livecodebench"
    if "input_output" in record:  # (an APPS row without tests has it empty: "no tests", not "no format")
        return "apps" if _given(record, "problem_id") else "taco"
    if _given(record, "examples") or _given(record, "official_tests"):
        return "codeforces"
    if _given(record, "tests"):
        return "plain" if _given(record, "prompt") else "codeforces"
    expected = "".join(f"\n  {name}: {fields}" for name, fields in FORMATS.items())
    raise TaskFormatError(
        f"{where or _where(index)} is in no stdin/stdout task format: its fields are {sorted(record)}. "
        f"Each format is told by:{expected}" + nearest_formats((k for k in record if _given(record, k)), DETECTED_BY)
    )


def task_from(
    record: Mapping[str, Any],
    *,
    public: int = 1,
    include_generated: bool = INCLUDE_GENERATED,
    index: int | None = None,
    where: str | None = None,
) -> Task:
    """One task from a record of any supported format (see the module's docstring).
    ``index``: the record's row in its source, for ids of formats without one and errors;
    ``where``: the record's place in errors (``FILE:LINE``; default ``row INDEX``)."""
    fmt = detect_format(record, index=index, where=where)
    if fmt in FIELD_TYPES:
        required, optional = FIELD_TYPES[fmt]
        check_fields(record, where or _where(index), kind=fmt, required=required, optional=optional)
    task_id = _opt(record, *_ID_FIELDS[fmt]) or (f"{fmt}/{index}" if index is not None else None)
    if task_id is None:
        raise TaskFormatError(f"a {fmt} record needs one of {_ID_FIELDS[fmt]} (or a row index); found {sorted(record)}")
    problem = _READERS[fmt](record, task_id, include_generated)
    if not problem.tests:
        raise TaskFormatError(f"task {task_id} ({fmt}): no stdin/stdout tests found in {sorted(record)}")
    tests = tuple(
        TestCase(
            name=f"test_{i:02d}",
            code=_text(test["input"]),
            expected=_text(test["output"]),
            hidden=bool(test["hidden"] if test.get("hidden") is not None else i >= public),
            tier=test.get("tier"),
        )
        for i, test in enumerate(problem.tests)
    )
    checker = dict(problem.checker or {"kind": "tokens"})
    if checker.get("kind") not in CHECKERS:
        raise TaskFormatError(f"task {task_id}: checker kind must be one of {CHECKERS}, got {checker.get('kind')!r}")
    if checker["kind"] == "program" and not checker.get("source"):
        raise TaskFormatError(f"task {task_id}: a program checker needs its Python 'source'")
    limits = {k: v for k, v in problem.limits.items() if v}
    return Task(
        id=task_id,
        family=FAMILY,
        prompt=problem.prompt,
        tests=tests,
        language=problem.language,
        difficulty=problem.difficulty,
        tags=problem.tags,
        reference=problem.reference,
        metadata={
            "checker": checker,
            "title": problem.title or task_id,
            "format": fmt,
            **({"limits": limits} if limits else {}),
            **({"source_difficulty": problem.source_difficulty} if problem.source_difficulty is not None else {}),
        },
    )


@dataclass
class _Problem:
    """What a reader found in a record, before it becomes a `Task`."""

    prompt: str
    tests: list[dict[str, Any]]
    reference: str | None = None
    language: str = "python"
    difficulty: Difficulty | None = None
    source_difficulty: Any = None
    tags: tuple[str, ...] = ()
    title: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)
    checker: Mapping[str, Any] | None = None


def _codecontests(record: Mapping[str, Any], task_id: str, include_generated: bool) -> _Problem:
    hidden = ["private_tests", "generated_tests"] if include_generated else ["private_tests"]
    tests = [{**t, "hidden": False} for t in _columns(record, "public_tests", task_id)]
    tests += [{**t, "hidden": True} for key in hidden for t in _columns(record, key, task_id)]
    reference, language = _cc_solution(record.get("solutions"))
    return _Problem(
        prompt=str(_first(record, "description")),
        tests=tests,
        reference=reference,
        language=language,
        difficulty=_rated(record.get("cf_rating")) or _cc_difficulty(record.get("difficulty")),
        source_difficulty=record.get("difficulty"),
        tags=tuple(record.get("cf_tags") or ()),
        title=_opt(record, "name"),
        limits={
            "time_s": _seconds(record, "time_limit"),
            "memory_bytes": _bytes(record, "memory_limit_bytes", unit=1),
        },
    )


def _livecodebench(record: Mapping[str, Any], task_id: str, include_generated: bool) -> _Problem:
    public = _lcb_cases(record["public_test_cases"], "public_test_cases", task_id)
    private = _lcb_cases(record.get("private_test_cases") or "[]", "private_test_cases", task_id)
    if not public and not private:
        raise UnsupportedRow(
            f"task {task_id}: LiveCodeBench functional (LeetCode) problems have no stdin tests; they belong to the "
            "PythonFunction family"
        )
    return _Problem(
        prompt=str(_first(record, "question_content", "prompt")),
        tests=[{**t, "hidden": False} for t in public] + [{**t, "hidden": True} for t in private],
        difficulty=_word(record.get("difficulty")),
        source_difficulty=record.get("difficulty"),
        title=_opt(record, "question_title"),
    )


def _apps(record: Mapping[str, Any], task_id: str, include_generated: bool) -> _Problem:
    """APPS, and TACO (the same fields, with limits and no ids of its own)."""
    io_ = record.get("input_output") or {}
    io_ = _json(io_, "input_output", task_id) if isinstance(io_, str) else io_
    if not isinstance(io_, Mapping):
        raise TaskFormatError(f"task {task_id}: input_output must hold an object with inputs and outputs")
    if io_.get("fn_name"):
        raise UnsupportedRow(f"task {task_id}: {CALL_BASED}")
    inputs, outputs = io_.get("inputs") or [], io_.get("outputs") or []
    if len(inputs) != len(outputs):
        raise TaskFormatError(f"task {task_id}: input_output has {len(inputs)} inputs but {len(outputs)} outputs")
    prompt = str(_first(record, "question", "prompt"))
    if _given(record, "starter_code"):
        prompt += f"\n\nStarter code:\n{record['starter_code']}"
    return _Problem(
        prompt=prompt,
        tests=[{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)],
        reference=_first_solution(record.get("solutions")),
        difficulty=_word(record.get("difficulty")),
        source_difficulty=record.get("difficulty"),
        tags=_tag_list(record.get("tags")),
        title=_opt(record, "name", "title"),
        limits={"time_s": _seconds(record, "time_limit"), "memory_bytes": _bytes(record, "memory_limit", unit=MiB)},
    )


def _listed(record: Mapping[str, Any], task_id: str, include_generated: bool) -> _Problem:
    """Codeforces-style rows and plain JSONL: tests as lists of ``{input, output}``."""
    if _given(record, "interaction_format"):
        raise UnsupportedRow(
            f"task {task_id}: interactive problems (interaction_format) need an interactor, which this family does "
            "not run"
        )
    tests = [{**_pair(t, "tests", task_id)} for t in record.get("tests") or ()]
    tests += [{**_pair(t, "examples", task_id), "hidden": False} for t in record.get("examples") or ()]
    tests += [{**_pair(t, "official_tests", task_id), "hidden": True} for t in record.get("official_tests") or ()]
    prompt = str(record["prompt"]) if _given(record, "prompt") else _statement(record, task_id)
    rating = record.get("rating")
    language = str(record.get("reference_language") or "python")
    return _Problem(
        prompt=prompt,
        tests=tests,
        reference=record.get("reference"),
        language=language,
        difficulty=_word(record.get("difficulty")) or _rated(rating),
        source_difficulty=record["difficulty"] if _given(record, "difficulty") else rating,
        tags=tuple(record.get("tags") or ()),
        title=_opt(record, "title"),
        limits={"time_s": _seconds(record, "time_limit"), "memory_bytes": _bytes(record, "memory_limit", unit=MiB)},
        checker=record.get("checker"),
    )


# Where each format keeps a task's id (TACO has none: its rows are "taco/<row>").
_ID_FIELDS: dict[str, tuple[str, ...]] = {
    "codecontests": ("name",),
    "livecodebench": ("question_id",),
    "apps": ("problem_id",),
    "taco": ("task_id", "id"),
    "codeforces": ("id", "task_id", "problem_id", "name"),
    "plain": ("task_id", "id", "problem_id", "name"),
}
_READERS: dict[str, Callable[[Mapping[str, Any], str, bool], _Problem]] = {
    "codecontests": _codecontests,
    "livecodebench": _livecodebench,
    "apps": _apps,
    "taco": _apps,
    "codeforces": _listed,
    "plain": _listed,
}


def _statement(record: Mapping[str, Any], task_id: str) -> str:
    """A Codeforces statement as the site shows it, from its parts."""
    parts = [str(_first(record, "prompt", "description"))]  # (a plain row has a prompt; this names both)
    for key, heading in (("input_format", "Input"), ("output_format", "Output")):
        if _given(record, key):
            parts.append(f"{heading}\n{record[key]}")
    for i, example in enumerate(record.get("examples") or (), start=1):
        pair = _pair(example, "examples", task_id)
        parts.append(f"Example {i}\nInput:\n{_text(pair['input'])}Output:\n{_text(pair['output'])}")
    if _given(record, "note"):
        parts.append(f"Note\n{record['note']}")
    return "\n\n".join(parts)


def _columns(record: Mapping[str, Any], key: str, task_id: str) -> list[dict[str, Any]]:
    """CodeContests' ``{"input": [...], "output": [...]}`` as pairs."""
    value = record.get(key) or {}
    inputs, outputs = value.get("input") or [], value.get("output") or []
    if len(inputs) != len(outputs):
        raise TaskFormatError(f"task {task_id}: {key} has {len(inputs)} inputs but {len(outputs)} outputs")
    return [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]


def _pair(test: Any, key: str, task_id: str) -> dict[str, Any]:
    if not isinstance(test, Mapping) or "input" not in test or "output" not in test:
        raise TaskFormatError(
            f"task {task_id}: each of {key} must be an object with input and output, got {test!r:.80}"
        )
    return {k: test[k] for k in ("input", "output", "hidden", "tier") if k in test}


def _lcb_cases(value: Any, key: str, task_id: str) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = _json(_inflate(value, key, task_id), key, task_id)
    return [{"input": c["input"], "output": c["output"]} for c in value if c.get("testtype", "stdin") == "stdin"]


def _inflate(value: str, key: str, task_id: str) -> str:
    """LiveCodeBench's compressed tests, as JSON text."""
    try:
        return inflate_test_cases(value)
    except TaskFormatError as e:
        raise TaskFormatError(f"task {task_id}: {key} is {e}") from e


def _json(text: str, key: str, task_id: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise TaskFormatError(f"task {task_id}: {key} is not JSON ({e})") from e


def _cc_solution(solutions: Any) -> tuple[str | None, str]:
    """The first Python 3 solution of a CodeContests row, else the first C++ one."""
    if isinstance(solutions, Mapping):
        pairs = list(zip(solutions.get("language") or (), solutions.get("solution") or (), strict=False))
    else:
        pairs = [(s.get("language"), s.get("solution")) for s in solutions or () if isinstance(s, Mapping)]
    for wanted, language in _CC_LANGUAGES.items():
        for code, source in pairs:
            if code == wanted and source:
                return str(source), language
    return None, "python"


def _cc_difficulty(value: Any) -> Difficulty | None:
    if not isinstance(value, int):
        return None
    if value >= _CC_LETTER_A:  # a Codeforces letter: A, B easy; C, D medium; E on hard
        return ("easy", "easy", "medium", "medium")[value - _CC_LETTER_A] if value < _CC_LETTER_A + 4 else "hard"
    return _CC_DIFFICULTY.get(value)


def _rated(rating: Any) -> Difficulty | None:
    """A Codeforces rating's difficulty: below 1400 easy, below 2000 medium, else hard."""
    if not isinstance(rating, (int, float)) or isinstance(rating, bool) or rating <= 0:
        return None
    return "easy" if rating < 1400 else "medium" if rating < 2000 else "hard"


def _word(value: Any) -> Difficulty | None:
    return _WORDS.get(value.strip().lower()) if isinstance(value, str) else None


def _first_solution(solutions: Any) -> str | None:
    if isinstance(solutions, str):
        try:
            solutions = json.loads(solutions) if solutions.strip() else []
        except json.JSONDecodeError:
            return None
    if isinstance(solutions, list) and solutions and isinstance(solutions[0], str):
        return solutions[0]
    return None


def _tag_list(value: Any) -> tuple[str, ...]:
    """Tags as a list, or as TACO stores them: a list's repr in a string."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value) if value.strip() else []
        except (ValueError, SyntaxError):
            value = [value]
    return tuple(str(tag) for tag in value) if isinstance(value, (list, tuple)) else ()


def _seconds(record: Mapping[str, Any], key: str) -> float | None:
    """A time limit: seconds as a number, ``{"seconds", "nanos"}``, or ``"2 seconds"``."""
    value = record.get(key)
    if isinstance(value, Mapping):
        seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
    else:
        seconds = _quantity(value, _TIME_UNITS)
    return _usable(seconds, key, value)


def _bytes(record: Mapping[str, Any], key: str, *, unit: int) -> int | None:
    """A memory limit: a number of ``unit``, or ``"256 megabytes"``."""
    value = record.get(key)
    amount = _quantity(value, {**_MEMORY_UNITS, "": unit})
    amount = _usable(amount, key, value)
    return int(amount) if amount else None


def _quantity(value: Any, units: Mapping[str, float]) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) * units[""]
    match = _QUANTITY.fullmatch(str(value).lower())
    if match is None:
        return None
    unit = match[2]
    scale = units.get(unit, units.get(unit[:-1]) if unit.endswith("s") else None)
    return float(match[1]) * scale if scale is not None else None


def _usable(amount: float | None, key: str, value: Any) -> float | None:
    if amount is not None and amount > 0:
        return amount
    if value not in (None, "", 0):
        logger.info("%s=%r is not a limit this loader reads: the env's applies", key, value)
    return None


def _first(record: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if _given(record, key):
            return record[key]
    raise TaskFormatError(f"a task record needs one of {keys}; found {sorted(record)}")


def _opt(record: Mapping[str, Any], *keys: str) -> str | None:
    return next((str(record[k]) for k in keys if _given(record, k)), None)


def _given(record: Mapping[str, Any], key: str) -> bool:
    """``key`` holds a value (a ``datasets`` table fills a row's missing columns with None)."""
    return record.get(key) not in (None, "")


def _where(index: int | None) -> str:
    return f"row {index}" if index is not None else "a task record"


def _text(value: Any) -> str:
    return "\n".join(map(str, value)) + "\n" if isinstance(value, list) else str(value)
