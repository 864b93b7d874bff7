"""Bad TestGeneration task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/TestGeneration-v1"
GOOD = {"task_id": 1, "text": "Add one to x.", "code": "def add_one(x):\n    return x + 1\n",
        "test_list": ["assert add_one(1) == 2"]}  # MBPP's format  # fmt: skip

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD),
    "a missing field": (rows({k: v for k, v in GOOD.items() if k != "code"}), 1, ["mbpp (missing 'code')"]),
    "a field of the wrong type": (
        rows({**GOOD, "test_list": "assert add_one(1) == 2"}),
        1,
        ["field 'test_list' must be a list, got string"],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", lambda path: gym.make(ENV, tasks=str(path)), ENV, capsys)
