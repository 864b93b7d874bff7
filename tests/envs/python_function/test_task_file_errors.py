"""Bad PythonFunction task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.python_function.tasks import load_tasks

from codegym.error import TaskFormatError

from ..task_file_errors import Case, assert_rejected, jsonl_cases, rows  # noqa: TID252

ENV = "codegym/PythonFunction-v0"
GOOD = {"task_id": "Mine/0", "prompt": 'def f(x):\n    """Add one."""\n', "canonical_solution": "    return x + 1\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n", "entry_point": "f"}  # fmt: skip

CASES: dict[str, Case] = {
    **jsonl_cases(GOOD),
    "a missing field": (
        rows(GOOD, {k: v for k, v in GOOD.items() if k != "test"}),
        2,
        ["nearest format", "humaneval (missing 'test')"],
    ),
    "a field of the wrong type": (rows({**GOOD, "prompt": 5}), 1, ["field 'prompt' must be a string, got number 5"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(CASES[case], tmp_path / "tasks.jsonl", load_tasks, ENV, capsys)


def test_rows_in_memory_are_named_by_index() -> None:
    with pytest.raises(TaskFormatError, match=r"^row 1: field 'prompt' must be a string, got number 5$"):
        load_tasks([GOOD, {**GOOD, "task_id": "Mine/1", "prompt": 5}])
    with pytest.raises(TaskFormatError, match=r"(?s)^row 0: expected MBPP fields.*humaneval \(missing 'test'\)"):
        load_tasks([{k: v for k, v in GOOD.items() if k != "test"}])
