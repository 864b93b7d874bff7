"""PyContracts tasks: the bundled set, a folder of task files, and rows in memory.

A task file is one Python module that runs as it is (``python task.py`` passes its own
tests, and ``crosshair check --analysis_kind=PEP316 task.py`` checks its contracts):

- its docstring: the task's description, shown to the agent;
- its imports and helper functions, and one function whose docstring holds the hidden
  contracts as PEP 316 lines: ``pre: <expression>`` (what the function may assume of its
  arguments) and ``post: <expression>`` (what it must make true of ``__return__``, its
  result, and the arguments); that function, without its docstring, is the reference;
- then ``assert`` statements, the tests: those above a comment line ``# Hidden tests`` are
  the examples the prompt shows, those below it are hidden.

Rows in memory carry the same fields: ``id``, ``description``, ``reference`` (source: the
imports, helpers and the function), ``entry_point`` (when the reference has several
functions), ``pre`` and ``post`` (lists of expressions), ``examples`` and ``tests`` (lists
of ``assert`` statements), optionally ``difficulty``; or ``id`` and ``source``, the text of a
task file.

A task's ``metadata``: ``entry_point``, ``params`` (each parameter's name and annotation),
``returns`` (the return annotation), ``pre`` and ``post`` (the hidden contracts),
``description``, ``given`` (the stub shown in agent mode) and ``inputs`` (the argument list
of each test written ``assert f(<literals>) == <literal>``: `codegym validate` checks that
each meets the preconditions, and that the reference meets the postconditions on it).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from codegym.envs.pycontracts import gate

from codegym.error import TaskFormatError
from codegym.task import Difficulty, Task, TaskSet, TestCase, files_or_rows

DATA = Path(__file__).with_name("data")
BUNDLED = "codegym-contracts"
FAMILY = "PyContracts"
HIDDEN_MARKER = re.compile(r"^#\s*hidden tests\s*$", re.IGNORECASE | re.MULTILINE)
_CONDITION = re.compile(r"^\s*(pre|post)\s*:\s*(.+?)\s*$")
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}  # fmt: skip
_RESERVED = "codegym"  # the assembled module's own names start so: no parameter may
RULES = (
    "Imports: only " + ", ".join(sorted(gate.ALLOWED_MODULES)) + ". Refused before anything runs: eval, exec, "
    "compile, open, getattr and the other reflective builtins, type(), dunder names, private attributes, "
    "class definitions, assigning attributes, str.format, and CrossHair's `# crosshair:` directives."
)


def load_tasks(source: str | Path | TaskSet | Iterable[Mapping[str, Any]]) -> TaskSet:
    """Tasks from ``"codegym-contracts"`` (bundled), a folder of task files (``*.py``), or rows."""
    return files_or_rows(source, bundled=BUNDLED, data=DATA, pattern="*.py", file_task=file_task,
                         row_task=_row_task)  # fmt: skip


def _row_task(index: int, row: Mapping[str, Any]) -> Task:
    task_id = str(row.get("id", f"row-{index}"))
    if isinstance(row.get("source"), str):
        return file_task(task_id, row["source"])
    fields = {key: row.get(key) for key in ("description", "reference", "entry_point", "pre", "post", "examples",
                                            "tests", "difficulty")}  # fmt: skip
    return contract_task(task_id, fields)


def file_task(task_id: str, text: str) -> Task:
    """A task from the text of a task file (see the module docstring)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise TaskFormatError(f"{task_id}: line {e.lineno}: {e.msg}") from e
    description = ast.get_docstring(tree)
    if not description:
        raise TaskFormatError(f"{task_id}: the file's docstring (the task's description) is missing")
    lines = text.splitlines(keepends=True)
    marker = HIDDEN_MARKER.search(text)
    hidden_from = text.count("\n", 0, marker.start()) + 1 if marker else None
    code, examples, tests, contracted = [], [], [], []
    for node in tree.body[1:]:
        segment = "".join(lines[_first_line(node) - 1 : node.end_lineno])
        if isinstance(node, ast.Assert):
            (tests if hidden_from is not None and node.lineno > hidden_from else examples).append(segment.strip())
        elif isinstance(node, ast.FunctionDef) and _conditions(ast.get_docstring(node) or "")[1]:
            contracted.append(node)
            code.append(_without_docstring(node, lines))
        else:
            code.append(segment)
    if len(contracted) != 1:
        raise TaskFormatError(f"{task_id}: expected one function whose docstring holds `post:` lines, found "
                              f"{len(contracted)}")  # fmt: skip
    pre, post = _conditions(ast.get_docstring(contracted[0]) or "")
    reference = "\n\n".join(part.rstrip("\n") + "\n" for part in code)
    fields = {"description": description, "reference": reference, "entry_point": contracted[0].name, "pre": pre,
              "post": post, "examples": examples, "tests": tests}  # fmt: skip
    return contract_task(task_id, fields)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _conditions(docstring: str) -> tuple[list[str], list[str]]:
    pre, post = [], []
    for line in docstring.splitlines():
        if found := _CONDITION.match(line):
            (pre if found.group(1) == "pre" else post).append(found.group(2))
    return (pre, post) if post else ([], [])


