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
from codegym.envs.visual import charts, pages, scenes

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, as_rows, read_rows

DATA = Path(__file__).parent / "data"
BUNDLED = "codegym-svg"
BUNDLED_CHARTS = "codegym-charts"
BUNDLED_PAGES = "codegym-pages"
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


# --- charts -------------------------------------------------------------------------------------------

CHART_EXPECTED = (
    'a JSON object with "id" and "code" (a matplotlib program; optionally "difficulty", "description"), or a '
    'ChartMimic row with "code" and "instruction" (and "image", the picture\'s path, kept as metadata)'
)
CHART_PROMPT = """\
Write a Python program that draws the target chart with matplotlib (the observation's `target`: {width} x {height} \
pixels, RGB).
`plt`, `np` and `matplotlib` are imported already; draw on the current figure: it is saved at {width} x {height} \
pixels when the program ends (do not call plt.show or savefig). Use plotting calls (plot, bar, scatter, pie, hist, \
fill_between, ...); rasters (imshow, figimage, image files), file access and imports beyond plotting and \
arithmetic are refused.{about}
Answer with the program only. It is scored by how alike the chart is: its pixels, and its texts, kinds of marks, \
colours and layout."""


def load_chart_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (300, 400)
) -> TaskSet:
    """Chart tasks from ``source``: ``"codegym-charts"`` (bundled), ``"generated"`` (1,000 from
    the seeded generator), a file of rows (codegym's or ChartMimic's), or the rows themselves."""
    if source == BUNDLED_CHARTS:
        rows = read_rows(DATA / "chart_tasks.jsonl", expected=CHART_EXPECTED)
        return TaskSet(_chart_tasks(rows, canvas), name=BUNDLED_CHARTS)
    if source == GENERATED:
        return generate_chart_tasks(1000, canvas=canvas)
    rows_in_memory = as_rows(source)
    if rows_in_memory is not None:
        return TaskSet(_chart_tasks([(f"row {i}", r) for i, r in enumerate(rows_in_memory)], canvas), name="rows")
    path = Path(str(source))
    if not path.exists():
        raise TaskFormatError(
            f"no chart task source {str(source)!r}: expected {BUNDLED_CHARTS!r}, {GENERATED!r}, a JSONL or JSON file "
            f"of rows ({CHART_EXPECTED}), or the rows themselves"
        )
    return TaskSet(_chart_tasks(read_rows(path, expected=CHART_EXPECTED), canvas), name=path.name)


def generate_chart_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                         canvas: tuple[int, int] = (300, 400)) -> TaskSet:  # fmt: skip
    """``count`` charts from the seeded generator (`charts.generate`), every difficulty in turn
    or only ``difficulty``; the same arguments make the same tasks."""
    levels = [difficulty] if difficulty else list(charts.DIFFICULTIES)
    if set(levels) - set(charts.DIFFICULTIES):
        raise ValueError(f"difficulty must be one of {sorted(charts.DIFFICULTIES)}, got {difficulty!r}")
    tasks = []
    for index in range(count):
        level = levels[index % len(levels)]
        chart = charts.generate(np.random.default_rng([seed, index]), level)
        row = {"id": f"generated-chart/{seed}-{index}", "code": chart.code, "difficulty": level,
               "description": chart.description, "seed": [seed, index]}  # fmt: skip
        tasks.append(chart_task(row, canvas))
    return TaskSet(tasks, name=f"generated-chart/{seed}")


def chart_task(row: Mapping[str, Any], canvas: tuple[int, int]) -> Task:
    """The task of one row (codegym's or ChartMimic's)."""
    if "id" not in row and "code" in row:  # (ChartMimic: named by its picture, or its instruction's hash)
        import hashlib

        name = Path(str(row.get("image") or row.get("image_path") or "")).stem
        name = name or hashlib.sha256(str(row["code"]).encode()).hexdigest()[:12]
        row = {"id": f"chartmimic/{name}", **row}
    for field, kind in (("id", str), ("code", str)):
        if not isinstance(row.get(field), kind):
            raise TaskFormatError(f"expected {CHART_EXPECTED}; field {field!r} is missing or not a string")
    difficulty = row.get("difficulty")
    if difficulty not in (None, "easy", "medium", "hard"):
        raise TaskFormatError(f"difficulty must be easy, medium or hard, got {difficulty!r}")
    height, width = canvas
    about = str(row.get("description") or row.get("instruction") or "")
    return Task(
        id=str(row["id"]),
        family="ChartFromImage",
        prompt=CHART_PROMPT.format(width=width, height=height, about=f"\nThe chart: {about}" if about else ""),
        tests=(),
        language="python",
        difficulty=difficulty,
        reference=str(row["code"]),
        metadata={k: v for k, v in row.items() if k not in ("id", "code", "difficulty")},
    )


def _chart_tasks(rows: Iterable[tuple[str, Mapping[str, Any]]], canvas: tuple[int, int]) -> list[Task]:
    tasks = []
    for where, row in rows:
        try:
            tasks.append(chart_task(row, canvas))
        except TaskFormatError as e:
            raise TaskFormatError(f"{where}: {e}") from None
    return tasks


# --- pages --------------------------------------------------------------------------------------------

