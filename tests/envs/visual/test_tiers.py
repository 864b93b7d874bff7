"""The renderer in every isolation tier: the same pixels, and the gate in front of it."""

from __future__ import annotations

import numpy as np
from codegym.envs.visual.env import SVGFromImageEnv

from codegym.executor import Executor
from codegym.grade import Status

from .test_svg import CHEATS, HOUSE

RENDERS: dict[str, np.ndarray] = {}  # task id -> the target the first tier rendered


def test_the_renderer_draws_alike_in_every_tier(tiered_executor: Executor) -> None:
    env = SVGFromImageEnv(executor=tiered_executor)
    task = env.tasks.get(HOUSE)
    target = env.target(task).image
    assert np.array_equal(RENDERS.setdefault(HOUSE, target), target)
    grade, _ = env.evaluate_task(task, task.reference or "")
    assert grade.status is Status.OK and grade.metrics["similarity"] >= 0.99
    text = task.reference.replace("</svg>", '<text x="20" y="240" font-size="20">codegym</text></svg>')  # type: ignore[union-attr]
    grade, _ = env.evaluate_task(task, text)  # (fonts are there)
    drawn = np.abs(grade.artifacts["render"][215:245, 15:110].astype(int) - target[215:245, 15:110]).sum(axis=2)
    assert grade.status is Status.OK and (drawn > 100).sum() > 50  # (the letters' pixels, black on green)
    assert env.evaluate_task(task, CHEATS["a data: URL image"])[0].status is Status.HACK
