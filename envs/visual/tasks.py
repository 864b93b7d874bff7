"""Where pictures to draw come from: the bundled sets, the seeded generators, and public files.

A task is a picture whose hidden reference is code: SVG, a matplotlib program or an HTML page.
Each env loads the same kinds of source (`load_svg_tasks`, `load_chart_tasks`,
`load_page_tasks`): its bundled set by name, ``"generated"`` (1,000 from its seeded generator),
a JSONL or JSON file of rows, or the rows themselves. codegym's own rows::

    {"id": "codegym-svg/easy-03", "svg": "<svg ...>...</svg>", "difficulty": "easy",
     "description": "3 shapes (circle, rect)"}

(``"code"`` for a chart, ``"html"`` for a page), and the public formats as their data sets ship
them: StarVector's svg-stack rows (``Filename``, ``Svg``), ChartMimic rows (``instruction``,
``code``, ``image``) and its released folders (``ori_500/<name>.py`` beside ``<name>.png``),
WebSight rows (``text``: the HTML) and Design2Code folders (``N.html`` beside ``N.png``).
Other columns are kept in the task's metadata. A reference of another size is scaled to the
canvas.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
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
Give the root <svg> width="{width}" height="{height}" (or only a viewBox); a picture of another size is scaled to fit \
the canvas, its aspect ratio kept, centred. The canvas is white.
Use shapes, paths, gradients, transforms and text; embedded rasters (<image>, data: URLs), links to other \
files and <foreignObject> are refused.{about}
Answer with the SVG document only. It is scored by how alike the render is: pixels, structure, edges and colours."""


CHART_EXPECTED = (
    'a JSON object with "id" and "code" (a matplotlib program; optionally "difficulty", "description"), or a '
    'ChartMimic row with "code" and "instruction" (and "image", the picture\'s path, kept as metadata), or a '
    "ChartMimic folder (ori_500/<name>.py, <name>.png beside it)"
)
CHART_PROMPT = """\
Write a Python program that draws the target chart with matplotlib (the observation's `target`: {width} x {height} \
pixels, RGB).
`plt`, `np` and `matplotlib` are imported already, a new figure is {inches} in at 100 dpi ({width} x {height} \
pixels: `plt.rcParams["figure.figsize"]` is set) and numpy's and `random`'s generators are seeded with 0; draw on \
the current figure: it is saved at {width} x {height} pixels when the program ends (do not call plt.show or \
savefig). Use plotting calls (plot, bar, scatter, pie, hist, \
fill_between, ...); rasters (imshow, figimage, image files), file access and imports beyond plotting and \
arithmetic are refused.{about}
Answer with the program only. It is scored by how alike the chart is: its pixels, and its texts, kinds of marks, \
colours and layout."""


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


def load_svg_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (256, 256)
) -> TaskSet:
    """SVG tasks from ``source``: ``"codegym-svg"``, ``"generated"``, a file of rows (codegym's
    or svg-stack's), or the rows themselves."""
    return _load(SVG, source, canvas)


def load_chart_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (300, 400)
) -> TaskSet:
    """Chart tasks from ``source``: ``"codegym-charts"``, ``"generated"``, a file of rows
    (codegym's or ChartMimic's), a ChartMimic folder (``ori_500`` or the folder holding it), or
    the rows themselves."""
    return _load(CHART, source, canvas)


def load_page_tasks(
    source: str | Path | Iterable[Mapping[str, Any]], *, canvas: tuple[int, int] = (300, 400)
) -> TaskSet:
    """Page tasks from ``source``: ``"codegym-pages"``, ``"generated"``, a file of rows
    (codegym's or WebSight's), a Design2Code folder, or the rows themselves."""
    return _load(PAGE, source, canvas)


def generate_svg_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                       canvas: tuple[int, int] = (256, 256)) -> TaskSet:  # fmt: skip
    """``count`` pictures from the seeded generator (`scenes.generate`), every difficulty in
    turn or only ``difficulty``; the same arguments make the same tasks."""
    return _generate(SVG, count, seed, difficulty, canvas)


def generate_chart_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                         canvas: tuple[int, int] = (300, 400)) -> TaskSet:  # fmt: skip
    """``count`` charts from the seeded generator (`charts.generate`), as `generate_svg_tasks`."""
    return _generate(CHART, count, seed, difficulty, canvas)


def generate_page_tasks(count: int, *, seed: int = 0, difficulty: str | None = None,
                        canvas: tuple[int, int] = (300, 400)) -> TaskSet:  # fmt: skip
    """``count`` pages from the seeded generator (`pages.generate`), as `generate_svg_tasks`."""
    return _generate(PAGE, count, seed, difficulty, canvas)


# --- what differs from one kind of picture to the next -----------------------------------------------


