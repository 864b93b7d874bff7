"""Stdin/stdout task sets: the bundled ``codegym-stdio``, APPS / CodeContests /
LiveCodeBench-style JSON, and a plain JSONL.

Plain JSONL, one task per line::

    {"task_id": "...", "prompt": "...", "tests": [{"input": "...", "output": "...",
     "hidden": true, "tier": "edge"}], "checker": {"kind": "tokens"}, "difficulty": "easy"}

``checker`` is optional: ``tokens`` (default), ``exact``, ``float`` with ``abs``/``rel``, or
``program`` with ``source``: a Python program the task owns, run in a sandbox of its own (never
the submission's) as ``python checker.py input.txt expected.txt output.txt``; exit status 0
accepts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, TestCase

FAMILY = "StdioProgram"
DATA = Path(__file__).with_name("data")
CHECKERS = ("tokens", "exact", "float", "program")


def load_tasks(source: str | Path | TaskSet | Iterable[Task], *, public: int = 1) -> TaskSet:
    """``"codegym-stdio"``, a JSON/JSONL path (any supported format, detected per record),
    a `TaskSet`, or tasks. ``public``: how many tests of an imported task the agent sees."""
    if isinstance(source, TaskSet):
        return source
    if source == "codegym-stdio":
        return TaskSet((task_from(r, public=public) for r in _records(DATA / "problems.jsonl")), name="codegym-stdio")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise TaskFormatError(f"tasks={source!r} is neither 'codegym-stdio' nor a JSON/JSONL file")
        return TaskSet((task_from(r, public=public) for r in _records(path)), name=path.stem)
    return TaskSet(source)


def _records(path: Path) -> Iterator[Mapping[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        yield from json.loads(text)
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def task_from(record: Mapping[str, Any], *, public: int = 1) -> Task:
    """One task from any supported record format."""
    task_id = str(_first(record, "task_id", "problem_id", "question_id", "name", "id"))
    prompt = _first(record, "prompt", "question", "question_content", "description")
    pairs = _tests(record, task_id)
    if not pairs:
        raise TaskFormatError(f"task {task_id}: no stdin/stdout tests found")
    tests = tuple(
        TestCase(
            name=f"test_{i:02d}",
            code=str(test["input"]),
            expected=str(test["output"]),
            hidden=bool(test.get("hidden", i >= public)),
            tier=test.get("tier"),
        )
        for i, test in enumerate(pairs)
    )
    checker = dict(record.get("checker") or {"kind": "tokens"})
    if checker.get("kind") not in CHECKERS:
        raise TaskFormatError(f"task {task_id}: checker kind must be one of {CHECKERS}, got {checker.get('kind')!r}")
    if checker["kind"] == "program" and not checker.get("source"):
        raise TaskFormatError(f"task {task_id}: a program checker needs its Python 'source'")
    return Task(
        id=task_id,
        family=FAMILY,
        prompt=str(prompt),
        tests=tests,
        language=str(record.get("reference_language", "python")),
        difficulty=record.get("difficulty") if record.get("difficulty") in ("easy", "medium", "hard") else None,
        tags=tuple(record.get("tags", ())),
        reference=record.get("reference"),
        metadata={"checker": checker, "title": record.get("title", task_id)},
    )


def _first(record: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if record.get(key) not in (None, ""):
            return record[key]
    raise TaskFormatError(f"a task record needs one of {keys}; found {sorted(record)}")


def _tests(record: Mapping[str, Any], task_id: str) -> list[dict[str, Any]]:
    if "tests" in record:  # codegym or plain JSONL
        return [dict(t) for t in record["tests"]]
    if "input_output" in record:  # APPS / CodeContests
        io = record["input_output"]
        io = json.loads(io) if isinstance(io, str) else io
        if io.get("fn_name"):
            raise TaskFormatError(f"task {task_id}: call-based (fn_name) problems belong to the PythonFunction family")
        return [{"input": _text(i), "output": _text(o)} for i, o in zip(io["inputs"], io["outputs"], strict=True)]
    if "public_test_cases" in record:  # LiveCodeBench
        public = _cases(record["public_test_cases"])
        private = _cases(record.get("private_test_cases", "[]"))
        return [{**t, "hidden": False} for t in public] + [{**t, "hidden": True} for t in private]
    return []


def _cases(value: Any) -> list[dict[str, Any]]:
    cases = json.loads(value) if isinstance(value, str) else value
    return [{"input": c["input"], "output": c["output"]} for c in cases if c.get("testtype", "stdin") == "stdin"]


def _text(value: Any) -> str:
    return "\n".join(map(str, value)) + "\n" if isinstance(value, list) else str(value)
