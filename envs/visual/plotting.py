"""The chart runner's side of the sandbox: run a matplotlib program, keep what it drew.

Preloaded by `PlottingExecutor`'s workers (matplotlib imported once, with the Agg backend and
its fonts loaded, before the first fork). A step ``python -m codegym.envs.visual.plotting
<width> <height>`` runs ``chart.py`` from the work dir in a fresh namespace, its figures sized
``width`` x ``height`` pixels before it starts (``figure.figsize`` at 100 ``figure.dpi``, so
that a figure is laid out at the size it is saved at) and numpy's and `random`'s global
generators seeded (a program that draws unseeded random data draws the same picture each
run), then saves the current figure at ``width`` x ``height`` pixels (a figure the program
sized otherwise is resized) as ``chart.svg`` with its text as text. The grader never reads a
picture this process made: the SVG is checked by the gate and rendered by librsvg in the
job's next step, a process the program never sees.
Exit status 1: the program raised (its traceback is on stderr, the program's own lines only:
no frame of this harness or of matplotlib); 4: it drew nothing.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import traceback

tempfile.tempdir = "/tmp"
os.environ["MPLBACKEND"] = "Agg"
os.environ["MPLCONFIGDIR"] = "/tmp"
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # (no thread pools in a process that forks)


def _import_matplotlib() -> None:
    """Import matplotlib in a worker whose /tmp is read-only until a job mounts its own.
    matplotlib refuses to import without a writable config folder, though it only writes
    there to cache its font list (and goes on when it cannot): it is told /tmp is writable
    for the import, and builds its font list in memory, once per worker."""
    access = os.access
    os.access = lambda path, mode, **kwargs: path == "/tmp" or access(path, mode, **kwargs)  # type: ignore[assignment]
    try:
        import matplotlib.pyplot  # noqa: F401
    finally:
        os.access = access


_import_matplotlib()
import matplotlib  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

PROGRAM = "chart.py"
OUTPUT = "chart.svg"
DPI = 100
STYLE = {"svg.fonttype": "none", "svg.hashsalt": "codegym", "svg.id": None}
SEED = 0  # numpy's and random's global generators, before each program


def _own_fonts() -> None:
    """Close the fonts this process opened. FreeType reads a font through a file whose offset
    a forked child would share with its parent and siblings, so a glyph read in one process
    would move it under the others ("failed to load glyph"); matplotlib closes them in an
    ``os.register_at_fork`` handler, which the worker's fork does not run. So the worker
    closes its own after warming up, and each step opens the fonts it draws with."""
    from matplotlib import font_manager

    font_manager._get_font.cache_clear()  # type: ignore[attr-defined]


def main() -> None:
    width, height = int(sys.argv[1]), int(sys.argv[2])
    with open(PROGRAM, encoding="utf-8") as handle:
        source = handle.read()
    prepare(width, height)
    namespace = {"__name__": "__main__", "plt": plt, "np": np, "matplotlib": matplotlib}
    try:
        exec(compile(source, PROGRAM, "exec"), namespace)
    except SystemExit:
        pass
    except BaseException as e:
        sys.stderr.write(program_traceback(e))
        sys.stderr.flush()
        os._exit(1)
    try:
        save(width, height)
    except Exception as e:  # (what the program asked for that fails only when drawn: a bad mathtext)
        sys.stderr.write("the figure could not be drawn when it was saved:\n" + program_traceback(e))
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)


def prepare(width: int, height: int) -> None:
    """A fresh start for a program: no figure, matplotlib's defaults but a figure of
    ``width`` x ``height`` pixels, and the global random generators seeded."""
    plt.close("all")
    matplotlib.rcdefaults()
    matplotlib.rcParams["figure.figsize"] = (width / DPI, height / DPI)
    matplotlib.rcParams["figure.dpi"] = DPI
    np.random.seed(SEED)
    random.seed(SEED)


def program_traceback(error: BaseException) -> str:
    """``error``'s traceback as the program's author would read it: only the frames of the
    program's own lines (the call into matplotlib that raised is the last of them), then
    the exception. A program that does not compile has no frame: its error says where."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == PROGRAM]
    head = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) if frames else ""
    return head + "".join(traceback.format_exception_only(type(error), error))


def save(width: int, height: int) -> None:
    """The current figure as ``chart.svg``: ``width`` x ``height`` pixels, text as text."""
    if not plt.get_fignums():
        sys.stderr.write("the program made no figure\n")
        sys.stderr.flush()
        os._exit(4)
    figure = plt.gcf()
    figure.set_size_inches(width / DPI, height / DPI)
    with matplotlib.rc_context(STYLE):
        figure.savefig(OUTPUT, format="svg", dpi=DPI, metadata={"Date": None, "Creator": None})


def warm_up() -> None:
    """Draw and save a small chart once, so a step's first chart costs what the next does."""
    import io

    figure, axes = plt.subplots(figsize=(1, 1))
    axes.plot([0, 1], [1, 0], label="a")
    axes.bar([0], [1])
    axes.set_title("warm")
    axes.legend()
    with matplotlib.rc_context(STYLE):
        figure.savefig(io.BytesIO(), format="svg")
    plt.close("all")
    _own_fonts()  # (steps are forked from the process that warmed up: it keeps no open font)


warm_up()
