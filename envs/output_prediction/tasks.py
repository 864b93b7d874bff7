"""Execution-prediction items and where they come from, and the tasks posed from them.

An `Item` is a program, the entry point it defines (``f``) and the text of the arguments it is
called with; its output is given by the source (CRUXEval) or computed in the sandbox by the
env, on first need. Sources (`load_items`):

- ``"generated"``: the seeded generator (`codegym.envs.output_prediction.generator`), ``count``
  programs of ``seed``, with fixed ``knobs`` or knobs drawn per program.
- A CRUXEval-format JSONL or JSON file, or such rows in memory: ``code`` (defining ``f``),
  ``input`` (the argument text, as in ``f(<input>)``), ``output`` (a literal's text), ``id``.
- Items derived from PythonFunction tasks (``"codegym-py"``, ``"humaneval"``, a PythonFunction
  `TaskSet`, or a file in one of that family's formats): a task's reference program and one
  test's input, one item per test whose input is literals (a call test's arguments, or
  ``assert candidate(<literals>) == ...``).
- A `TaskSet` of this family's own tasks (``env.tasks.filter(difficulty="easy")``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codegym.envs.output_prediction.generator import Knobs, generate

from codegym.error import InvalidTask, TaskFormatError
from codegym.task import Difficulty, Task, TaskSet, TestCase, as_rows, read_rows

FAMILY = "OutputPrediction"
Direction = Literal["output", "input"]
CRUXEVAL_FIELDS = ("code", "input", "output")
CRUXEVAL_ROW = "a CRUXEval row: code (defining f), input, output, as text; id optional"
MAX_INPUT = 4096  # characters of a derived input kept at most (larger ones are left out)


@dataclass(frozen=True)
class Item:
    """A function and its input; the output too where the source gives it.

    Attributes:
        id: Unique within the set.
        code: The program, defining ``entry_point``.
        input: The arguments' text, as it goes inside ``entry_point(...)``.
        entry_point: The function's name.
        output: The output's literal text, where the source gives it (else computed).
        difficulty: ``easy``, ``medium`` or ``hard``.
        source: Where it comes from (``generated``, ``cruxeval``, a PythonFunction set's name).
        metadata: Extra fields (a generated program's knobs).
    """

    id: str
    code: str
    input: str
    entry_point: str = "f"
    output: str | None = None
    difficulty: Difficulty = "medium"
    source: str = "cruxeval"
    metadata: Mapping[str, Any] = field(default_factory=dict)


def load_items(source: Any, *, count: int = 500, seed: int = 0, knobs: Knobs | None = None) -> tuple[list[Item], str]:
    """The items of ``source`` and the set's name (see the module docstring).

    Raises:
        TaskFormatError: A missing file, a row in no known format, or a malformed row.
    """
    if isinstance(source, str) and source == "generated":
        return generated_items(count, seed=seed, knobs=knobs), f"generated-{seed}"
    if isinstance(source, str) and source in ("codegym-py", "humaneval"):
        return derived_items(_python_function_tasks(source)), source
    if isinstance(source, TaskSet):
        return items_of(source), source.name
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise TaskFormatError(
                f"tasks={str(source)!r} is neither a task source ('generated', 'codegym-py', 'humaneval') nor a file "
                f"(no such file{' (it is a folder)' * path.is_dir()}); expected one of those names, a CRUXEval-format "
                "JSONL/JSON file, or a file of PythonFunction task rows"
            )
        name = path.name.split(".")[0]
        if path.suffix in (".jsonl", ".json"):
            located = read_rows(path, expected=f"{CRUXEVAL_ROW}, or a PythonFunction task row")
            if _is_cruxeval(located[0][1]):
                return cruxeval_items([row for _, row in located], name=name, where=[w for w, _ in located]), name
        return derived_items(_python_function_tasks(path)), name
    rows = as_rows(source)
    if rows is not None:
        if _is_cruxeval(rows[0]):
            return cruxeval_items(rows, name="rows"), "rows"
        return derived_items(_python_function_tasks(rows)), "rows"
    return items_of(TaskSet(source)), "tasks"


def generated_items(count: int, *, seed: int = 0, knobs: Knobs | None = None) -> list[Item]:
    """``count`` generated programs of ``seed`` (each with knobs of its own when None)."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    items = []
    for index in range(count):
        program = generate(seed, index, knobs)
        k = program.knobs
        items.append(Item(f"generated/{seed}/{index}", program.code, program.input, difficulty=k.difficulty,
                          source="generated", metadata={"knobs": {"loop_depth": k.loop_depth, "branches": k.branches,
                          "ops": list(k.ops), "statements": k.statements}}))  # fmt: skip
    return items


def _is_cruxeval(row: Mapping[str, Any]) -> bool:
    """Whether a row is meant as CRUXEval's: it has an ``input`` or an ``output`` (no
    PythonFunction format has either), so that one missing the other is reported as such."""
    return bool({"input", "output"} & set(row))


def cruxeval_items(
    rows: Iterable[Mapping[str, Any]], *, name: str = "rows", where: list[str] | None = None
) -> list[Item]:
    """Items of CRUXEval-format rows (``code`` defining ``f``, ``input``, ``output``, ``id``).
    ``where``: each row's place in errors (``FILE:LINE``; default ``NAME row N``)."""
    items = []
    for number, row in enumerate(rows):
        at = where[number] if where is not None else f"{name} row {number}"
        absent = [key for key in CRUXEVAL_FIELDS if key not in row]
        not_text = [key for key in CRUXEVAL_FIELDS if key in row and not isinstance(row[key], str)]
        if absent or not_text:
            problem = f"missing field(s) {absent}" if absent else f"field(s) {not_text} not text"
            raise TaskFormatError(f"{at}: {problem}: expected CRUXEval fields {CRUXEVAL_FIELDS} (and id) as text "
                                  f"(missing or not text: {absent + not_text}); found {sorted(row)}")  # fmt: skip
        code = str(row["code"])
        if "f" not in _functions(code, at):
            raise TaskFormatError(f"{at}: its code must define the function f (CRUXEval's name)")
        items.append(Item(str(row.get("id", f"{name}/{number}")), code, str(row["input"]), output=str(row["output"]),
                          difficulty=difficulty_of(code), source="cruxeval"))  # fmt: skip
    return items


def derived_items(tasks: TaskSet) -> list[Item]:
    """An item per test of each PythonFunction task that has a reference and whose input is
    literals: the reference program, called with that test's arguments."""
    from codegym.envs.python_function.env import assemble

    items = []
    for task in tasks:
        entry = str(task.metadata.get("callable", task.metadata.get("entry_point", "")))
        if not task.reference or not entry or "." in entry or "suite" in task.metadata:
            continue
        code = task.reference if entry in _functions(task.reference, "") else assemble(task, task.reference)[0]
        code = without_docstrings(code)  # (their examples would give answers away)
        seen: set[str] = set()
        for test in task.tests:
            text = _test_input(task, test, entry)
            if text is None or text in seen or len(text) > MAX_INPUT:
                continue
            seen.add(text)
            items.append(Item(f"{task.id}/{test.name}", code, text, entry_point=entry, difficulty=difficulty_of(code),
                              source=tasks.name))  # fmt: skip
    if not items:
        raise TaskFormatError(f"{tasks.name}: no task has a reference and a test whose input is Python literals")
    return items


def items_of(tasks: TaskSet) -> list[Item]:
    """Items of a task set: this family's own tasks (their metadata), or PythonFunction's."""
    families = {task.family for task in tasks}
    if families == {FAMILY}:
        return [Item(t.id, t.metadata["code"], t.metadata["input"], t.metadata["entry_point"], t.metadata.get("output"),
                     t.difficulty or "medium", t.metadata["source"], dict(t.metadata.get("item", {})))
                for t in tasks]  # fmt: skip
    if families == {"PythonFunction"}:
        return derived_items(tasks)
    raise TaskFormatError(f"a task set of {sorted(families)} tasks: expected {FAMILY} or PythonFunction tasks")


def pose(item: Item, direction: Direction, output: str | None, tolerance: float, invalid: str | None = None) -> Task:
    """The task of ``item``: its prompt in ``direction``, with its output's literal text
    (None until known; ``invalid`` says why it never will be)."""
    call = f"{item.entry_point}({item.input})"
    metadata: dict[str, Any] = {"code": item.code, "input": item.input, "entry_point": item.entry_point,
                                "output": output, "direction": direction, "source": item.source,
                                "item": dict(item.metadata)}  # fmt: skip
    if invalid:
        metadata["invalid"] = invalid
    if direction == "output":
        prompt, reference = output_prompt(item, tolerance), output
    else:
        prompt, reference = input_prompt(item, output if output is not None else f"(unknown: {invalid})"), item.input
    return Task(id=item.id, family=FAMILY, prompt=prompt, tests=(TestCase("prediction", call, hidden=False,
                expected=output),), difficulty=item.difficulty, tags=(item.source, direction),
                reference=reference, metadata=metadata)  # fmt: skip


def output_prompt(item: Item, tolerance: float) -> str:
    call = f"{item.entry_point}({item.input})"
    return (
        f"Predict the output of this Python function.\n\n```python\n{item.code.rstrip()}\n```\n\n"
        f"What does `{call}` return? Answer with a Python literal (such as `[1, 'a']`), or as "
        f"`assert {call} == <literal>`. The type counts: `1`, `1.0` and `True` are different answers, and "
        f"so are a tuple and a list; floats match within {tolerance:g}.\n"
    )


def input_prompt(item: Item, output: str) -> str:
    name = item.entry_point
    return (
        f"Find an input for this Python function that gives the output below.\n\n```python\n"
        f"{item.code.rstrip()}\n```\n\nGive arguments `...` such that `{name}(...) == {output}`. Answer with the "
        f"arguments as Python literals, as they go inside `{name}(...)` (`1, 2` is two arguments, `(1, 2)` one "
        f"tuple), or as the call `{name}(...)`. Any input that gives this output is accepted: it is checked by "
        f"running `{name}` on it.\n"
    )


def difficulty_of(code: str) -> Difficulty:
    """``easy``, ``medium`` or ``hard`` from a program's size, branches and loop nesting."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return "medium"
    statements = sum(isinstance(node, ast.stmt) and not _docstring(node) for node in ast.walk(tree))
    branches = sum(isinstance(node, (ast.If, ast.IfExp)) for node in ast.walk(tree))
    score = 2 * _loop_depth(tree) + branches + statements // 4
    return "easy" if score <= 3 else "medium" if score <= 7 else "hard"


def without_docstrings(code: str) -> str:
    """``code`` less the lines of its docstrings (each on lines of its own); as it is, when
    that would not parse (a body of nothing but its docstring)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    lines = code.splitlines(keepends=True)
    dropped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if _docstring(first) and first.end_lineno is not None:
                start, end = first.lineno - 1, first.end_lineno
                alone = (
                    not lines[start][: first.col_offset].strip() and not lines[end - 1][first.end_col_offset :].strip()
                )
                if alone and len(body) > 1:
                    dropped.update(range(start, end))
    stripped = "".join(line for number, line in enumerate(lines) if number not in dropped)
    try:
        ast.parse(stripped)
    except SyntaxError:
        return code
    return stripped


def _loop_depth(node: ast.AST) -> int:
    loops = (ast.For, ast.While, ast.comprehension)
    inner = max((_loop_depth(child) for child in ast.iter_child_nodes(node)), default=0)
    return inner + isinstance(node, loops)


def _docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _functions(code: str, where: str) -> set[str]:
    """The names of ``code``'s top-level functions (a TaskFormatError naming ``where`` if it
    does not parse; none, when ``where`` is empty)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as e:
        if not where:
            return set()
        raise TaskFormatError(f"{where}: its code does not parse: {e}") from e
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def takes_no_arguments(code: str, entry_point: str) -> bool:
    """Whether ``code``'s top-level function ``entry_point`` can be called with no arguments
    (every parameter has a default, or is ``*args`` / ``**kwargs``): its input may be empty."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in reversed(tree.body):  # (the last definition is the one that counts)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            args = node.args
            positional = len(args.posonlyargs) + len(args.args)
            required_keywords = any(default is None for default in args.kw_defaults)
            return positional == len(args.defaults) and not required_keywords
    return False


def _test_input(task: Task, test: TestCase, entry: str) -> str | None:
    """The argument text of ``test``'s call, when its arguments are literals."""
    call = (task.metadata.get("calls") or {}).get(test.name)
    if call is not None:
        from codegym.envs.output_prediction.grader import as_literal

        try:
            return ", ".join(as_literal(arg) for arg in call["args"])
        except InvalidTask:
            return None
    if test.setup.strip():
        return None
    try:
        statement = ast.parse(test.code).body
    except SyntaxError:
        return None
    node = statement[0] if len(statement) == 1 else None
    if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
            and isinstance(node.test.ops[0], ast.Eq) and isinstance(node.test.left, ast.Call)):  # fmt: skip
        return None
    called = node.test.left
    if not isinstance(called.func, ast.Name) or called.func.id not in ("candidate", entry) or called.keywords:
        return None
    try:
        for arg in called.args:
            ast.literal_eval(arg)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None
    return ", ".join(ast.get_source_segment(test.code, arg) or ast.unparse(arg) for arg in called.args)


def _python_function_tasks(source: Any) -> TaskSet:
    from codegym.envs.python_function.tasks import load_tasks

    return load_tasks(source)


def knobs_of(value: Knobs | Mapping[str, Any] | None) -> Knobs | None:
    """``knobs=`` as `Knobs` (a mapping of its fields works too)."""
    if value is None or isinstance(value, Knobs):
        return value
    unknown = set(value) - {"loop_depth", "branches", "ops", "statements"}
    if unknown:
        raise ValueError(f"unknown knobs {sorted(unknown)}; expected loop_depth, branches, ops, statements")
    return Knobs(**value)
