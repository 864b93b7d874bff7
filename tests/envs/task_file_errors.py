"""What every family's task-file error tests share: the cases that any JSONL file can get
wrong, and the checks that the error names the file, the line and the field, both from Python
and from `codegym validate` (exit status 2, the error on stderr, no traceback).

A case is ``(text, line, words)``: the file's text (None: no file at all), the line the error
names (None: the file only) and words the message must hold (the field's name among them).

The family tests import it relatively, ``from ..task_file_errors import ...  # noqa: TID252``:
``tests/`` has no ``__init__.py`` (pytest's importlib mode makes the packages), and an absolute
``tests.envs`` would resolve elsewhere than under pytest, to the ``tests`` package that verl and
pyverilog install.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from codegym.cli import main
from codegym.error import TaskFormatError

Case = tuple[str | None, int | None, list[str]]
CLI_ERROR = "codegym validate: error: "


def rows(*records: Mapping[str, Any]) -> str:
    """The JSONL text of ``records``, one a line."""
    return "".join(json.dumps(record) + "\n" for record in records)


def jsonl_cases(good: Mapping[str, Any], *, missing: str = "no such file") -> dict[str, Case]:
    """The cases of a JSONL task file that do not depend on its fields: no file (its message
    holds ``missing``), an empty file, and a second line that is not JSON after ``good``."""
    return {
        "a missing file": (None, None, [missing]),
        "an empty file": ("", None, ["the file is empty"]),
        "a line that is not JSON": (f"{json.dumps(good)}\n{{oops\n", 2, ["not JSON", "'{oops'"]),
    }


def assert_load_rejects(case: Case, path: Path, load: Callable[[Path], object], *, at_start: bool = False) -> str:
    """Writes ``case``'s file at ``path`` and checks that ``load(path)`` raises a
    `TaskFormatError` naming ``path:line`` (at its start with ``at_start``) and every word.

    Returns:
        The place the message names: ``path:line``, or ``path`` when the case names no line.
    """
    text, line, words = case
    if text is not None:
        path.write_text(text)
    where = f"{path}:{line}" if line else str(path)
    with pytest.raises(TaskFormatError) as raised:
        load(path)
    message = str(raised.value)
    named = message.startswith(where) if at_start else where in message
    assert named and all(word in message for word in words), message
    return where


def assert_rejected(
    case: Case,
    path: Path,
    load: Callable[[Path], object],
    env: str,
    capsys: pytest.CaptureFixture[str],
    *,
    at_start: bool = False,
) -> None:
    """`assert_load_rejects`, then the same from ``codegym validate env --tasks path``: exit
    status 2 and an error on stderr naming the place and every word, with no traceback."""
    where = assert_load_rejects(case, path, load, at_start=at_start)
    assert main(["validate", env, "--tasks", str(path)]) == 2
    err = capsys.readouterr().err
    named = err.startswith(CLI_ERROR + where) if at_start else err.startswith(CLI_ERROR) and where in err
    assert named and all(word in err for word in case[2]), err
    assert "Traceback" not in err
