"""Where pictures to draw come from: the bundled set, the seeded generator, and public files.

An SVG task is a picture whose hidden reference is SVG code. Rows, in a JSONL file, a JSON
array or in memory, are either codegym's own::

    {"id": "codegym-svg/easy-003", "svg": "<svg ...>...</svg>", "difficulty": "easy",
     "description": "3 shapes (circle, rect)"}

or StarVector's svg-stack rows as the data set ships them (``Filename`` and ``Svg``; other
columns are kept in the task's metadata). A reference of another size is scaled to the canvas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from codegym.envs.visual import scenes

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, as_rows, read_rows

DATA = Path(__file__).parent / "data"
BUNDLED = "codegym-svg"
GENERATED = "generated"
EXPECTED = (
    'a JSON object with "id" and "svg" (and optionally "difficulty", "description"), or an svg-stack row '
    'with "Filename" and "Svg"'
)
SVG_PROMPT = """\
Write an SVG document that draws the target picture (the observation's `target`: {width} x {height} pixels, RGB).
Give the root <svg> width="{width}" height="{height}" (or only a viewBox, scaled to fit). The canvas is white.
Use shapes, paths, gradients, transforms and text; embedded rasters (<image>, data: URLs), links to other \
files and <foreignObject> are refused.{about}
Answer with the SVG document only. It is scored by how alike the render is: pixels, structure, edges and colours."""


def load_svg_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (256, 256)
) -> TaskSet:
    """SVG tasks from ``source``: ``"codegym-svg"`` (bundled), ``"generated"`` (1,000 from the
    seeded generator), a file of rows, or the rows themselves."""
    if source == BUNDLED:
        return TaskSet(_tasks(read_rows(DATA / "svg_tasks.jsonl", expected=EXPECTED), canvas), name=BUNDLED)
    if source == GENERATED:
        return generate_svg_tasks(1000, canvas=canvas)
    rows = as_rows(source)
    if rows is not None:
        return TaskSet(_tasks([(f"row {i}", row) for i, row in enumerate(rows)], canvas), name="rows")
    path = Path(str(source))
    if not path.exists():
        raise TaskFormatError(
            f"no SVG task source {str(source)!r}: expected {BUNDLED!r}, {GENERATED!r}, a JSONL or JSON file of rows "
            f"({EXPECTED}), or the rows themselves"
        )
    return TaskSet(_tasks(read_rows(path, expected=EXPECTED), canvas), name=path.name)


def generate_svg_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                       canvas: tuple[int, int] = (256, 256)) -> TaskSet:  # fmt: skip
    """``count`` pictures from the seeded generator (`scenes.generate`): every difficulty in
    turn, or only ``difficulty``. The same arguments make the same tasks."""
    levels = [difficulty] if difficulty else list(scenes.DIFFICULTIES)
    unknown = set(levels) - set(scenes.DIFFICULTIES)
    if unknown:
        raise ValueError(f"difficulty must be one of {sorted(scenes.DIFFICULTIES)}, got {difficulty!r}")
    height, width = canvas
    tasks = []
    for index in range(count):
        level = levels[index % len(levels)]
        scene = scenes.generate(np.random.default_rng([seed, index]), level, width, height)
        row = {"id": f"generated-svg/{seed}-{index}", "svg": scene.svg, "difficulty": level,
               "description": scene.description, "seed": [seed, index]}  # fmt: skip
        tasks.append(svg_task(row, canvas))
    return TaskSet(tasks, name=f"generated-svg/{seed}")


def svg_task(row: Mapping[str, Any], canvas: tuple[int, int]) -> Task:
    """The task of one row (codegym's or svg-stack's)."""
    if "Svg" in row and "svg" not in row:
        name = str(row.get("Filename") or row.get("id") or "")
        if not name:
            raise TaskFormatError(f"an svg-stack row needs a Filename, got fields {sorted(row)}")
        extra = {k: v for k, v in row.items() if k not in ("Svg", "Filename")}
        row = {"id": f"svg-stack/{name}", "svg": row["Svg"], **extra}
    for field, kind in (("id", str), ("svg", str)):
        if not isinstance(row.get(field), kind):
            raise TaskFormatError(f"expected {EXPECTED}; field {field!r} is missing or not a string")
    difficulty = row.get("difficulty")
    if difficulty not in (None, "easy", "medium", "hard"):
        raise TaskFormatError(f"difficulty must be easy, medium or hard, got {difficulty!r}")
    height, width = canvas
    description = str(row.get("description") or "")
    about = f"\nThe picture: {description}." if description else ""
    return Task(
        id=str(row["id"]),
        family="SVGFromImage",
        prompt=SVG_PROMPT.format(width=width, height=height, about=about),
        tests=(),
        language="svg",
        difficulty=difficulty,
        reference=str(row["svg"]),
        metadata={k: v for k, v in row.items() if k not in ("id", "svg", "difficulty")},
    )


def _tasks(rows: Iterable[tuple[str, Mapping[str, Any]]], canvas: tuple[int, int]) -> list[Task]:
    tasks = []
    for where, row in rows:
        try:
            tasks.append(svg_task(row, canvas))
        except TaskFormatError as e:
            raise TaskFormatError(f"{where}: {e}") from None
    return tasks
