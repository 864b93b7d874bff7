"""``codegym list ENV`` and ``codegym show ENV TASK_ID``: a task set's ids with difficulty, test
tiers and test counts; a task's prompt as the model reads it."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

from codegym.cli import main

TASK = {
    "task_id": "mylab/0",
    "prompt": 'def double(x: int) -> int:\n    """Twice x."""\n',
    "canonical_solution": "    return 2 * x\n",
    "test": "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-3) == -6\n",
    "entry_point": "double",
}


def task_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(TASK) + "\n", encoding="utf-8")
    return path


def test_list_env_prints_each_task_with_difficulty_and_tiers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "codegym/Verilog-v1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    env = gym.make("codegym/Verilog-v1")
    tasks = list(env.unwrapped.tasks)  # type: ignore[attr-defined]
    env.close()
    assert lines[0].split() == ["task", "id", "difficulty", "tiers", "tests", "(public/hidden)"]
    rows = [line.split() for line in lines[1:-1]]
    assert [row[0] for row in rows] == [task.id for task in tasks]
    for row, task in zip(rows, tasks, strict=True):
        tiers = ",".join(sorted({test.tier for test in task.tests if test.tier})) or "-"
        assert row[1:4] == [task.difficulty, tiers, f"{len(task.public_tests)}/{len(task.hidden_tests)}"]
    assert lines[-1].startswith(f"{len(tasks)} tasks in 'codegym-verilog' (") and "easy" in lines[-1]


def test_list_reads_a_task_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "codegym/PythonFunction-v0", "--tasks", str(task_file(tmp_path))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["mylab/0", "-", "-", "1/1"] and lines[-1].startswith("1 task in ")


def test_list_without_an_env_names_the_envs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == sorted(i for i in gym.registry if i.startswith("codegym/"))
    assert main(["list", "--tasks", "codegym-py"]) == 2
    assert "--tasks and --option need an env" in capsys.readouterr().err


def test_show_prints_the_prompt_the_model_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = str(task_file(tmp_path))
    assert main(["show", "codegym/PythonFunction-v0", "mylab/0", "--tasks", source]) == 0
    env = gym.make("codegym/PythonFunction-v0", tasks=source)
    observation, _ = env.reset(options={"task_id": "mylab/0"})
    env.close()
    shown = capsys.readouterr().out
    assert shown == observation["prompt"] + "\n" and TASK["prompt"] in shown


def test_show_takes_env_options_and_names_an_unknown_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "codegym/Dafny-v1", "codegym-dafny/abs-sum", "--option", "task_kind=spec"]) == 0
    assert "Write the `requires` and `ensures` clauses of `SumOfAbs`" in capsys.readouterr().out
    assert main(["show", "codegym/StdioProgram-v0", "no-such-task"]) == 2
    assert "task 'no-such-task' is not in task set 'codegym-stdio'" in capsys.readouterr().err
