"""The tutorial's command lines for a family of one's own (``--env module:id``) run as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial_new_family.md"
# A package `mylab` whose import registers mylab/SQLQuery-v0: here an existing family under that id,
# since what is checked is how the command finds a family outside codegym, not the tutorial's grader.
PACKAGE = """\
import gymnasium as gym

gym.register(id="mylab/SQLQuery-v0", entry_point="codegym.envs.python_function.env:PythonFunctionEnv")
"""
TASK = {
    "task_id": "mylab/0",
    "prompt": 'def double(x: int) -> int:\n    """Twice x."""\n',
    "canonical_solution": "    return 2 * x\n",
    "test": "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-3) == -6\n",
    "entry_point": "double",
}


def tutorial_commands() -> list[list[str]]:
    """The ``codegym ...`` lines of the tutorial's text blocks, as words."""
    text = TUTORIAL.read_text(encoding="utf-8")
    blocks = re.findall(r"^```text\n(.*?)^```$", text, re.M | re.S)
    return [shlex.split(line) for block in blocks for line in block.splitlines() if line.startswith("codegym ")]


def test_the_tutorial_shows_module_id_commands() -> None:
    commands = tutorial_commands()
    assert [words[1] for words in commands] == ["score", "validate"]
    assert all(any(re.fullmatch(r"[\w.]+:[\w.]+/[\w.]+-v\d+", word) for word in words) for words in commands)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("words", tutorial_commands(), ids=lambda words: words[1])
def test_tutorial_command_runs(words: list[str], tmp_path: Path) -> None:
    (tmp_path / "mylab").mkdir()
    (tmp_path / "mylab" / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (tmp_path / "sql_tasks.jsonl").write_text(json.dumps(TASK) + "\n", encoding="utf-8")
    sample = {"task_id": "mylab/0", "completion": TASK["prompt"] + TASK["canonical_solution"]}
    (tmp_path / "samples.jsonl").write_text(json.dumps(sample) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    command = [sys.executable, "-m", "codegym.cli", *words[1:]]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, f"{shlex.join(words)}: exit {done.returncode}\n{done.stderr}\n{done.stdout}"
    if words[1] == "score":
        (result,) = [json.loads(line) for line in (tmp_path / "samples_results.jsonl").read_text().splitlines()]
        assert result["task_id"] == "mylab/0" and result["status"] == "OK", result
