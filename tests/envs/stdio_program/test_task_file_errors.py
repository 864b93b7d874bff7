"""Bad StdioProgram task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.stdio_program.tasks import load_tasks

from codegym.error import TaskFormatError

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/StdioProgram-v0"
GOOD = {"task_id": "echo", "prompt": "Print the input.", "tests": [{"input": "1\n", "output": "1\n"}]}

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD),
    "a missing field": (rows(GOOD, {"task_id": "b", "prompt": "p"}), 2, ["plain (missing 'tests')"]),
    "a field of the wrong type": (rows({**GOOD, "tests": "1"}), 1, ["field 'tests' must be a list, got string"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", load_tasks, ENV, capsys)


def test_rows_in_memory_are_named_by_index() -> None:
    with pytest.raises(TaskFormatError, match=r"^row 1: field 'tests' must be a list, got string"):
        load_tasks([GOOD, {**GOOD, "task_id": "b", "tests": "1"}])


def test_a_json_array_row_is_named_by_the_line_it_starts_on(tmp_path: Path) -> None:
    first, second = json.dumps(GOOD, indent=2), json.dumps({**GOOD, "task_id": "b"}, indent=2)
    bad = json.dumps({**GOOD, "task_id": "c", "tests": "1"})
    path = tmp_path / "tasks.json"
    path.write_text(f"[\n{first},\n\n{second}, {bad}\n]\n")
    line = 1 + first.count("\n") + 1 + 1 + second.count("\n") + 1  # (the third item starts on the second's last)
    with pytest.raises(TaskFormatError, match=rf"^{path}:{line}: field 'tests' must be a list, got string"):
        load_tasks(path)