@dataclass(frozen=True)
class _Kind:
    family: str
    noun: str  # what its tasks are called in errors
    language: str
    field: str  # the row's field holding the reference
    bundled: str
    generated: str  # the generated tasks' ids start with it
    file: str  # the bundled set, in data/
    expected: str  # what a row holds, for the errors
    prompt: Callable[[Mapping[str, Any], tuple[int, int]], str]
    public: Callable[[Mapping[str, Any]], Mapping[str, Any]]  # a public format's row as codegym's
    difficulties: Collection[str]
    draw: Callable[[np.random.Generator, str, tuple[int, int]], tuple[str, str]]  # (reference, description)


def _svg_prompt(row: Mapping[str, Any], canvas: tuple[int, int]) -> str:
    description = str(row.get("description") or "")
    return SVG_PROMPT.format(
        width=canvas[1], height=canvas[0], about=f"\nThe picture: {description}." if description else ""
    )


def _chart_prompt(row: Mapping[str, Any], canvas: tuple[int, int]) -> str:
    about = str(row.get("description") or row.get("instruction") or "")
    inches = f"{canvas[1] / 100:g} x {canvas[0] / 100:g}"
    return CHART_PROMPT.format(width=canvas[1], height=canvas[0], inches=inches,
                               about=f"\nThe chart: {about}" if about else "")  # fmt: skip


def _page_prompt(row: Mapping[str, Any], canvas: tuple[int, int]) -> str:
    about = str(row.get("description") or "")
    return PAGE_PROMPT.format(width=canvas[1], height=canvas[0], scripts="off",
                              about=f"\nThe page: {about}." if about else "")  # fmt: skip


def _svg_stack(row: Mapping[str, Any]) -> Mapping[str, Any]:
    if "Svg" not in row or "svg" in row:
        return row
    name = str(row.get("Filename") or row.get("id") or "")
    if not name:
        raise TaskFormatError(f"an svg-stack row needs a Filename, got fields {sorted(row)}")
    return {
        "id": f"svg-stack/{name}",
        "svg": row["Svg"],
        **{k: v for k, v in row.items() if k not in ("Svg", "Filename")},
    }


def _chartmimic(row: Mapping[str, Any]) -> Mapping[str, Any]:
    if "id" in row or "code" not in row:
        return row
    name = Path(str(row.get("image") or row.get("image_path") or "")).stem  # (named by its picture, or its code)
    return {"id": f"chartmimic/{name or _digest(str(row['code']))}", **row}


def _websight(row: Mapping[str, Any]) -> Mapping[str, Any]:
    if "html" in row or not isinstance(row.get("text"), str):
        return row
    name = str(row.get("id") or _digest(row["text"]))
    return {**{k: v for k, v in row.items() if k not in ("text", "id")}, "id": f"websight/{name}", "html": row["text"]}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _draw_scene(rng: np.random.Generator, level: str, canvas: tuple[int, int]) -> tuple[str, str]:
    scene = scenes.generate(rng, level, canvas[1], canvas[0])
    return scene.svg, scene.description


def _draw_chart(rng: np.random.Generator, level: str, canvas: tuple[int, int]) -> tuple[str, str]:
    chart = charts.generate(rng, level)
    return chart.code, chart.description


def _draw_page(rng: np.random.Generator, level: str, canvas: tuple[int, int]) -> tuple[str, str]:
    page = pages.generate(rng, level)
    return page.html, page.description


SVG = _Kind(family="SVGFromImage", noun="SVG", language="svg", field="svg", bundled=BUNDLED, generated="generated-svg",
            file="svg_tasks.jsonl", expected=EXPECTED, prompt=_svg_prompt, public=_svg_stack,
            difficulties=scenes.DIFFICULTIES, draw=_draw_scene)  # fmt: skip
CHART = _Kind(family="ChartFromImage", noun="chart", language="python", field="code", bundled=BUNDLED_CHARTS,
              generated="generated-chart", file="chart_tasks.jsonl", expected=CHART_EXPECTED, prompt=_chart_prompt,
              public=_chartmimic, difficulties=charts.DIFFICULTIES, draw=_draw_chart)  # fmt: skip
PAGE = _Kind(family="HTMLFromScreenshot", noun="page", language="html", field="html", bundled=BUNDLED_PAGES,
             generated="generated-page", file="page_tasks.jsonl", expected=PAGE_EXPECTED, prompt=_page_prompt,
             public=_websight, difficulties=pages.DIFFICULTIES, draw=_draw_page)  # fmt: skip


# --- one way of loading for every kind ---------------------------------------------------------------


