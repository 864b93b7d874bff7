"""Exported ATIF trajectories checked by Harbor's own model (`harbor_validate_trajectories`):
``harbor.models.trajectories.Trajectory`` from the real ``harbor`` package (Python 3.12+, in a
box over a Debian 13 root; root and debootstrap at its first build: marked slow, beside the other
Harbor checks in test_export.py) loads each file and gives it back whole, and refuses a broken one
saying why."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import codegym  # noqa: F401
from codegym.episodes import RecordEpisodes, export_episodes
from codegym.executor import Executor

TASK = "codegym-py/001-count-vowel-runs"
needs_boxes = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("debootstrap") is None,
                                 reason="Harbor's check runs in a box: needs root and debootstrap")  # fmt: skip


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.mark.slow
@pytest.mark.timeout(1800)
@needs_boxes
def test_exported_trajectories_load_whole_in_harbor_s_model(executor: Executor, tmp_path: Path) -> None:
    from codegym.envs.terminal.harbor_check import harbor_validate_trajectories

    records = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", mode="agent", executor=executor), records)
    env.reset(options={"task_id": TASK})
    env.note(token_ids=np.array([3, 1, 4], dtype=np.int64), logprobs=[-0.1, -0.2, -0.3])
    env.step(call("str_replace_editor", command="create", path="solution.py", file_text=env.unwrapped.task.reference)
             + call("bash", command="./run_tests") + call("missing_tool"))  # fmt: skip
    env.step(call("submit"))
    env.close()
    env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", mode="refine", max_episode_steps=2, executor=executor),
                         records)  # fmt: skip
    env.reset(options={"task_id": TASK})
    env.step("def count_vowel_runs(text):\n    return 0\n")
    env.step("def count_vowel_runs(text):\n    return 1 / 0\n")  # (truncated by the time limit)
    env.reset(options={"task_id": TASK})  # (abandoned: one user step and nothing more)
    env.close()
    written = export_episodes(records, tmp_path / "atif", format="atif", model_name="policy")
    broken = json.loads(written[0].read_text())
    broken["steps"][1]["observation"]["results"][0]["source_call_id"] = "call_99"  # (no such call in the step)
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    results = harbor_validate_trajectories([*written, tmp_path / "broken.json"])
    assert len(results) == 4
    for path, ok, message in results[:3]:
        assert ok and path in written and message.startswith("harbor ATIF-v1.5: "), message
    path, ok, message = results[3]
    assert not ok and "call_99" in message and "not found in step 2's tool_calls" in message, message
