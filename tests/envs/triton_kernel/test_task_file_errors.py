"""Bad TritonKernel task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.triton_kernel.tasks import DATA, load_tasks

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/TritonKernel-v0"
GOOD = {"code": sorted((DATA / "problems").glob("*.py"))[0].read_text(), "name": "first"}  # a KernelBench row

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD, missing="no such file or folder"),
    "a missing field": (rows(GOOD, {"code": GOOD["code"]}), 2, ["missing ['name']"]),
    "a field of the wrong type": (
        rows({**GOOD, "level": [1]}),
        1,
        ["field 'level' must be an integer or a string, got array"],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", load_tasks, ENV, capsys)
