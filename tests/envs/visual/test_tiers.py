"""The renderer in every isolation tier: the same pixels, and the gate in front of it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from codegym.envs.visual.env import ChartFromImageEnv, HTMLFromScreenshotEnv, SVGFromImageEnv
from codegym.envs.visual.sandbox import PlottingExecutor

from codegym.error import SandboxError
from codegym.executor import Executor
from codegym.grade import Status

from .test_chart import BARS, CHART_CHEATS
from .test_page import HELLO, PAGE, PAGE_CHEATS
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


def test_charts_draw_alike_in_every_tier(tier: str, tier_options: Callable[[str], dict[str, Any]]) -> None:
    executor = PlottingExecutor(workers=1, **tier_options(tier))
    env = ChartFromImageEnv(executor=executor)
    try:
        task = env.tasks.get(BARS)
        target = env.target(task).image
        assert np.array_equal(RENDERS.setdefault(BARS, target), target)
        grade, _ = env.evaluate_task(task, task.reference or "")
        assert grade.status is Status.OK and grade.metrics["similarity"] >= 0.99
        assert env.evaluate_task(task, CHART_CHEATS["figimage"])[0].status is Status.HACK
    finally:
        env.close()
        executor.close()


def test_chromium_renders_alike_in_every_tier_that_allows_it(tier: str, tiered_executor: Executor) -> None:
    env = HTMLFromScreenshotEnv(executor=tiered_executor)
    task = env.tasks.get(PAGE)
    if tier == "container":  # (with scripts on, a renderer process reads its own /proc: never a grade)
        scripted = HTMLFromScreenshotEnv(executor=tiered_executor, javascript=True)
        with pytest.raises(SandboxError, match="cannot run in the 'container' isolation tier"):
            scripted.evaluate_task(scripted.tasks.get(PAGE), HELLO)
    target = env.target(task).image
    assert np.array_equal(RENDERS.setdefault(PAGE, target), target)
    grade, _ = env.evaluate_task(task, HELLO)
    assert grade.status is Status.OK and 0 < grade.metrics["similarity"] < 0.99
    assert env.evaluate_task(task, PAGE_CHEATS["an image file"])[0].status is Status.HACK
