"""The cleanrl-style GRPO example runs and learns, on a tiny budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "grpo_loop.py"


def test_grpo_loop_learns_to_pick_correct_programs() -> None:
    spec = importlib.util.spec_from_file_location("grpo_loop", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["grpo_loop"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    history = module.main(module.Args(iterations=60, group_size=4, tasks=3, learning_rate=1.0, seed=0))
    assert len(history) == 60
    assert np.mean(history[-15:]) > np.mean(history[:15]) + 0.2
