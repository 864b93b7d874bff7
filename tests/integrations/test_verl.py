"""verl's compute_score shapes and parquet data."""

from __future__ import annotations

import json

import pytest

from codegym.integrations.verl import compute_score, compute_score_batch, rows, write_parquet

pq = pytest.importorskip("pyarrow.parquet", reason="the verl extra is not installed")
ENV = "codegym/PythonFunction-v0"
EXTRA = {"env_kwargs": json.dumps({"tasks": "humaneval"})}
RIGHT = "def truncate_number(number: float) -> float:\n    return number % 1.0\n"


def test_compute_score_with_the_arguments_verl_passes() -> None:
    assert compute_score(ENV, RIGHT, "HumanEval/2", EXTRA) == 1.0
    assert compute_score(ENV, "```python\ndef truncate_number(n):\n    return n\n```", "HumanEval/2", EXTRA) == 0.0
    assert compute_score(ENV, "def count_vowel_runs(t):\n    return 0\n", "codegym-py/001-count-vowel-runs") == 0.0


def test_batched_scores_keep_their_order() -> None:
    scores = compute_score_batch([ENV] * 3, [RIGHT, "x = (", RIGHT], ["HumanEval/2"] * 3, [EXTRA] * 3)
    assert scores == [1.0, 0.0, 1.0]


def test_parquet_rows_round_trip(tmp_path) -> None:
    path = write_parquet(ENV, tmp_path / "train.parquet", tasks="humaneval")
    table = pq.read_table(path).to_pylist()
    assert len(table) == 164 and table == rows(ENV, tasks="humaneval")
    first = table[0]
    assert first["data_source"] == ENV and first["reward_model"] == {"style": "rule", "ground_truth": "HumanEval/0"}
    assert first["prompt"][0]["role"] == "user" and "assert" not in first["prompt"][0]["content"].split('"""')[-1]
    assert compute_score(first["data_source"], RIGHT, "HumanEval/2", first["extra_info"]) == 1.0