def _without_docstring(node: ast.FunctionDef, lines: Sequence[str]) -> str:
    docstring = node.body[0]
    start, end = docstring.lineno, docstring.end_lineno or docstring.lineno
    return "".join([*lines[_first_line(node) - 1 : start - 1], *lines[end : node.end_lineno]])


def contract_task(task_id: str, fields: Mapping[str, Any]) -> Task:
    """A task from its fields (see the module docstring); raises `TaskFormatError` naming
    what is wrong."""
    description = _text(task_id, fields, "description")
    reference = _text(task_id, fields, "reference")
    try:
        tree = ast.parse(reference)
    except SyntaxError as e:
        raise TaskFormatError(f"{task_id}: the reference does not parse: line {e.lineno}: {e.msg}") from e
    function = _entry(task_id, tree, fields.get("entry_point"))
    params, returns = _signature(task_id, function)
    pre = _expressions(task_id, fields, "pre", required=False)
    post = _expressions(task_id, fields, "post", required=True)
    examples = _asserts(task_id, fields, "examples")
    hidden = _asserts(task_id, fields, "tests")
    tests = tuple(TestCase(f"example_{i}", code, hidden=False) for i, code in enumerate(examples, 1)) + tuple(
        TestCase(f"test_{i}", code, hidden=True) for i, code in enumerate(hidden, 1)
    )
    inputs = {t.name: args for t in tests if (args := _literal_call(t.code, function.name)) is not None}
    signature = f"def {function.name}({', '.join(f'{n}: {a}' for n, a in params)}) -> {returns}:"
    metadata: dict[str, Any] = {"entry_point": function.name, "params": params, "returns": returns, "pre": pre,
                                "post": post, "description": description, "given": f"{signature}\n    raise "
                                "NotImplementedError\n", "inputs": inputs}  # fmt: skip
    refused = gate.check(reference, function.name)
    if not refused.passed:
        why = refused.unreadable or refused.violations[0].render()
        metadata["invalid"] = f"its reference does not pass the gate: {why}"
    difficulty = fields.get("difficulty") or _difficulty(function)
    return Task(id=task_id, family=FAMILY, prompt=_prompt(description, signature, examples), tests=tests,
                difficulty=difficulty, reference=reference, metadata=metadata)  # fmt: skip


