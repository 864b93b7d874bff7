"""The pictures of docs/families/visual.md, made by running the envs: for one generated task
of each, the target, the render of a near miss and their difference map, side by side, and
the near miss's grade.

    python scripts/visual_pictures.py           # writes docs/_static/visual/*.png, prints the grades
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from codegym.envs.visual import charts, pages, scenes
from codegym.envs.visual.env import ChartFromImageEnv, HTMLFromScreenshotEnv, SVGFromImageEnv, VisualEnv
from codegym.envs.visual.tasks import generate_chart_tasks, generate_page_tasks, generate_svg_tasks

from codegym.grade import Grade
from codegym.task import Task, TaskSet

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "_static" / "visual"
GAP = 8  # white pixels between the three pictures


def first(tasks: TaskSet) -> Task:
    return next(iter(tasks))


def near_misses() -> dict[str, tuple[VisualEnv, str, str]]:
    """Each env, its task and the near miss drawn for it (a variant of the generator's)."""
    svg = generate_svg_tasks(1, seed=11, difficulty="medium")
    chart = generate_chart_tasks(1, seed=5, difficulty="easy")
    page = generate_page_tasks(1, seed=3, difficulty="easy")
    scene = scenes.generate(np.random.default_rng(first(svg).metadata["seed"]), "medium")
    drawn = charts.generate(np.random.default_rng(first(chart).metadata["seed"]), "easy")
    laid = pages.generate(np.random.default_rng(first(page).metadata["seed"]), "easy")
    return {
        "svg": (SVGFromImageEnv(svg), first(svg).id, scenes.variants(scene, np.random.default_rng(0))["shifted"].svg),
        "chart": (ChartFromImageEnv(chart), first(chart).id, charts.variants(drawn)["wrong colours"].code),
        "page": (HTMLFromScreenshotEnv(page), first(page).id, pages.variants(laid)["missing element"].html),
    }


def picture(env: VisualEnv, task_id: str, code: str) -> tuple[np.ndarray, Grade]:
    """The strip (target | render | difference) of ``code`` on ``task_id``, and its grade."""
    task = env.tasks.get(task_id)
    grade, _ = env.evaluate_task(task, code)
    target = env.target(task).image
    height = target.shape[0]
    gap = np.full((height, GAP, 3), 255, dtype=np.uint8)
    parts: list[Any] = [target, gap, grade.artifacts["render"], gap, grade.artifacts["difference"]]
    return np.concatenate(parts, axis=1), grade


def main() -> None:
    from PIL import Image

    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, (env, task_id, code) in near_misses().items():
        strip, grade = picture(env, task_id, code)
        Image.fromarray(strip).save(FOLDER / f"{name}.png", optimize=True)
        print(f"{name}: {grade.message}")
        env.close()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