PAGE_EXPECTED = (
    'a JSON object with "id" and "html" (optionally "difficulty", "description"), a WebSight row with "text" (the '
    "HTML), or a Design2Code folder of N.html files (N.png beside them, kept as metadata)"
)
PAGE_PROMPT = """\
Write an HTML page (one file, its CSS in a <style> element) that looks like the target screenshot (the observation's \
`target`: a {width} x {height} pixel viewport, RGB).
It is opened in Chromium at that size, with scripts {scripts} and no network: no images, fonts or stylesheets from \
other files or hosts; data: URLs, frames and pixel art are refused.{about}
Answer with the HTML only. It is scored by how alike the page is: its pixels, and where its texts are, what they \
say, their colours, and its element tree."""


def load_page_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (300, 400)
) -> TaskSet:
    """Page tasks from ``source``: ``"codegym-pages"`` (bundled), ``"generated"`` (1,000 from the
    seeded generator), a file of rows (codegym's or WebSight's), a Design2Code folder, or rows."""
    if source == BUNDLED_PAGES:
        rows = read_rows(DATA / "page_tasks.jsonl", expected=PAGE_EXPECTED)
        return TaskSet(_page_tasks(rows, canvas), name=BUNDLED_PAGES)
    if source == GENERATED:
        return generate_page_tasks(1000, canvas=canvas)
    in_memory = as_rows(source)
    if in_memory is not None:
        return TaskSet(_page_tasks([(f"row {i}", r) for i, r in enumerate(in_memory)], canvas), name="rows")
    path = Path(str(source))
    if path.is_dir():
        found = sorted(path.glob("*.html"), key=lambda p: (len(p.stem), p.stem))
        if not found:
            raise TaskFormatError(f"{path}: a Design2Code folder holds N.html files (and N.png); found none")
        rows = [(str(f), {"id": f"design2code/{f.stem}", "html": f.read_text(errors="replace"),
                          **({"image": str(f.with_suffix(".png"))} if f.with_suffix(".png").exists() else {})})
                for f in found]  # fmt: skip
        return TaskSet(_page_tasks(rows, canvas), name=path.name)
    if not path.exists():
        raise TaskFormatError(
            f"no page task source {str(source)!r}: expected {BUNDLED_PAGES!r}, {GENERATED!r}, a JSONL or JSON file "
            f"of rows or a Design2Code folder ({PAGE_EXPECTED}), or the rows themselves"
        )
    return TaskSet(_page_tasks(read_rows(path, expected=PAGE_EXPECTED), canvas), name=path.name)


def generate_page_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                        canvas: tuple[int, int] = (300, 400)) -> TaskSet:  # fmt: skip
    """``count`` pages from the seeded generator (`pages.generate`); the same arguments make the
    same tasks."""
    levels = [difficulty] if difficulty else list(pages.DIFFICULTIES)
    if set(levels) - set(pages.DIFFICULTIES):
        raise ValueError(f"difficulty must be one of {sorted(pages.DIFFICULTIES)}, got {difficulty!r}")
    tasks = []
    for index in range(count):
        level = levels[index % len(levels)]
        page = pages.generate(np.random.default_rng([seed, index]), level)
        row = {"id": f"generated-page/{seed}-{index}", "html": page.html, "difficulty": level,
               "description": page.description, "seed": [seed, index]}  # fmt: skip
        tasks.append(page_task(row, canvas))
    return TaskSet(tasks, name=f"generated-page/{seed}")


def page_task(row: Mapping[str, Any], canvas: tuple[int, int], *, javascript: bool = False) -> Task:
    """The task of one row (codegym's or WebSight's)."""
    if "html" not in row and isinstance(row.get("text"), str):  # (WebSight: the HTML is "text")
        import hashlib

        name = str(row.get("id") or hashlib.sha256(row["text"].encode()).hexdigest()[:12])
        row = {
            **{k: v for k, v in row.items() if k not in ("text", "id")},
            "id": f"websight/{name}",
            "html": row["text"],
        }
    for field, kind in (("id", str), ("html", str)):
        if not isinstance(row.get(field), kind):
            raise TaskFormatError(f"expected {PAGE_EXPECTED}; field {field!r} is missing or not a string")
    difficulty = row.get("difficulty")
    if difficulty not in (None, "easy", "medium", "hard"):
        raise TaskFormatError(f"difficulty must be easy, medium or hard, got {difficulty!r}")
    height, width = canvas
    about = str(row.get("description") or "")
    return Task(
        id=str(row["id"]),
        family="HTMLFromScreenshot",
        prompt=PAGE_PROMPT.format(
            width=width,
            height=height,
            scripts="on" if javascript else "off",
            about=f"\nThe page: {about}." if about else "",
        ),
        tests=(),
        language="html",
        difficulty=difficulty,
        reference=str(row["html"]),
        metadata={k: v for k, v in row.items() if k not in ("id", "html", "difficulty", "image")}
        | ({"image": str(row["image"])} if row.get("image") else {}),
    )


def _page_tasks(rows: Iterable[tuple[str, Mapping[str, Any]]], canvas: tuple[int, int]) -> list[Task]:
    tasks = []
    for where, row in rows:
        try:
            tasks.append(page_task(row, canvas))
        except TaskFormatError as e:
            raise TaskFormatError(f"{where}: {e}") from None
    return tasks
