"""What the visual envs' tests share: the degraded pictures' order, and how a grade ranks."""

from __future__ import annotations

import numpy as np
from codegym.envs.visual.env import VisualEnv

from codegym.grade import Status

# The reward-sanity suite's variants of a picture, from closest to farthest (issue 33).
ORDER = ("exact", "shifted", "wrong colours", "missing element", "wrong layout", "blank")


def similarity(env: VisualEnv, task_id: str, code: str) -> tuple[Status, float]:
    """The status of ``code`` on ``task_id`` and its reward (0 unless it rendered: ``OK``)."""
    grade, _ = env.evaluate_task(env.tasks.get(task_id), code)
    return grade.status, float(grade.metrics.get("similarity", 0.0)) if grade.status is Status.OK else 0.0


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (no ties in what the tests rank)."""
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def ranked(rewards: list[float]) -> float:
    """How well ``rewards`` (one per variant of `ORDER`) follow that order."""
    return spearman([-i for i in range(len(ORDER))], rewards)
