"""The integrity gate of drawn pictures: what a submission may not use to paint the target.

The target never enters the sandbox, so the only way to score without drawing is to smuggle
pixels: a raster embedded in the code (an ``<image>``, a ``data:`` URL, a filter's
``feImage``), or thousands of one-pixel shapes painting it dot by dot. Links out of the
document (``href`` and ``url()`` to anything but a ``#fragment``, ``@import``, external
entities, XInclude) are refused too: there is nothing to fetch in the sandbox, and a link that
reads a file is an attempt at one. Each is ``HACK`` with the
construct and its line. A submission too large or with too many elements to be a drawing is
refused the same way before anything renders. Pure functions of the submission's text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from xml.etree import ElementTree

MAX_BYTES = 256 << 10
MAX_ELEMENTS = 4000
MAX_CHART_BYTES = 4 << 20
MAX_CHART_ELEMENTS = 20000
MAX_TINY = 400  # shapes of at most TINY_AREA square pixels: more than this paints pixels
TINY_AREA = 4.0
MAX_SUBPATHS = 2000  # moves in one path's data: more than this paints pixels too
MAX_USES = 3000  # <use> of a defined mark (a scatter's markers): more than this paints pixels
RASTER_ELEMENTS = {"image": "an embedded raster (<image>)", "feImage": "an embedded raster (<feImage>)",
                   "foreignObject": "foreign content (<foreignObject>)"}  # fmt: skip
RASTER = re.compile(r"<\s*(?:[\w-]+:)?(image|feImage|foreignObject)\b")
LINKS = re.compile(r"(?:href|src)\s*=\s*[\"']\s*(?!#)([^\"']*)", re.IGNORECASE)
URL = re.compile(r"url\(\s*[\"']?\s*(?!#)([^)\"']*)", re.IGNORECASE)
DATA = re.compile(r"data:[a-z]+/[a-z0-9.+-]+", re.IGNORECASE)
IMPORT = re.compile(r"@import\b", re.IGNORECASE)
ENTITY = re.compile(r"<!ENTITY[^>]*\b(?:SYSTEM|PUBLIC)\b", re.IGNORECASE)
INCLUDE = re.compile(r"<\s*(?:[\w-]+:)?include\b", re.IGNORECASE)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Violation:
    """Why a submission is refused: the construct, and its line (1-based; 0: the whole file)."""

    construct: str
    line: int
    hack: bool = True  # False: a limit (too large), not a cheat

    def render(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.construct}"


def check_svg(source: str, *, chart: bool = False) -> Violation | None:
    """The first reason ``source`` (an SVG document) may not be rendered, or None. ``chart``:
    the SVG matplotlib saved of a figure (larger, with many more elements, allowed; each is
    new, so it is not cached as a submission, checked at every step of its grading, is)."""
    return _check(source, chart=True) if chart else _check_submission(source)


@functools.lru_cache(maxsize=64)
def _check_submission(source: str) -> Violation | None:
    return _check(source, chart=False)


def _check(source: str, *, chart: bool) -> Violation | None:
    size = len(source.encode())
    limit = MAX_CHART_BYTES if chart else MAX_BYTES
    if size > limit:
        return Violation(f"the SVG is {size} bytes; the limit is {limit}", 0, hack=False)
    refused = ((DATA, "a data: URL (an embedded file)"), (IMPORT, "an @import (a stylesheet from elsewhere)"),
               (ENTITY, "an external entity (a file pulled into the document)"),
               (INCLUDE, "an XInclude (a file pulled into the document)"))  # fmt: skip
    for pattern, what in refused:
        found = pattern.search(source)
        if found:
            return Violation(what, line_of(source, found.start()))
    for pattern in (LINKS, URL):
        found = pattern.search(source)
        if found:
            return Violation(f"a link to {found.group(1)[:60]!r} (only #fragments of the document are allowed)",
                             line_of(source, found.start()))  # fmt: skip
    found = RASTER.search(source)
    if found:
        return Violation(RASTER_ELEMENTS[found.group(1)], line_of(source, found.start()))
    return _check_elements(source, MAX_CHART_ELEMENTS if chart else MAX_ELEMENTS)


def _check_elements(source: str, most: int) -> Violation | None:
    try:
        root = ElementTree.fromstring(source)
    except ElementTree.ParseError:  # (librsvg reports what is wrong with it, as CE)
        return None
    elements = list(root.iter())
    if len(elements) > most:
        return Violation(f"{len(elements)} elements; the limit is {most}", 0, hack=False)
    uses = sum(1 for e in elements if e.tag.rsplit("}", 1)[-1] == "use")
    if uses > MAX_USES:
        return Violation(f"a mark placed {uses} times: painting pixels one by one", 0)
    tiny = sum(1 for e in elements if _area(e) is not None and _area(e) <= TINY_AREA)  # type: ignore[operator]
    if tiny > MAX_TINY:
        return Violation(f"{tiny} shapes of at most {TINY_AREA:g} square pixels: painting pixels one by one", 0)
    for element in elements:
        subpaths = len(re.findall(r"[Mm]", element.get("d", "")))
        if subpaths > MAX_SUBPATHS:
            return Violation(f"a path of {subpaths} pieces: painting pixels one by one", 0)
    return None


def _area(element: ElementTree.Element) -> float | None:
    """The area of a ``rect``, ``circle`` or ``ellipse`` from its attributes (None: another shape
    or unknown)."""
    tag = element.tag.rsplit("}", 1)[-1]
    names = {"rect": ("width", "height"), "circle": ("r", "r"), "ellipse": ("rx", "ry")}.get(tag)
    if names is None:
        return None
    values = [_number(element.get(name)) for name in names]
    if any(v is None for v in values):
        return None
    a, b = values
    assert a is not None and b is not None
    return a * b * (3.1416 if tag != "rect" else 1.0)


def _number(text: str | None) -> float | None:
    found = NUMBER.match(text.strip()) if text else None
    return float(found.group()) if found else None


def line_of(source: str, offset: int) -> int:
    """The line (from 1) of ``source`` at ``offset``."""
    return source.count("\n", 0, offset) + 1
