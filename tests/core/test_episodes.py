"""Recording episodes: one line per episode, read back equal, in every mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from codegym.episodes import RECORD_VERSION, RecordEpisodes, read_episodes, regrade, task_digest
from codegym.executor import Executor
from codegym.grade import Grade, Status

TASK = "HumanEval/2"
WRONG = "def truncate_number(number):\n    return 1 / 0\n"
RIGHT = "def truncate_number(number):\n    return number % 1.0\n"
AGENT_TASK = "codegym-py/001-count-vowel-runs"


def make(executor: Executor, tasks: str = "codegym-py", **kwargs: Any) -> gym.Env:
    return gym.make("codegym/PythonFunction-v0", tasks=tasks, executor=executor, **kwargs)


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def test_a_refine_episode_is_one_line_with_every_grade_and_the_trainer_s_tokens(executor, tmp_path: Path) -> None:
    path = tmp_path / "runs" / "episodes.jsonl"
    env = RecordEpisodes(make(executor, tasks="humaneval", mode="refine", max_episode_steps=4), path)
    env.reset(seed=3, options={"task_id": TASK})
    env.note(token_ids=np.array([5, 7, 9], dtype=np.int32), logprobs=[-0.5, -0.25, -1.0])
    _, first_reward, *_, first_info = env.step("```python\n" + WRONG + "```")
    _, reward, terminated, _, info = env.step(RIGHT)
    assert terminated and reward == 1.0
    [line] = path.read_text().splitlines()
    assert json.loads(line)["version"] == RECORD_VERSION
    [episode] = read_episodes(path)
    core = env.unwrapped
    assert episode["env_id"] == "codegym/PythonFunction-v0" and episode["mode"] == "refine"
    assert episode["env_kwargs"]["mode"] == "refine" and episode["env_kwargs_not_recorded"] == {
        "executor": "LocalExecutor"
    }
    assert episode["task"] == {"id": TASK, "family": core.family, "digest": task_digest(core.tasks.get(TASK))}
    assert episode["reset"]["seed"] == 3 and episode["reset"]["options"] == {"task_id": TASK}
    wrong, right = episode["steps"]
    assert wrong["action"] == "```python\n" + WRONG + "```"  # (as the model gave it; the env took the code out)
    assert wrong["info"]["code"] == WRONG and wrong["reward"] == first_reward
    grade = wrong["info"]["grade"]
    assert isinstance(grade, Grade) and grade == first_info["grade"] and grade.status is Status.WA
    assert any("ZeroDivisionError" in (test.trace or "") + (test.got or "") for test in grade.tests)
    assert [test.passed for test in grade.tests] == [test.passed for test in first_info["grade"].tests]
    generation = wrong["generation"]
    assert generation["logprobs"] == [-0.5, -0.25, -1.0] and generation["token_ids"].dtype == np.int32
    assert generation["token_ids"].tolist() == [5, 7, 9] and "generation" not in right  # (a note is for one step)
    assert right["info"]["grade"] == info["grade"] and right["terminated"] and right["seconds"] > 0
    assert (episode["ended"], episode["return"]) == ("terminated", first_reward + 1.0)
    assert wrong["observation"]["feedback"] and "tool_calls" not in wrong


def test_an_abandoned_episode_and_one_open_at_close_are_written_too(executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(make(executor, tasks="humaneval", mode="refine", max_episode_steps=4), path)
    env.reset(options={"task_id": TASK})
    env.step(WRONG)
    env.reset(options={"task_id": TASK})  # (the first episode is left unfinished)
    env.close()
    abandoned, still_open = read_episodes(path)
    assert abandoned["ended"] == "abandoned" and len(abandoned["steps"]) == 1 and abandoned["return"] == 0.0
    assert still_open["ended"] == "open" and still_open["steps"] == []
    assert abandoned["episode"] != still_open["episode"]


def test_a_truncated_single_shot_and_a_time_limit_end_the_line(executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(make(executor, tasks="humaneval", mode="refine", max_episode_steps=1), path)
    env.reset(options={"task_id": TASK})
    assert env.step(WRONG)[3]  # (truncated by the time limit)
    env = RecordEpisodes(make(executor, tasks="humaneval"), path)
    env.reset(options={"task_id": TASK})
    env.step(RIGHT)
    truncated, single = read_episodes(path)
    assert truncated["ended"] == "truncated" and single["ended"] == "terminated" and single["mode"] == "single"


def test_agent_mode_records_the_tool_calls_and_their_results(executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor), path)
    env.reset(options={"task_id": AGENT_TASK})
    reference = env.unwrapped.task.reference
    env.step(call("str_replace_editor", command="create", path="solution.py", file_text=reference) + " and "
             + call("nonexistent"))  # fmt: skip
    env.step(call("bash", command="./run_tests"))
    *_, info = env.step(call("submit"))
    assert info["status"] == "OK"
    [episode] = read_episodes(path)
    assert episode["reset"]["info"]["tools"] == env.unwrapped.tools
    edit, run, submit = episode["steps"]
    assert edit["tool_calls"][0] == {"id": "call_0", "name": "str_replace_editor", "arguments": {
        "command": "create", "path": "solution.py", "file_text": reference}}  # fmt: skip
    assert "error" in edit["tool_calls"][1] and edit["info"]["format_errors"] == 1
    assert run["info"]["tool_results"][0]["exit_code"] == 0 and run["tool_calls"][0]["name"] == "bash"
    assert submit["info"]["grade"].status is Status.OK and episode["return"] == 1.0


def test_a_file_of_another_version_or_not_json_says_what_it_expected(tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    path.write_text('{"version": 99, "steps": []}\n')
    with pytest.raises(ValueError, match="version 99; this codegym reads version 1"):
        list(read_episodes(path))
    path.write_text("not json\n")
    with pytest.raises(ValueError, match=r"episodes\.jsonl:1: not JSON"):
        list(read_episodes(path))


def test_regrade_agrees_with_what_was_recorded_and_names_every_drift(executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(make(executor, tasks="humaneval", mode="refine", max_episode_steps=3), path)
    for answer in (RIGHT, WRONG):
        env.reset(options={"task_id": TASK})
        env.step(answer)
    env.close()  # (the wrong one's episode is written "open": its last submission is graded again too)
    found = regrade(path)
    assert (found.episodes, found.submissions, found.agreed, found.disagreements) == (2, 2, 2, ())
    # A recording whose verdict the grader no longer gives (a grader that drifted, or a forged line):
    lines = path.read_text().splitlines()
    forged = json.loads(lines[1])
    grade = forged["steps"][-1]["info"]["grade"]["__grade__"]
    grade["status"] = "OK"
    for test in grade["tests"]:
        test.pop("passed", None)
        test["passed"] = True
    path.write_text("\n".join([lines[0], json.dumps(forged)]) + "\n")
    [drift] = regrade(path).disagreements
    assert (drift.task_id, drift.recorded, drift.now) == (TASK, "OK", "WA")
    assert drift.tests and all(line.endswith("passed -> failed") for line in drift.tests)
    done = subprocess.run([sys.executable, "-m", "codegym.cli", "regrade", str(path)], capture_output=True,
                          text=True, check=False, timeout=300)  # fmt: skip
    assert done.returncode == 1 and "2 final submissions graded again: 1 agree (50.0%), 1 disagree" in done.stdout
    assert f"DISAGREE {forged['episode']} {TASK}: recorded OK, now WA" in done.stdout


def test_regrade_skips_what_it_cannot_grade_and_says_why(executor, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(make(executor, tasks="humaneval", mode="refine", max_episode_steps=3), path)
    env.reset(options={"task_id": TASK})
    env.close()  # (no submission)
    env = RecordEpisodes(make(executor, tasks="humaneval"), path)
    env.reset(options={"task_id": TASK})
    env.step(RIGHT)
    lines = path.read_text().splitlines()
    changed = json.loads(lines[1])
    changed["task"]["digest"] = "0" * 64
    path.write_text("\n".join([lines[0], json.dumps(changed)]) + "\n")
    found = regrade(path)
    assert (found.episodes, found.submissions) == (2, 0)
    assert [why.split(": ", 1)[1] for why in found.skipped] == [
        "no graded submission", f"task {TASK} changed since it was recorded"]  # fmt: skip
