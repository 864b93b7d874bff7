"""What the public data sets' loaders share (see `codegym.envs.optimize.sources`): reading
rows, turning them into tasks one by one, fields, and the imports a harness gave programs."""

from __future__ import annotations

import ast
import builtins
import importlib
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from codegym.envs.optimize.tasks import load_tasks

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, as_rows, read_rows, row_errors, shown

logger = logging.getLogger(__name__)

Row = Mapping[str, Any]
Rows = str | Path | Iterable[Row] | Any
# PIE's tests in memory: problem id -> (input, output) pairs, or {"input", "output"} objects.
PieTests = Mapping[str, Sequence[Any]]
# A harness's scope, in the order it builds it (a later binding wins): ``(module, None)`` is
# ``import module``, ``(module, ("*",))`` a star import, ``(module, names)`` those names.
Scope = tuple[tuple[str, tuple[str, ...] | None], ...]

CALLS_PER_TEST = 10  # hidden calls run in one process (a test each call would start a process each)
LANGUAGES = {"c++": "cpp", "cpp": "cpp", "c": "c", "python": "python", "python3": "python", "py": "python"}


class SkippedRow(TaskFormatError):
    """A well-formed row that cannot become an Optimize task. Loaders leave it out with a
    warning; a source of nothing else fails with the first such row's reason."""


# --- shared ------------------------------------------------------------------------------------


def source_rows(source: Rows, expected: str, argument: str) -> list[tuple[str, Row]]:
    """``source``'s rows, each with where it is (``FILE:LINE`` or ``row N``)."""
    if isinstance(source, (str, Path)):
        return read_rows(source, expected=expected)
    rows = as_rows(source)
    if rows is None:
        raise TaskFormatError(
            f"{argument}= must be a JSON/JSONL file (gzipped or not) or rows in memory (a non-empty list of dicts, "
            f"or a datasets.Dataset), got {type(source).__name__}: {shown(source, 60)}; each row is {expected}"
        )
    return [(f"row {i}", row) for i, row in enumerate(rows)]


def task_set(rows: list[tuple[str, Row]], convert: Callable[[str, Row], dict[str, Any]], *, name: str,
              expected: str) -> TaskSet:  # fmt: skip
    """The tasks of the rows ``convert`` makes Optimize rows of, checked one by one by
    `load_tasks`; rows it skips are counted in a warning."""
    tasks: list[Task] = []
    skipped: list[SkippedRow] = []
    for where, row in rows:
        try:
            with row_errors(where, expected, passing=(SkippedRow,)):
                tasks.append(checked(where, convert(where, row)))
        except SkippedRow as e:
            skipped.append(e)
    if not tasks:
        if not skipped:
            raise TaskFormatError(f"{name}: no rows; expected rows of {expected}")
        raise TaskFormatError(f"{name}: none of the {len(rows)} row(s) can be an Optimize task; {skipped[0]}")
    if skipped:
        logger.warning("%s: left out %d of %d row(s) that cannot be Optimize tasks, e.g. %s", name, len(skipped),
                       len(rows), skipped[0])  # fmt: skip
    return TaskSet(tasks, name=name)


def checked(where: str, row: dict[str, Any]) -> Task:
    """The task of one converted row (as `load_tasks` reads it), its errors naming ``where``."""
    try:
        return next(iter(load_tasks([row])))
    except TaskFormatError as e:
        raise TaskFormatError(f"{where}: {str(e).removeprefix('row 0: ')}") from e


def field(row: Row, where: str, names: tuple[str, ...], what: str, expected: str) -> str:
    """The first of ``names`` that ``row`` gives (a string), else an error naming them."""
    value = optional_field(row, names)
    if value is None:
        first, others = names[0], names[1:]
        also = f"; also read as {' or '.join(map(repr, others))}" if others else ""
        raise TaskFormatError(f"{where}: missing field {first!r} ({what}{also}); expected {expected}; this row "
                              f"has {sorted(row)}")  # fmt: skip
    return value


def optional_field(row: Row, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = row.get(name)
        if value is not None and value != "":
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise TaskFormatError(f"field {name!r} must be a string, got {shown(value)}")
            return str(value)
    return None


def difficulty(value: Any) -> str | None:
    word = str(value or "").strip().lower()
    return word if word in ("easy", "medium", "hard") else None


def unfenced(code: str) -> str:
    """``code``, or the first fenced block in it (model completions come in Markdown)."""
    match = re.search(r"```[\w+-]*[ \t]*\n(.*?)```", code, re.DOTALL)
    return match[1] if match else code


def scoped(source: str, scope: Scope, where: str) -> str:
    """``source`` after the imports of the names it uses unbound that ``scope`` binds."""
    try:
        module = ast.parse(source)
    except SyntaxError as e:
        raise SkippedRow(f"{where}: not Python ({e.msg}, line {e.lineno})") from e
    wanted: dict[tuple[str, bool], list[str]] = {}
    for name in sorted(free_names(module)):
        binding = next(((m, names) for m, names in reversed(scope) if name in binds(m, names)), None)
        if binding is not None:
            wanted.setdefault((binding[0], binding[1] is None), []).append(name)
    lines = [f"import {m}" if plain else f"from {m} import {', '.join(names)}"
             for (m, plain), names in sorted(wanted.items())]  # fmt: skip
    return "\n".join(lines) + "\n\n" + source if lines else source


def binds(module: str, names: tuple[str, ...] | None) -> frozenset[str]:
    if names is None:
        return frozenset({module})
    return exports(module) if names == ("*",) else frozenset(names)


@cache
def exports(module: str) -> frozenset[str]:
    """The names ``from module import *`` binds."""
    imported = importlib.import_module(module)
    return frozenset(getattr(imported, "__all__", None) or (n for n in dir(imported) if not n.startswith("_")))


def free_names(module: ast.Module) -> set[str]:
    """The names ``module`` reads that it binds nowhere and that are not builtins."""
    read, bound = set(), set()
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return read - bound - set(dir(builtins))