def _text(task_id: str, fields: Mapping[str, Any], key: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value.strip():
        raise TaskFormatError(f"{task_id}: expected {key!r}, a non-empty string")
    return value


def _entry(task_id: str, tree: ast.Module, name: Any) -> ast.FunctionDef:
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    chosen = [f for f in functions if f.name == name] if name else functions[-1:] if len(functions) == 1 else []
    if not chosen:
        wanted = f"a function {name!r}" if name else "one function (or 'entry_point' naming it)"
        raise TaskFormatError(f"{task_id}: the reference must define {wanted}")
    return chosen[0]


def _signature(task_id: str, function: ast.FunctionDef) -> tuple[tuple[tuple[str, str], ...], str]:
    arguments = function.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs or arguments.defaults:
        raise TaskFormatError(f"{task_id}: {function.name} must take plain positional parameters (no defaults, "
                              "*args, **kwargs, keyword-only or positional-only ones)")  # fmt: skip
    params = []
    for arg in arguments.args:
        if arg.annotation is None or arg.arg.startswith(_RESERVED):
            raise TaskFormatError(f"{task_id}: parameter {arg.arg!r} of {function.name} needs a type annotation "
                                  f"(CrossHair makes its symbolic inputs from them) and a name not starting with "
                                  f"{_RESERVED!r}")  # fmt: skip
        params.append((arg.arg, ast.unparse(arg.annotation)))
    if function.returns is None:
        raise TaskFormatError(f"{task_id}: {function.name} needs a return annotation")
    return tuple(params), ast.unparse(function.returns)


def _expressions(task_id: str, fields: Mapping[str, Any], key: str, *, required: bool) -> tuple[str, ...]:
    values = fields.get(key) or []
    if isinstance(values, str) or not all(isinstance(v, str) for v in values) or (required and not values):
        raise TaskFormatError(f"{task_id}: expected {key!r}, a list of Python expressions"
                              + (" (at least one)" if required else ""))  # fmt: skip
    for value in values:
        try:
            ast.parse(value, mode="eval")
        except SyntaxError as e:
            raise TaskFormatError(f"{task_id}: the {key} condition {value!r} is not an expression: {e.msg}") from e
        if "\n" in value or '"""' in value:
            raise TaskFormatError(f'{task_id}: the {key} condition {value!r} must be one line without \'"""\'')
    return tuple(values)


def _asserts(task_id: str, fields: Mapping[str, Any], key: str) -> tuple[str, ...]:
    values = fields.get(key)
    if isinstance(values, str) or not isinstance(values, list | tuple) or not values:
        raise TaskFormatError(f"{task_id}: expected {key!r}, a non-empty list of assert statements")
    for value in values:
        try:
            body = ast.parse(value).body if isinstance(value, str) else []
        except SyntaxError as e:
            raise TaskFormatError(f"{task_id}: the test {value!r} does not parse: {e.msg}") from e
        if len(body) != 1 or not isinstance(body[0], ast.Assert):
            raise TaskFormatError(f"{task_id}: the test {value!r} must be one assert statement")
    return tuple(values)


def _literal_call(code: str, name: str) -> list[Any] | None:
    """The arguments of ``assert name(<literals>) == ...``, or None for another form."""
    test = ast.parse(code).body[0]
    assert isinstance(test, ast.Assert)
    call = test.test.left if isinstance(test.test, ast.Compare) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name) or call.keywords:
        return None
    try:
        return [_literal(arg) for arg in call.args]
    except (ValueError, TypeError, ZeroDivisionError):
        return None


def _literal(node: ast.expr) -> Any:
    """A literal, or integer arithmetic on literals (``10**9 + 1``); nothing else is evaluated."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if type(left) is not int or type(right) is not int or (isinstance(node.op, ast.Pow) and not 0 <= right <= 256):
            raise ValueError("only integer arithmetic, with small powers")
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand)
    if isinstance(node, ast.List | ast.Tuple):
        items = [_literal(item) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    return ast.literal_eval(node)


def _difficulty(function: ast.FunctionDef) -> Difficulty:
    size = (function.end_lineno or function.lineno) - function.lineno
    return "easy" if size <= 6 else "medium" if size <= 14 else "hard"


def _prompt(description: str, signature: str, examples: Sequence[str]) -> str:
    shown = "\n".join(examples)
    return (
        f"{description.strip()}\n\nWrite this Python function:\n\n```python\n{signature}\n```\n\n"
        f"Examples:\n\n```python\n{shown}\n```\n\nHow it is judged: hidden tests, then CrossHair (symbolic "
        "execution) searches for inputs on which the function breaks its hidden contract (the preconditions it may "
        "assume of its arguments, the postconditions it must meet) or behaves differently from a reference "
        "solution; each counterexample found is shown to you: the input, which hidden postcondition it breaks (by "
        "number), what the reference returns and what your function did. It must not raise on inputs that meet the "
        f"preconditions. {RULES}\n\nAnswer with the whole function (and any helpers it needs) "
        "in one ```python block."
    )
