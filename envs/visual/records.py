"""What a chart really drew, read from the SVG matplotlib saved of it, and how two compare.

matplotlib's SVG backend writes each artist as a group named for its class (``patch_3``,
``line2d_2``, ``PathCollection_1``, ``text_5``, inside ``axes_1``), and with
``svg.fonttype="none"`` each text as a ``<text>`` element. From that, `read` makes a `Record`:
the texts, the kinds of marks in each axes (bars, lines, markers, areas, wedges), the colours
of those marks, and where each axes sits. The ChartMimic-style scores (`scores`) compare two
records: text F1, chart-type F1, colour F1 (colours matched within a CIEDE2000 distance) and
layout (the axes' boxes, matched by overlap). Pure functions of the two SVG texts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from xml.etree import ElementTree

import numpy as np
from codegym.envs.visual.metrics import ciede2000, srgb_to_lab

SVG = "{http://www.w3.org/2000/svg}"
COLOUR_MATCH = 10.0  # CIEDE2000: two colours closer than this are the same colour
FILL = re.compile(r"fill:\s*(#[0-9a-fA-F]{6})")
STROKE = re.compile(r"stroke:\s*(#[0-9a-fA-F]{6})")
NUMBER = re.compile(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?")
CHART_METRICS = ("text", "chart_type", "colour_f1", "layout")
MARKS = {
    "line2d": "line",
    "PathCollection": "markers",
    "PolyCollection": "area",
    "FillBetweenPolyCollection": "area",
    "LineCollection": "segments",
    "QuadMesh": "mesh",
}  # (what each artist's group draws)


@dataclass(frozen=True)
class Record:
    """What one figure drew: texts, marks per kind, mark colours, and axes boxes (x0, y0, x1, y1
    as fractions of the figure)."""

    texts: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    colours: tuple[str, ...] = ()
    boxes: tuple[tuple[float, float, float, float], ...] = ()


def read(svg: str) -> Record:
    """The `Record` of a matplotlib SVG (an empty one when it does not parse)."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return Record()
    size = _size(root)
    texts: Counter[str] = Counter()
    for element in root.iter(f"{SVG}text"):
        text = " ".join("".join(element.itertext()).split())
        if text:
            texts[text.lower()] += 1
    kinds: Counter[str] = Counter()
    colours: list[str] = []
    boxes = []
    for axes in root.iter(f"{SVG}g"):
        if not axes.get("id", "").startswith("axes_"):
            continue
        children = [c for c in axes if c.tag == f"{SVG}g"]
        background = next((c for c in children if c.get("id", "").startswith("patch_")), None)
        if background is not None:
            boxes.append(_box(background, size))
        for mark in children:
            kind = _kind(mark, mark is background)
            if kind:
                kinds[kind] += 1
                colours += _colours(mark)
    return Record(texts, kinds, tuple(colours), tuple(boxes))


def scores(target: Record, drawn: Record) -> dict[str, float]:
    """The chart scores of ``drawn`` against ``target``, each in [0, 1]."""
    return {
        "text": _f1(target.texts, drawn.texts),
        "chart_type": _f1(Counter(set(target.kinds)), Counter(set(drawn.kinds))),
        "colour_f1": _colour_f1(target.colours, drawn.colours),
        "layout": _layout(target.boxes, drawn.boxes),
    }


# --- parts -----------------------------------------------------------------------------------------


def _size(root: ElementTree.Element) -> tuple[float, float]:
    view = [float(v) for v in NUMBER.findall(root.get("viewBox", ""))]
    return (view[2], view[3]) if len(view) == 4 and view[2] > 0 and view[3] > 0 else (1.0, 1.0)


def _kind(group: ElementTree.Element, background: bool) -> str | None:
    """The kind of data mark ``group`` (a child of an axes group) draws, or None."""
    name = group.get("id", "").split("_")[0]
    if background:
        return None
    if name == "patch":
        path = group.find(f"{SVG}path")
        d, style = (path.get("d", ""), path.get("style", "")) if path is not None else ("", "")
        if "fill: none" in style:  # (a spine: the axes' frame)
            return None
        return "wedge" if "C" in d or "Q" in d else "bar"
    return MARKS.get(name)


def _colours(group: ElementTree.Element) -> list[str]:
    found = []
    for element in group.iter():
        style = element.get("style", "")
        for pattern in (FILL, STROKE):
            match = pattern.search(style)
            if match:
                found.append(match.group(1).lower())
                break
    return found[:1] if group.get("id", "").startswith(("patch", "line2d")) else sorted(set(found))


def _box(background: ElementTree.Element, size: tuple[float, float]) -> tuple[float, float, float, float]:
    path = background.find(f"{SVG}path")
    values = [float(v) for v in NUMBER.findall(path.get("d", ""))] if path is not None else []
    xs, ys = values[0::2], values[1::2]
    if not xs or not ys:
        return (0.0, 0.0, 0.0, 0.0)
    width, height = size
    return (min(xs) / width, min(ys) / height, max(xs) / width, max(ys) / height)


def _f1(expected: Counter[str], found: Counter[str]) -> float:
    if not expected and not found:
        return 1.0
    common = sum((expected & found).values())
    if common == 0:
        return 0.0
    precision, recall = common / sum(found.values()), common / sum(expected.values())
    return 2 * precision * recall / (precision + recall)


def _colour_f1(expected: tuple[str, ...], found: tuple[str, ...]) -> float:
    """F1 of two colour multisets, a colour of one matching an unmatched one of the other
    within `COLOUR_MATCH` (closest pairs first)."""
    if not expected and not found:
        return 1.0
    if not expected or not found:
        return 0.0
    a, b = (
        srgb_to_lab(np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in cs], dtype=np.float64))
        for cs in (expected, found)
    )
    distances = ciede2000(a[:, None, :], b[None, :, :])
    used_a, used_b, matched = set(), set(), 0
    for flat in np.argsort(distances, axis=None):
        i, j = divmod(int(flat), len(found))
        if distances[i, j] > COLOUR_MATCH:
            break
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            matched += 1
    precision, recall = matched / len(found), matched / len(expected)
    return 0.0 if matched == 0 else 2 * precision * recall / (precision + recall)


def _layout(expected: tuple[tuple[float, ...], ...], found: tuple[tuple[float, ...], ...]) -> float:
    """The mean overlap (IoU) of the axes' boxes, matched greedily, over the larger count."""
    if not expected and not found:
        return 1.0
    if not expected or not found:
        return 0.0
    pairs = sorted(((_iou(a, b), i, j) for i, a in enumerate(expected) for j, b in enumerate(found)), reverse=True)
    used_a, used_b, total = set(), set(), 0.0
    for overlap, i, j in pairs:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            total += overlap
    return total / max(len(expected), len(found))


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0
