"""Bad OutputPrediction task files: each error names the file, the line and the field, from Python
and from the command line (exit status 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.output_prediction.tasks import load_items

from codegym.cli import main
from codegym.error import TaskFormatError

ENV = "codegym/OutputPrediction-v1"
GOOD = {"id": "sample_0", "code": "def f(x):\n    return x + 1\n", "input": "1", "output": "2"}  # CRUXEval's format


def rows(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


# A case: the file's text (None: no file), the line the error names (None: the file only), and
# words the message holds (the field's name among them).
CASES: dict[str, tuple[str | None, int | None, list[str]]] = {
    "a missing file": (None, None, ["no such file"]),
    "an empty file": ("", None, ["the file is empty"]),
    "a line that is not JSON": (f"{json.dumps(GOOD)}\n{{oops\n", 2, ["not JSON", "'{oops'"]),
    "a missing field": (
        rows(GOOD, {k: v for k, v in GOOD.items() if k != "output"}),
        2,
        ["missing field(s) ['output']"],
    ),
    "a field of the wrong type": (rows({**GOOD, "input": 1}), 1, ["field(s) ['input'] not text"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_task_file_names_the_file_line_and_field(case: str, tmp_path: Path, capsys) -> None:
    text, line, words = CASES[case]
    path = tmp_path / "tasks.jsonl"
    if text is not None:
        path.write_text(text)
    where = f"{path}:{line}" if line else str(path)
    with pytest.raises(TaskFormatError) as raised:
        load_items(path)
    assert where in str(raised.value) and all(word in str(raised.value) for word in words), raised.value
    assert main(["validate", ENV, "--tasks", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("codegym validate: error: ") and where in err and all(word in err for word in words)
    assert "Traceback" not in err
