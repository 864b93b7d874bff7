"""Pages: the gate in front of the browser, and the Design2Code-style scores of its layout.

The gate (`check_page`, on the host, before anything renders) refuses what could paint the
target without laying out a page, or reach beyond it: ``data:`` URLs (an embedded raster),
links to other files or hosts (``href``/``src``/``url()`` to anything absolute), frames,
objects and embeds, a ``<canvas>`` when scripts run, and CSS pixel art (box shadows or
gradient stops by the hundred). After the render, `painted` refuses a layout of hundreds of
tiny coloured boxes (pixels painted as divs), read from the browser's own snapshot.

`scores` compares the browser's record of the target with the submission's (what the
browser laid out, never what the page says of itself):

- ``block_match``: the share of the target's text (by area) found in matched text blocks;
- ``text``: how alike the matched blocks' texts are (character sequences);
- ``position``: how close the matched blocks sit (1 - centre distance over the diagonal);
- ``text_colour``: how alike their colours are (1 - CIEDE2000 / 30);
- ``structure``: how alike the element trees are (the sequences of tags).

Text blocks are matched greedily by text similarity (at least 0.5), as Design2Code matches
them, without OCR: the browser says where each text run is.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from codegym.envs.visual.gate import Violation, line_of
from codegym.envs.visual.metrics import DELTA_E_SCALE, ciede2000, srgb_to_lab

MAX_BYTES = 256 << 10
MAX_ELEMENTS = 5000
MAX_TINY = 300  # boxes of at most TINY_AREA square pixels with a colour: more paint pixels
TINY_AREA = 9.0
MAX_SHADOWS = 100  # comma-separated layers of one box-shadow
MAX_STOPS = 200  # colour stops of one gradient
PAGE_METRICS = ("block_match", "text", "position", "text_colour", "structure")
MATCH = 0.5
DATA = re.compile(r"data:\s*[a-z]+/[a-z0-9.+-]+", re.IGNORECASE)
LINK = re.compile(r"""(?:\b(?:href|src|srcset|action|poster|background)\s*=\s*["']?|url\(\s*["']?|@import\s+["']?)"""
                  r"""\s*((?:[a-z][a-z0-9+.-]*:|//|/)[^"')\s>]*)""", re.IGNORECASE)  # fmt: skip
EMBEDS = re.compile(r"<\s*(iframe|frame|object|embed|portal|base)\b", re.IGNORECASE)
CANVAS = re.compile(r"<\s*canvas\b", re.IGNORECASE)
SHADOW = re.compile(r"box-shadow\s*:([^;}\"']*)", re.IGNORECASE)
GRADIENT = re.compile(r"gradient\(([^;}\"']*)", re.IGNORECASE)
TAG = re.compile(r"<\s*[a-zA-Z]")
RGB = re.compile(r"rgba?\(\s*([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?")


@functools.lru_cache(maxsize=64)
def check_page(source: str, *, javascript: bool = False) -> Violation | None:
    """The first reason ``source`` (an HTML page) may not be rendered, or None."""
    size = len(source.encode())
    if size > MAX_BYTES:
        return Violation(f"the page is {size} bytes; the limit is {MAX_BYTES}", 0, hack=False)
    elements = len(TAG.findall(source))
    if elements > MAX_ELEMENTS:
        return Violation(f"{elements} elements; the limit is {MAX_ELEMENTS}", 0, hack=False)
    found = DATA.search(source)
    if found:
        return Violation("a data: URL (an embedded file)", line_of(source, found.start()))
    found = LINK.search(source)
    if found and not found.group(1).startswith("#"):
        return Violation(f"a link to {found.group(1)[:60]!r} (only the page itself: no other file or host)",
                         line_of(source, found.start()))  # fmt: skip
    found = EMBEDS.search(source)
    if found:
        return Violation(f"<{found.group(1).lower()}> (another document in the page)", line_of(source, found.start()))
    found = CANVAS.search(source)
    if found and javascript:
        return Violation("a <canvas> with scripts on (pixels drawn by a script)", line_of(source, found.start()))
    for pattern, most, what in ((SHADOW, MAX_SHADOWS, "box-shadow layers"), (GRADIENT, MAX_STOPS, "gradient stops")):
        for match in pattern.finditer(source):
            count = match.group(1).count(",") + 1
            if count > most:
                return Violation(f"{count} {what}: pixels painted in CSS", line_of(source, match.start()))
    return None


def painted(record: Mapping[str, Any]) -> Violation | None:
    """A layout of hundreds of tiny coloured boxes: pixels painted as elements."""
    tiny = sum(1 for box in record.get("boxes", ()) if box[3] * box[4] <= TINY_AREA and _visible(box[5]))
    if tiny > MAX_TINY:
        return Violation(f"{tiny} boxes of at most {TINY_AREA:g} square pixels: painting pixels one by one", 0)
    return None


def scores(target: Mapping[str, Any], drawn: Mapping[str, Any], size: tuple[int, int]) -> dict[str, float]:
    """The page scores of ``drawn`` against ``target`` (records from `browser.page_records`),
    on a page of ``size`` (height, width)."""
    ours, theirs = _blocks(target.get("texts", ())), _blocks(drawn.get("texts", ()))
    structure = difflib.SequenceMatcher(None, target.get("tags", []), drawn.get("tags", []), autojunk=False).ratio()
    if not ours:
        empty = 1.0 if not theirs else 0.0
        return {"block_match": empty, "text": empty, "position": empty, "text_colour": empty, "structure": structure}
    pairs = _match(ours, theirs)
    total = sum(b["area"] for b in ours) + sum(b["area"] for b in theirs)
    matched = sum(ours[i]["area"] + theirs[j]["area"] for i, j, _ in pairs)
    if not pairs:
        return {"block_match": 0.0, "text": 0.0, "position": 0.0, "text_colour": 0.0, "structure": structure}
    diagonal = float(np.hypot(*size))
    position = [1 - min(1.0, np.hypot(ours[i]["x"] - theirs[j]["x"], ours[i]["y"] - theirs[j]["y"]) / diagonal * 4)
                for i, j, _ in pairs]  # fmt: skip
    colours = [_colour_similarity(ours[i]["colour"], theirs[j]["colour"]) for i, j, _ in pairs]
    unmatched = len(ours) - len(pairs)
    return {
        "block_match": min(1.0, matched / total) if total else 0.0,  # (sums in another order: 1 + 2e-16)
        "text": float(np.mean([s for _, _, s in pairs])) * len(pairs) / (len(pairs) + unmatched),
        "position": float(np.mean(position)),
        "text_colour": float(np.mean(colours)),
        "structure": structure,
    }


# --- parts ---------------------------------------------------------------------------------------


def _blocks(texts: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    return [{"text": str(t[0]), "x": float(t[1]) + float(t[3]) / 2, "y": float(t[2]) + float(t[4]) / 2,
             "area": max(1.0, float(t[3]) * float(t[4])), "colour": str(t[5])} for t in texts]  # fmt: skip


def _match(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[tuple[int, int, float]]:
    """Pairs (ours, theirs, text similarity), greedily from the most alike, each at least `MATCH`."""
    candidates = []
    for i, a in enumerate(ours):
        for j, b in enumerate(theirs):
            matcher = difflib.SequenceMatcher(None, a["text"], b["text"])
            if matcher.real_quick_ratio() < MATCH or matcher.quick_ratio() < MATCH:
                continue  # (upper bounds of `ratio`: most pairs are told apart without it)
            similarity = matcher.ratio()
            if similarity >= MATCH:
                candidates.append((similarity, -abs(a["y"] - b["y"]), i, j))
    candidates.sort(reverse=True)
    used_a, used_b, pairs = set(), set(), []
    for similarity, _, i, j in candidates:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((i, j, similarity))
    return pairs


def _rgb(colour: str) -> tuple[float, float, float] | None:
    found = RGB.match(colour.strip())
    return (float(found.group(1)), float(found.group(2)), float(found.group(3))) if found else None


def _visible(colour: str) -> bool:
    found = RGB.match(colour.strip())
    return bool(found) and (found.group(4) is None or float(found.group(4)) > 0)


def _colour_similarity(a: str, b: str) -> float:
    ra, rb = _rgb(a), _rgb(b)
    if ra is None or rb is None:
        return 1.0 if a == b else 0.0
    lab = srgb_to_lab(np.array([ra, rb], dtype=np.float64))
    return float(max(0.0, 1.0 - float(ciede2000(lab[0], lab[1])) / DELTA_E_SCALE))
