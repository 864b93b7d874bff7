"""Bad repository-repair task files (the JSON `codegym repo build` writes) and SWE-bench JSONL:
each error names the file, the line and the field, from Python and from the command line (exit
status 2, no traceback), before any library is fetched or checkout read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.repo_repair.tasks import DATA, load_library_file, load_swe_bench

from ..task_file_errors import Case, assert_load_rejects, assert_rejected  # noqa: TID252

ENV = "codegym/RepoRepair-v1"
BUNDLED = (DATA / "toolz.json").read_text()
FIRST = next(i for i, line in enumerate(BUNDLED.splitlines()) if line.startswith("    {"))  # the first task row


def with_first_row(change: dict[str, object], drop: str = "") -> str:
    """The bundled task file with its first task row changed."""
    lines = BUNDLED.splitlines()
    row = {k: v for k, v in json.loads(lines[FIRST].strip().rstrip(",")).items() if k != drop} | change
    lines[FIRST] = "    " + json.dumps(row, sort_keys=True) + ("," if lines[FIRST].endswith(",") else "")
    return "\n".join(lines) + "\n"


def without(field: str) -> str:
    return json.dumps({k: v for k, v in json.loads(BUNDLED).items() if k != field})


TASK_FILE_CASES: dict[str, Case] = {
    "a missing file": (None, None, ["no such file"]),
    "an empty file": ("", None, ["the file is empty"]),
    "a line that is not JSON": (BUNDLED.replace('"tasks": [', '"tasks": [ oops', 1), FIRST, ["not JSON", "oops"]),
    "a missing field of the file": (without("passing"), None, ["missing field 'passing'"]),
    "a missing field of a task": (with_first_row({}, drop="kind"), FIRST + 1, ["missing field 'kind'"]),
    "a field of the wrong type": (with_first_row({"index": "first"}), FIRST + 1, ["field 'index' must be an integer"]),
}


@pytest.mark.parametrize("case", TASK_FILE_CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    assert_rejected(TASK_FILE_CASES[case], tmp_path / "tasks.json", load_library_file, ENV, capsys, at_start=True)


ROW = {"instance_id": "acme__shapes-1", "repo": "acme/shapes", "base_commit": "0" * 40, "patch": "", "test_patch": "",
       "FAIL_TO_PASS": '["tests/test_area.py::test_area"]', "PASS_TO_PASS": "[]"}  # fmt: skip
SWE_CASES: dict[str, Case] = {
    "a missing file": (None, None, ["no such file"]),
    "an empty file": ("\n", None, ["the file is empty"]),
    "a line that is not JSON": (f"{json.dumps(ROW)}\n{{oops\n", 2, ["not JSON", "'{oops'"]),
    "a missing field": (json.dumps({k: v for k, v in ROW.items() if k != "test_patch"}), 1, ["missing ['test_patch']"]),
    "a field of the wrong type": (json.dumps({**ROW, "PASS_TO_PASS": 5}), 1, ["field 'PASS_TO_PASS' must be a list"]),
    "a list that is not one": (json.dumps({**ROW, "FAIL_TO_PASS": "tests/x.py"}), 1, ["'FAIL_TO_PASS'", "lists of"]),
}


@pytest.mark.parametrize("case", SWE_CASES)
def test_a_bad_swe_bench_file_names_the_file_line_and_field(case: str, tmp_path: Path) -> None:
    checkouts = {"acme/shapes": tmp_path / "no-checkout"}
    assert_load_rejects(
        SWE_CASES[case], tmp_path / "instances.jsonl", lambda p: load_swe_bench(p, checkouts), at_start=True
    )
