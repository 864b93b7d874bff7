"""Bad Verilog task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.verilog.tasks import DATA, load_tasks

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/Verilog-v1"
GOOD = json.loads((DATA / "problems.json").read_text())[0]  # a bundled record

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD, missing="no such file or folder"),
    "a missing field": (rows(GOOD, {k: v for k, v in GOOD.items() if k != "spec"}), 2, ["missing ['spec']"]),
    "a field of the wrong type": (rows({**GOOD, "ports": "a"}), 1, ["field 'ports' must be a list, got string"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", load_tasks, ENV, capsys)
