"""BigCodeBench rows: a function judged by a ``unittest.TestCase`` suite.

Fields: ``task_id``, ``complete_prompt`` (imports, signature, docstring: the prompt of the
``complete`` split, and the text a completion continues), ``instruct_prompt`` (the
``instruct`` split's), ``canonical_solution`` (the body that completes ``complete_prompt``),
``code_prompt``, ``test`` (the suite, usually ``class TestCases(unittest.TestCase)``),
``entry_point`` (``task_func``) and ``libs`` (the modules it imports).

Each test method is a test, named by the method (``Class.method`` where the suite has more than
one class). They run in the submission's process, harness-owned (see
`codegym.envs.python_function.suite` for the trade-off). A task whose ``libs`` are not all in
the standard library is checked against the sandbox on first use: if the sandbox cannot
import one of them, its submissions are graded ``IE`` naming the missing ones, and
``codegym validate`` reports it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from typing import Any

from codegym.envs.python_function.tasks import FAMILY, Options

from codegym.error import TaskFormatError
from codegym.task import Task, TestCase

PUBLIC_SUITE = """\
\"\"\"The public tests of the task: ./run_tests runs them against solution.py.\"\"\"
import os
import sys
import unittest

sys.path.insert(0, os.getcwd())
from solution import *  # noqa: E402,F403

{tests}

if __name__ == "__main__":
    unittest.main()
"""


def bigcodebench_task(record: Mapping[str, Any], options: Options) -> Task:
    """A BigCodeBench row, posed with its ``options.bigcodebench_split`` prompt."""
    source = str(record["test"])
    classes = test_classes(ast.parse(source))
    named = [(cls, method) for cls, methods in classes for method in methods]
    qualify = len(classes) > 1
    names = [f"{cls}.{method}" if qualify else method for cls, method in named]
    methods = _method_sources(source)
    tests = tuple(
        TestCase(name=name, code=methods.get((cls, method), f"{cls}.{method}"), hidden=i >= options.public)
        for i, (name, (cls, method)) in enumerate(zip(names, named, strict=True))
    )
    complete = str(record.get("complete_prompt") or record.get("code_prompt") or "")
    prompt = record.get(f"{options.bigcodebench_split}_prompt")
    if not prompt:
        raise TaskFormatError(f"it has no {options.bigcodebench_split}_prompt (bigcodebench_split=)")
    libs = _libs(record.get("libs"))
    metadata: dict[str, Any] = {
        "format": "bigcodebench",
        "entry_point": str(record.get("entry_point") or "task_func"),
        "prefix": complete,
        "test_prelude": "",
        "stub": complete,
        "suite": {"source": source, "classes": _plan(classes, names)},
        "libs": libs,
        "needs": tuple(
            sorted({top for top in (lib.split(".")[0] for lib in libs) if top not in sys.stdlib_module_names})
        ),
    }
    if not tests:
        metadata["invalid"] = "its test defines no unittest test method"
    return Task(id=str(record["task_id"]), family=FAMILY, prompt=str(prompt), tests=tests,
                reference=_reference(record, complete), metadata=metadata)  # fmt: skip


def test_classes(module: ast.Module) -> list[tuple[str, list[str]]]:
    """The `unittest.TestCase` classes a module defines, each with its test methods as
    unittest's loader finds them (inherited ones too, sorted by name)."""
    found: dict[str, list[str]] = {}
    for node in module.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [ast.unparse(base) for base in node.bases]
        if not any(b.split(".")[-1] in ("TestCase", "IsolatedAsyncioTestCase") or b in found for b in bases):
            continue
        own = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        inherited = {m for b in bases for m in found.get(b, ())}
        found[node.name] = sorted(m for m in own | inherited if m.startswith("test"))
    return [(cls, methods) for cls, methods in found.items() if methods]


def _plan(classes: list[tuple[str, list[str]]], names: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """What the harness sends the runner: each class, with its (test name, method) pairs."""
    plan, taken = [], iter(names)
    for cls, methods in classes:
        plan.append((cls, [(next(taken), method) for method in methods]))
    return plan


def _method_sources(source: str) -> dict[tuple[str, str], str]:
    sources = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    sources[(node.name, item.name)] = ast.get_source_segment(source, item) or item.name
    return sources


def _libs(value: Any) -> tuple[str, ...]:
    """``libs`` as a tuple: the data set has it as a list, or as the text of one."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value) if value.strip() else []
        except (ValueError, SyntaxError) as e:
            raise TaskFormatError(f"libs is neither a list nor the text of one: {value[:80]!r}") from e
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(str(lib) for lib in value)


def _third_party(libs: tuple[str, ...]) -> tuple[str, ...]:
    """The top-level modules of ``libs`` that the standard library does not hold."""
    tops = {lib.split(".")[0] for lib in libs}
    return tuple(sorted(top for top in tops if top not in sys.stdlib_module_names))


def _reference(record: Mapping[str, Any], complete: str) -> str | None:
    """The canonical solution, as the completion of the prompt it continues."""
    body = str(record.get("canonical_solution") or "")
    if not body:
        return None
    for head in (complete, str(record.get("code_prompt") or "")):
        try:
            ast.parse(head + body)
        except SyntaxError:
            continue
        return head + body
    return body


def public_suite(task: Task) -> str:
    """The task's suite less its hidden tests, to run with ``python tests/test_public.py``."""
    suite = task.metadata["suite"]
    public = {name for name in (t.name for t in task.public_tests)}
    keep = {(cls, method) for cls, pairs in suite["classes"] for name, method in pairs if name in public}
    module = ast.parse(suite["source"])
    for node in module.body:
        if isinstance(node, ast.ClassDef):
            node.body = [
                item
                for item in node.body
                if not (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"))
                or (node.name, item.name) in keep
            ] or [ast.Pass()]
    return PUBLIC_SUITE.format(tests=ast.unparse(module))
