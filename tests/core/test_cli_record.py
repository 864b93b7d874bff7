"""``codegym score --record FILE``: each sample graded as a one-step episode, the file read back
with read_episodes, its verdicts the same as the results file's and the grader's today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegym.cli import main
from codegym.episodes import read_episodes, regrade
from codegym.grade import Grade

TASK = "HumanEval/2"
RIGHT = "def truncate_number(number):\n    return number % 1.0\n"
WRONG = "def truncate_number(number):\n    return 1 / 0\n"


def test_score_record_writes_one_episode_per_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    samples = tmp_path / "samples.jsonl"
    answers = [RIGHT, "```python\n" + WRONG + "```", RIGHT]
    samples.write_text(
        "".join(json.dumps({"task_id": TASK, "completion": a, "n": n}) + "\n" for n, a in enumerate(answers))
    )
    record = tmp_path / "runs" / "episodes.jsonl"
    assert main(["score", str(samples), "--record", str(record)]) == 0
    assert f"episodes appended to {record}" in capsys.readouterr().out
    episodes = list(read_episodes(record))
    results = [json.loads(line) for line in (tmp_path / "samples_results.jsonl").read_text().splitlines()]
    assert len(episodes) == 3 and {episode["mode"] for episode in episodes} == {"single"}
    assert {episode["env_kwargs"]["tasks"] for episode in episodes} == {"humaneval"}
    # (the envs run at once: the lines may come in any order; each is one sample, whole)
    by_action = {episode["steps"][0]["action"]: episode for episode in episodes}
    assert sorted(by_action) == sorted(set(answers)) and len(by_action) == 2
    for answer, result in zip(answers, results, strict=True):
        [step] = by_action[answer]["steps"]
        grade = step["info"]["grade"]
        assert isinstance(grade, Grade) and grade.status.value == result["status"] and step["terminated"]
        assert by_action[answer]["task"]["id"] == TASK and by_action[answer]["ended"] == "terminated"
    assert [result["status"] for result in results] == ["OK", "WA", "OK"]
    found = regrade(record)
    assert (found.episodes, found.agreed, found.disagreements) == (3, 3, ())


def test_score_without_record_writes_no_episodes(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": TASK, "completion": RIGHT}) + "\n")
    assert main(["score", str(samples)]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["samples.jsonl", "samples_results.jsonl"]
