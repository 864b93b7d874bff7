"""Optimization tasks: a correct but slow program, its spec and tests, and a hidden generator
of benchmark inputs.

A row of a task file (JSONL or a JSON array; or the same dicts in memory)::

    {"id": "codegym-optimize/py-pair-count", "language": "python",
     "prompt": "Read n and n integers, then a target t; print how many pairs ...",
     "reference": "<the slow program>", "fast": "<a known faster program>",
     "generator": "def generate(size, rng):\\n    ...\\n    return text",
     "bench_size": 3000, "bench_inputs": 2,
     "tests": [{"input": "...", "expected": "...", "hidden": false}, ...],
     "difficulty": "easy"}

``reference`` is the program to speed up, shown to the agent; the speedup is measured against
it. ``fast`` is the team's faster solution (`codegym validate` checks that it is correct and
measurably faster; it is never shown). ``generator`` is a Python function the env runs in a
sandbox of its own at grade time, with a seed of its own, to make ``bench_inputs`` benchmark
inputs of size ``bench_size`` (times the env's ``bench_scale``: the size knob for curricula).
Its inputs are never shown, and are larger than any test's, so that a table of answers
for the shown inputs cannot pass for speed. ``tests`` are compared with the StdioProgram
family's token checker; the ones with ``hidden: false`` are shown in the prompt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, TestCase, as_rows, check_fields, read_rows, row_errors

DATA = Path(__file__).parent / "data"
BUNDLED = "codegym-optimize"
LANGUAGES = ("python", "c", "cpp")
EXPECTED = (
    "a JSON object with id, language (python, c or cpp), prompt, reference (the slow program), generator "
    "(Python source defining generate(size, rng)), bench_size and tests ([{input, expected, hidden}])"
)
REQUIRED = {"id": str, "language": str, "prompt": str, "reference": str, "generator": str, "bench_size": int,
            "tests": list}  # fmt: skip
OPTIONAL = {"fast": str, "bench_inputs": int, "difficulty": str, "tags": list}


def load_tasks(source: str | Path | TaskSet | Iterable[Any]) -> TaskSet:
    """A task set from ``"codegym-optimize"`` (the bundled set), a JSON/JSONL file, rows in
    memory (dicts of the format above), a `TaskSet` or tasks."""
    if isinstance(source, TaskSet):
        return source
    if source == BUNDLED:
        return TaskSet(_tasks(read_rows(DATA / "tasks.jsonl", expected=EXPECTED)), name=BUNDLED)
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise TaskFormatError(f"tasks={str(source)!r}: no such file, and not {BUNDLED!r}; expected {EXPECTED}")
        return TaskSet(_tasks(read_rows(path, expected=EXPECTED)), name=path.stem)
    rows = as_rows(source)
    if rows is not None:
        return TaskSet(_tasks((f"row {i}", row) for i, row in enumerate(rows)), name="rows")
    tasks = list(source)
    if not all(isinstance(task, Task) for task in tasks):
        raise TaskFormatError(f"tasks= must be {BUNDLED!r}, a file, rows (dicts) or Task objects")
    return TaskSet(tasks)


def _tasks(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Task]:
    return [_task(where, row) for where, row in rows]


def _task(where: str, row: Mapping[str, Any]) -> Task:
    with row_errors(where, EXPECTED):
        check_fields(row, where, kind="codegym-optimize", required=REQUIRED, optional=OPTIONAL)
        if row["language"] not in LANGUAGES:
            raise TaskFormatError(f"{where}: language must be one of {', '.join(LANGUAGES)}, got {row['language']!r}")
        if not row["tests"]:
            raise TaskFormatError(f"{where}: a task needs at least one test; expected {EXPECTED}")
        tests = tuple(_test(f"{where}: test {i}", i, test) for i, test in enumerate(row["tests"]))
        return Task(
            id=row["id"],
            family="Optimize",
            prompt=row["prompt"],
            tests=tests,
            language=row["language"],
            difficulty=row.get("difficulty"),
            tags=tuple(row.get("tags") or ()),
            reference=row["reference"],
            metadata={
                "fast": row.get("fast"),
                "generator": row["generator"],
                "bench_size": row["bench_size"],
                "bench_inputs": row.get("bench_inputs") or 2,
                "checker": {"kind": "tokens"},
            },
        )


def _test(where: str, index: int, test: Any) -> TestCase:
    if not isinstance(test, Mapping):
        raise TaskFormatError(f"{where}: expected an object with input and expected")
    check_fields(test, where, kind="codegym-optimize", required={"input": str, "expected": str},
                 optional={"hidden": bool, "name": str}, noun="test")  # fmt: skip
    return TestCase(
        name=str(test.get("name") or f"test_{index}"),
        code=test["input"],
        expected=test["expected"],
        hidden=bool(test.get("hidden", True)),
    )
