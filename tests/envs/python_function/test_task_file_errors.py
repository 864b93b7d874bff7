"""Bad PythonFunction task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.python_function.tasks import load_tasks

from codegym.cli import main
from codegym.error import TaskFormatError

ENV = "codegym/PythonFunction-v0"
GOOD = {"task_id": "Mine/0", "prompt": 'def f(x):\n    """Add one."""\n', "canonical_solution": "    return x + 1\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n", "entry_point": "f"}  # fmt: skip


def rows(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


# A case: the file's text (None: no file), the line the error names (None: the file only), and
# words the message holds (the field's name among them).
CASES: dict[str, tuple[str | None, int | None, list[str]]] = {
    "a missing file": (None, None, ["no such file"]),
    "an empty file": ("", None, ["the file is empty"]),
    "a line that is not JSON": (f"{json.dumps(GOOD)}\n{{oops\n", 2, ["not JSON", "'{oops'"]),
    "a missing field": (
        rows(GOOD, {k: v for k, v in GOOD.items() if k != "test"}),
        2,
        ["nearest format", "humaneval (missing 'test')"],
    ),
    "a field of the wrong type": (rows({**GOOD, "prompt": 5}), 1, ["field 'prompt' must be a string, got number 5"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    text, line, words = CASES[case]
    path = tmp_path / "tasks.jsonl"
    if text is not None:
        path.write_text(text)
    where = f"{path}:{line}" if line else str(path)
    with pytest.raises(TaskFormatError) as raised:
        load_tasks(path)
    assert where in str(raised.value) and all(word in str(raised.value) for word in words), raised.value
    assert main(["validate", ENV, "--tasks", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("codegym validate: error: ") and where in err and all(word in err for word in words)
    assert "Traceback" not in err


def test_rows_in_memory_are_named_by_index() -> None:
    with pytest.raises(TaskFormatError, match=r"^row 1: field 'prompt' must be a string, got number 5$"):
        load_tasks([GOOD, {**GOOD, "task_id": "Mine/1", "prompt": 5}])
    with pytest.raises(TaskFormatError, match=r"(?s)^row 0: expected MBPP fields.*humaneval \(missing 'test'\)"):
        load_tasks([{k: v for k, v in GOOD.items() if k != "test"}])
