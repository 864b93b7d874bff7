"""The gate of chart programs: what a matplotlib program may not do, found in its syntax tree.

A chart is drawn from data with plotting calls. A program that draws a raster
(``imshow``/``figimage`` of literal pixels, an image read from a file), carries data enough to
paint the picture dot by dot, or reaches for the file system, the process or the interpreter's
internals (where a target could be looked for, or the runner tampered with) is ``HACK`` with
the construct and its line. Pure functions of the program's text.
"""

from __future__ import annotations

import ast
import functools

from codegym.envs.visual.gate import Violation

MAX_BYTES = 64 << 10
MAX_NUMBERS = 3000  # numeric literals: a chart's data, not a picture's pixels
MAX_TEXT = 4000  # characters of one string literal
MAX_STRINGS = 600  # string literals: a chart's labels, not a mosaic's colours
ALLOWED_MODULES = {"matplotlib", "numpy", "math", "random", "statistics", "collections", "itertools",
                   "datetime", "string", "functools", "operator", "textwrap", "calendar", "colorsys", "decimal",
                   "fractions"}  # fmt: skip
RASTER_CALLS = {"imshow", "figimage", "matshow", "pcolor", "pcolormesh", "pcolorfast", "imread", "imsave",
                "AxesImage", "BboxImage", "OffsetImage", "FigureImage", "NonUniformImage", "PcolorImage",
                "frombuffer", "fromfile", "load", "loadtxt", "genfromtxt", "fromstring"}  # fmt: skip
REFUSED_NAMES = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "getattr", "setattr",
                 "delattr", "breakpoint", "input", "memoryview", "help", "exit", "quit"}  # fmt: skip


@functools.lru_cache(maxsize=256)
def check_chart(source: str) -> Violation | None:
    """The first reason ``source`` (a matplotlib program) may not run, or None. A program that
    does not parse passes: it fails in the sandbox, where its traceback is feedback."""
    size = len(source.encode())
    if size > MAX_BYTES:
        return Violation(f"the program is {size} bytes; the limit is {MAX_BYTES}", 0, hack=False)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    numbers = strings = 0
    for node in ast.walk(tree):
        found = _refused(node)
        if found:
            return Violation(found, getattr(node, "lineno", 0))
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)):
            numbers += 1
            if numbers > MAX_NUMBERS:
                what = f"more than {MAX_NUMBERS} numbers in the program: a picture's pixels, not a chart's data"
                return Violation(what, node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings += 1
            if strings > MAX_STRINGS:
                return Violation(f"more than {MAX_STRINGS} strings in the program: a mosaic's colours, not a chart's "
                                 "labels", node.lineno)  # fmt: skip
    return None


def _refused(node: ast.AST) -> str | None:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or "."]
        for name in names:
            if name.split(".")[0] not in ALLOWED_MODULES:
                return f"import {name}: only plotting and arithmetic modules ({', '.join(sorted(ALLOWED_MODULES))})"
        if isinstance(node, ast.ImportFrom) and any(a.name in RASTER_CALLS for a in node.names):
            return "an image reader or raster drawer imported by name"
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            return f"the private attribute .{node.attr}"
        if node.attr in RASTER_CALLS:
            return f".{node.attr}: a raster, not a chart (draw the chart's data with plotting calls)"
    if isinstance(node, ast.Name) and (node.id in REFUSED_NAMES or node.id.startswith("__")):
        return f"{node.id}: the program may only plot"
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bytes):
            return "a bytes literal (embedded data)"
        if isinstance(node.value, str) and len(node.value) > MAX_TEXT:
            return f"a string of {len(node.value)} characters (embedded data)"
    return None
