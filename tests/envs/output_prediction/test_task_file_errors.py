"""Bad OutputPrediction task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.output_prediction.tasks import load_items

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/OutputPrediction-v1"
GOOD = {"id": "sample_0", "code": "def f(x):\n    return x + 1\n", "input": "1", "output": "2"}  # CRUXEval's format

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD),
    "a missing field": (
        rows(GOOD, {k: v for k, v in GOOD.items() if k != "output"}),
        2,
        ["missing field(s) ['output']"],
    ),
    "a field of the wrong type": (rows({**GOOD, "input": 1}), 1, ["field(s) ['input'] not text"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", load_items, ENV, capsys)
