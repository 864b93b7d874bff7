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

A task without a ``generator`` (a public data set that has none: PIE's pairs) is benchmarked on
its hidden tests' inputs, the largest ``bench_inputs`` of them.

**Functions.** A Python row with ``entry_point`` (and optionally a ``prefix``: what its
data set's judge puts before every program, such as LeetCode's imports) (``"twoSum"``: a function, or a method of a
class ``Solution`` as in LeetCode-style sets) is a function to speed up: its ``reference`` and
submissions define it, and `DRIVER`, appended to them, calls it once per line of input (a
JSON list of arguments) and prints each result as compact JSON. Its ``tests`` may give
``args`` (a list) and ``expected`` (any JSON value) instead of text, and its generator may
return a list of argument lists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, TestCase, as_rows, check_fields, read_rows, row_errors

DATA = Path(__file__).parent / "data"
BUNDLED = "codegym-optimize"
LANGUAGES = ("python", "c", "cpp")
EXPECTED = (
    "a JSON object with id, language (python, c or cpp), prompt, reference (the slow program) and tests "
    "([{input, expected, hidden}]), and optionally generator (Python source defining generate(size, rng)) with "
    "bench_size, fast, entry_point"
)
REQUIRED = {"id": str, "language": str, "prompt": str, "reference": str, "tests": list}
OPTIONAL = {
    "generator": str,
    "bench_size": int,
    "fast": str,
    "bench_inputs": int,
    "difficulty": str,
    "tags": list,
    "entry_point": str,
}
# Appended to a function task's program: one call per line of input (a JSON list of arguments),
# one compact JSON result per line of output. Its names start with _codegym_ (not the program's).
DRIVER_MARK = "\n\ndef _codegym_main():"
DRIVER = """

def _codegym_main():
    import json, sys
    results, sys.stdout = sys.stdout, sys.stderr  # (what the program prints is not a result)
    namespace = globals()
    name = ENTRY
    solution = namespace.get("Solution")
    if name not in namespace and isinstance(solution, type) and hasattr(solution, name):
        call = lambda *args: getattr(solution(), name)(*args)
    else:
        call = namespace[name]
    plain = lambda value: sorted(value) if isinstance(value, (set, frozenset)) else repr(value)
    for line in sys.stdin:
        if line.strip():
            result = call(*json.loads(line))
            results.write(json.dumps(result, sort_keys=True, separators=(",", ":"), default=plain) + "\\n")
    results.flush()


_codegym_main()
"""


def with_driver(source: str, entry_point: str) -> str:
    """A function task's program: ``source`` and the `DRIVER` that calls ``entry_point``."""
    return source.rstrip() + "\n" + DRIVER.replace("ENTRY", repr(entry_point))


def call_lines(calls: Iterable[Any]) -> str:
    """Argument lists as a function task's input: one JSON list a line."""
    return "".join(json.dumps(list(args)) + "\n" for args in calls)


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
        if row.get("entry_point") and row["language"] != "python":
            raise TaskFormatError(f"{where}: entry_point (a function task) is for Python tasks only")
        if row.get("generator") and not row.get("bench_size"):
            raise TaskFormatError(f"{where}: a task with a generator needs bench_size (the benchmark inputs' size)")
        tests = tuple(_test(f"{where}: test {i}", i, test) for i, test in enumerate(row["tests"]))
        if not row.get("generator") and not any(t.hidden for t in tests):
            raise TaskFormatError(
                f"{where}: a task without a generator is benchmarked on its hidden tests: it needs one"
            )
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
                "generator": row.get("generator"),
                "bench_size": row.get("bench_size") or 0,
                "entry_point": row.get("entry_point"),
                "prefix": row.get("prefix") or "",
                "bench_inputs": row.get("bench_inputs") or 2,
                "checker": {"kind": "tokens"},
            },
        )


def _test(where: str, index: int, test: Any) -> TestCase:
    if not isinstance(test, Mapping):
        raise TaskFormatError(f"{where}: expected an object with input and expected (or args and expected)")
    if "args" in test:  # (a function task's call)
        check_fields(test, where, kind="codegym-optimize", required={"args": list}, optional={"hidden": bool},
                     noun="test")  # fmt: skip
        if "expected" not in test:
            raise TaskFormatError(f"{where}: missing field 'expected' (the call's result)")
        text, expected = call_lines([test["args"]]), json_result(test["expected"])
    else:
        check_fields(test, where, kind="codegym-optimize", required={"input": str, "expected": str},
                     optional={"hidden": bool, "name": str}, noun="test")  # fmt: skip
        text, expected = test["input"], test["expected"]
    return TestCase(
        name=str(test.get("name") or f"test_{index}"),
        code=text,
        expected=expected,
        hidden=bool(test.get("hidden", True)),
    )


def json_result(value: Any) -> str:
    """A call's result as the `DRIVER` prints it (a function task's expected output)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":")) + "\n"