def _load(kind: _Kind, source: str | Path | Iterable[Mapping[str, Any]], canvas: tuple[int, int]) -> TaskSet:
    if source == kind.bundled:
        return TaskSet(_tasks(kind, read_rows(DATA / kind.file, expected=kind.expected), canvas), name=kind.bundled)
    if source == GENERATED:
        return _generate(kind, 1000, 0, None, canvas)
    rows = as_rows(source)
    if rows is not None:
        return TaskSet(_tasks(kind, [(f"row {i}", row) for i, row in enumerate(rows)], canvas), name="rows")
    path = Path(str(source))
    if kind is PAGE and path.is_dir():
        return TaskSet(_tasks(kind, _design2code(path), canvas), name=path.name)
    if kind is CHART and path.is_dir():
        return TaskSet(_tasks(kind, _chartmimic_folder(path), canvas), name=path.name)
    if not path.exists():
        raise TaskFormatError(
            f"no {kind.noun} task source {str(source)!r}: expected {kind.bundled!r}, {GENERATED!r}, a JSONL or JSON "
            f"file of rows ({kind.expected}), or the rows themselves"
        )
    return TaskSet(_tasks(kind, read_rows(path, expected=kind.expected), canvas), name=path.name)


def _generate(kind: _Kind, count: int, seed: int, difficulty: str | None, canvas: tuple[int, int]) -> TaskSet:
    levels = [difficulty] if difficulty else list(kind.difficulties)
    if set(levels) - set(kind.difficulties):
        raise ValueError(f"difficulty must be one of {sorted(kind.difficulties)}, got {difficulty!r}")
    prefix = kind.generated
    tasks = []
    for index in range(count):
        level = levels[index % len(levels)]
        reference, description = kind.draw(np.random.default_rng([seed, index]), level, canvas)
        row = {"id": f"{prefix}/{seed}-{index}", kind.field: reference, "difficulty": level, "description": description,
               "seed": [seed, index]}  # fmt: skip
        tasks.append(_task(kind, row, canvas))
    return TaskSet(tasks, name=f"{prefix}/{seed}")


def _tasks(kind: _Kind, rows: Iterable[tuple[str, Mapping[str, Any]]], canvas: tuple[int, int]) -> list[Task]:
    tasks = []
    for where, row in rows:
        try:
            tasks.append(_task(kind, row, canvas))
        except TaskFormatError as e:
            raise TaskFormatError(f"{where}: {e}") from None
    return tasks


def _task(kind: _Kind, row: Mapping[str, Any], canvas: tuple[int, int]) -> Task:
    """The task of one row, codegym's or a public format's."""
    row = kind.public(row)
    for field in ("id", kind.field):
        if not isinstance(row.get(field), str):
            raise TaskFormatError(f"expected {kind.expected}; field {field!r} is missing or not a string")
    difficulty = row.get("difficulty")
    if difficulty not in (None, "easy", "medium", "hard"):
        raise TaskFormatError(f"difficulty must be easy, medium or hard, got {difficulty!r}")
    return Task(
        id=str(row["id"]),
        family=kind.family,
        prompt=kind.prompt(row, canvas),
        tests=(),
        language=kind.language,
        difficulty=difficulty,
        reference=str(row[kind.field]),
        metadata={k: v for k, v in row.items() if k not in ("id", kind.field, "difficulty")},
    )


def _design2code(folder: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """A Design2Code folder's pages (``N.html``, in N's order), each with its ``N.png``'s path."""
    found = sorted(folder.glob("*.html"), key=lambda p: (len(p.stem), p.stem))
    if not found:
        raise TaskFormatError(f"{folder}: a Design2Code folder holds N.html files (and N.png); found none")
    rows = []
    for page in found:
        picture = page.with_suffix(".png")
        row = {"id": f"design2code/{page.stem}", "html": page.read_text(errors="replace")}
        rows.append((str(page), {**row, "image": str(picture)} if picture.exists() else row))
    return rows


def _chartmimic_folder(folder: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """A ChartMimic folder's scripts (``ori_500/<name>.py``; ``folder`` is ``ori_500`` or holds
    it), in their names' natural order, each with its picture's path (``<name>.png``, else
    ``<name>.pdf``) when one is beside it."""
    inner = folder / "ori_500"
    folder = inner if inner.is_dir() else folder
    found = sorted(
        folder.glob("*.py"), key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.stem)]
    )
    if not found:
        raise TaskFormatError(f"{folder}: a ChartMimic folder holds <name>.py files (and <name>.png); found none")
    rows = []
    for script in found:
        row: dict[str, Any] = {"id": f"chartmimic/{script.stem}", "code": script.read_text(errors="replace")}
        picture = next((p for p in (script.with_suffix(".png"), script.with_suffix(".pdf")) if p.exists()), None)
        rows.append((str(script), {**row, "image": str(picture)} if picture else row))
    return rows
