"""Test-generation tasks, made from PythonFunction tasks: the function's spec to write tests
for, its reference program (the program the tests must pass on) and the task's own tests
written as a test file (the reference answer)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from codegym.envs.python_function.env import assemble

from codegym.task import Difficulty, Task, TaskSet

FAMILY = "TestGeneration"
TEMPLATE = """\
Write tests for the Python function `{entry}` specified below. The tests call `{entry}`
(also bound to the name `candidate`); write plain `assert` statements or pytest-style
`test_*` functions (`pytest.raises`, `pytest.approx` and `@pytest.mark.parametrize` work).
Your tests must all pass on a correct implementation; they are scored by how many buggy
implementations they reject.

```python
{shown}
```
"""


def test_generation_tasks(functions: Iterable[Task], *, show_reference: bool = False) -> TaskSet:
    """One test-generation task per PythonFunction task that has a reference solution and
    tests a named function (the others are left out: nothing would judge the tests)."""
    made = [task_from(task, show_reference=show_reference) for task in functions if _usable(task)]
    if not made:
        raise ValueError("none of these tasks has a reference solution and an entry point to write tests for")
    return TaskSet(made, name="test-generation")


def _usable(task: Task) -> bool:
    return bool(task.reference) and "entry_point" in task.metadata and "suite" not in task.metadata


def task_from(task: Task, *, show_reference: bool = False) -> Task:
    """The test-generation task of PythonFunction ``task``."""
    entry = str(task.metadata["entry_point"])
    program, _ = assemble(task, task.reference or "")
    shown = program if show_reference else str(task.metadata.get("prefix") or task.prompt)
    return Task(
        id=task.id,
        family=FAMILY,
        prompt=TEMPLATE.format(entry=entry, shown=shown.strip("\n")),
        tests=(),
        difficulty=task.difficulty or difficulty_of(program),
        tags=task.tags,
        reference=own_tests(task),
        metadata={"entry_point": entry, "program": program, "source": task.id, "show_reference": show_reference},
    )


def own_tests(task: Task) -> str:
    """``task``'s own tests (hidden ones included) as a test file: its prelude, then one
    ``test_*`` function per test, calling the function under test as the task's tests do;
    a test's set-up runs at the top level before it, as the tests share one namespace."""
    entry = str(task.metadata["entry_point"])
    calls: dict[str, Any] = dict(task.metadata.get("calls") or {})
    prelude = str(task.metadata.get("test_prelude") or "")
    lines = [
        "import pytest",
        "",
        prelude.rstrip(),
        f"{entry} = candidate  # (the prelude may define a stub of that name)",
        "",
    ]
    for test in task.tests:
        body = _call_test(entry, calls[test.name], task) if test.name in calls else test.code
        setup = [test.setup.rstrip()] if test.setup.strip() else []  # (the tests share one namespace)
        lines += ["", *setup, f"def {_identifier(test.name)}():", *("    " + line for line in body.splitlines()), ""]
    return "\n".join(lines).lstrip("\n")


def _call_test(entry: str, call: dict[str, Any], task: Task) -> str:
    args = ", ".join(map(repr, call["args"]))
    expected = call.get("expected")
    if task.metadata.get("compare") == "close" or isinstance(expected, float):
        atol = float(task.metadata.get("atol", 0.0)) or 1e-6
        return f"assert candidate({args}) == pytest.approx({expected!r}, abs={atol!r})"
    return f"assert candidate({args}) == {expected!r}"


def _identifier(name: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in name)
    return cleaned if cleaned.startswith("test") else f"test_{cleaned}"


def difficulty_of(program: str) -> Difficulty:
    """A label from the program's size: branches and loops (its decision points)."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return "medium"
    decisions = sum(isinstance(n, ast.If | ast.For | ast.While | ast.IfExp | ast.BoolOp | ast.comprehension)
                    for n in ast.walk(tree))  # fmt: skip
    return "easy" if decisions <= 2 else "medium" if decisions <= 6 else "hard"
