"""PyContracts tasks: the bundled set's shape, the task file format, rows and folders, and the
errors of a malformed task (no sandbox involved)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from codegym.envs.pycontracts.tasks import DATA, load_tasks

from codegym.error import TaskFormatError

ROW = {
    "id": "double",
    "description": "Return twice `n`.",
    "reference": "def double(n: int) -> int:\n    return 2 * n\n",
    "pre": ["n >= 0"],
    "post": ["__return__ - n == n", "__return__ >= n"],
    "examples": ["assert double(2) == 4"],
    "tests": ["assert double(0) == 0", "assert double(7) == 14"],
}


def test_the_bundled_set_has_varied_tasks_with_hidden_contracts() -> None:
    tasks = list(load_tasks("codegym-contracts"))
    assert len(tasks) >= 40
    kinds = {annotation for t in tasks for _, annotation in t.metadata["params"]}
    assert {"int", "str", "list[int]", "dict[str, int]", "list[str]"} <= kinds
    for task in tasks:
        post, examples = task.metadata["post"], [t for t in task.tests if not t.hidden]
        assert 2 <= len(post) <= 4 and examples and len(task.tests) - len(examples) >= 4, task.id
        assert not task.invalid and task.reference and "post:" not in task.reference, task.id
        assert task.metadata["inputs"].keys() == {t.name for t in task.tests}, task.id  # (all literal calls)
        assert task.metadata["given"].splitlines()[0] in task.prompt
        assert all(e.code in task.prompt for e in examples)
        assert not any(condition in task.prompt for condition in post), task.id  # (preconditions are described)


def test_each_bundled_task_file_passes_its_own_tests_when_run() -> None:
    files = sorted((DATA / "codegym-contracts").glob("*.py"))
    script = "import runpy, sys\nfor path in sys.argv[1:]:\n    runpy.run_path(path)\n"
    done = subprocess.run([sys.executable, "-c", script, *map(str, files)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_task_file_splits_into_description_contract_reference_and_tests() -> None:
    task = load_tasks("codegym-contracts").get("codegym-contracts/int_sqrt")
    assert task.prompt.startswith("Integer square root.")
    assert task.metadata["pre"] == ("0 <= n <= 10**6",) and len(task.metadata["post"]) == 3
    assert task.reference == "import math\n\n\ndef int_sqrt(n: int) -> int:\n    return math.isqrt(n)\n"
    assert [t.name for t in task.tests if not t.hidden] == ["example_1", "example_2"]
    assert task.metadata["inputs"]["test_5"] == [10**6]


def test_rows_with_fields_or_a_file_and_folders_load(tmp_path: Path) -> None:
    (task,) = load_tasks([ROW])
    assert task.id == "double" and task.metadata["params"] == (("n", "int"),) and task.metadata["returns"] == "int"
    assert task.metadata["post"] == tuple(ROW["post"]) and task.metadata["inputs"]["test_2"] == [7]
    text = (DATA / "codegym-contracts" / "clamp.py").read_text()
    (from_source,) = load_tasks([{"id": "c", "source": text}])
    assert from_source.metadata["entry_point"] == "clamp"
    (tmp_path / "mine.py").write_text(text)
    (from_folder,) = load_tasks(tmp_path)
    assert from_folder.id == f"{tmp_path.name}/mine" and from_folder.metadata == from_source.metadata


MALFORMED = {
    "no postcondition": ({"post": []}, "expected 'post', a list of Python expressions"),
    "a condition that is not an expression": ({"post": ["x ="]}, "is not an expression"),
    "an unannotated parameter": ({"reference": "def double(n):\n    return 2 * n\n"}, "needs a type annotation"),
    "a default": ({"reference": "def double(n: int = 1) -> int:\n    return 2 * n\n"}, "plain positional"),
    "no return annotation": ({"reference": "def double(n: int):\n    return 2 * n\n"}, "return annotation"),
    "a test that is no assert": ({"tests": ["double(1)"]}, "must be one assert statement"),
    "no hidden test": ({"tests": []}, "expected 'tests'"),
    "a reference that does not parse": ({"reference": "def double(n: int) -> int\n"}, "does not parse"),
    "two functions, none named": (
        {"reference": "def a(n: int) -> int:\n    return n\n\n\ndef b(n: int) -> int:\n    return n\n"},
        "one function",
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_row_says_what_is_wrong(name: str) -> None:
    change, message = MALFORMED[name]
    with pytest.raises(TaskFormatError, match=message):
        load_tasks([{**ROW, **change}])


def test_a_malformed_file_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match="docstring"):
        load_tasks([{"id": "x", "source": "def f(n: int) -> int:\n    return n\n"}])
    with pytest.raises(TaskFormatError, match="one function whose docstring holds `post:` lines, found 0"):
        load_tasks([{"id": "x", "source": '"""About."""\n\n\ndef f(n: int) -> int:\n    return n\n'}])
    with pytest.raises(TaskFormatError, match="no task files"):
        load_tasks(tmp_path)


def test_a_reference_the_gate_refuses_marks_its_task_invalid() -> None:
    (task,) = load_tasks([{**ROW, "reference": "import os\n\n\ndef double(n: int) -> int:\n    return 2 * n\n"}])
    assert task.invalid and "does not pass the gate" in task.invalid and "import of os" in task.invalid
