"""The renderers' side of the sandbox: turn a submission into pixels, and nothing else.

A step runs ``python -m codegym.envs.visual.render <kind> <width> <height> <nonce>`` in a warm
worker that imported this module (and so loaded librsvg and cairo) once; the step's fork reads
the submission from the work dir, renders it on a white ``width`` x ``height`` canvas (a
picture of another size scaled to fit, its aspect ratio kept, centred: a reference and a
submission alike), and writes one frame to stdout::

    codegym-render <nonce> <width> <height> <length>\\n<raw deflate of cairo's B G R A bytes, row by row>

Whatever else appears on stdout, and any frame without the step's nonce, is ignored by the
grader (`codegym.envs.visual.grader`). Exit status 2 means the submission could not be read
(stderr says why, in the renderer's words).

Kinds:
    ``svg``: ``drawing.svg`` rendered by librsvg (Debian's ``librsvg2-2``, the library behind
    ``rsvg-convert``) through cairo, with no base URL: references to files and the network
    resolve to nothing.
    ``chart``: ``chart.svg``, the figure the chart runner (`plotting`) saved, the same way.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import zlib
from collections.abc import Iterator
from typing import Any

from codegym.executor.base import Job, Step

FRAME = b"codegym-render"
SVG_FILE = "drawing.svg"
CHART_FILE = "chart.svg"  # (what the chart runner saved of a matplotlib program's figure)
ARGB32 = 0  # cairo's pixel format: 32 bits, B G R A in memory on a little-endian machine
# A raw deflate stream (no zlib header, no Adler-32: a pipe does not garble bytes, and the
# checksum cost each end a tenth of a millisecond); the grader reads it with the same bits.
DEFLATE_BITS = -15


class _Rectangle(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("width", ctypes.c_double), ("height", ctypes.c_double)]


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


_ErrorOut = ctypes.POINTER(ctypes.POINTER(_GError))


class RenderError(Exception):
    """The submission could not be rendered; the message is the renderer's."""


class _Libraries:
    """librsvg, cairo and GObject, loaded once, with the prototypes this module calls."""

    def __init__(self) -> None:
        self.rsvg = ctypes.CDLL("librsvg-2.so.2")
        self.cairo = ctypes.CDLL("libcairo.so.2")
        self.gobject = ctypes.CDLL("libgobject-2.0.so.0")
        self.glib = ctypes.CDLL("libglib-2.0.so.0")
        p, size, double = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_double
        self._declare(self.rsvg, "rsvg_handle_new_from_data", p, [ctypes.c_char_p, size, _ErrorOut])
        self._declare(
            self.rsvg, "rsvg_handle_render_document", ctypes.c_int, [p, p, ctypes.POINTER(_Rectangle), _ErrorOut]
        )
        self._declare(self.cairo, "cairo_image_surface_create", p, [ctypes.c_int, ctypes.c_int, ctypes.c_int])
        self._declare(self.cairo, "cairo_create", p, [p])
        self._declare(self.cairo, "cairo_set_source_rgb", None, [p, double, double, double])
        self._declare(self.cairo, "cairo_paint", None, [p])
        self._declare(self.cairo, "cairo_surface_flush", None, [p])
        self._declare(self.cairo, "cairo_image_surface_get_data", ctypes.POINTER(ctypes.c_ubyte), [p])
        self._declare(self.cairo, "cairo_image_surface_get_stride", ctypes.c_int, [p])
        self._declare(self.cairo, "cairo_destroy", None, [p])
        self._declare(self.cairo, "cairo_surface_destroy", None, [p])
        self._declare(self.gobject, "g_object_unref", None, [p])
        self._declare(self.glib, "g_error_free", None, [ctypes.POINTER(_GError)])

    @staticmethod
    def _declare(library: ctypes.CDLL, name: str, result: Any, arguments: list[Any]) -> None:
        function = getattr(library, name)
        function.restype, function.argtypes = result, arguments


_libraries: _Libraries | None = None


def libraries() -> _Libraries:
    global _libraries
    if _libraries is None:
        _libraries = _Libraries()
    return _libraries


@contextlib.contextmanager
def rendered(source: bytes, width: int, height: int) -> Iterator[memoryview]:
    """``source`` rendered on a white ``width`` x ``height`` canvas: cairo's own pixel rows
    (B G R A bytes, alpha 255 everywhere), seen in place for as long as the block runs.

    A picture is scaled to fit the canvas, its aspect ratio kept and centred (librsvg's
    viewport: the size it declares, in any unit, or its ``viewBox``; one of 24 x 24 fills a
    256 x 256 canvas, one of 48 x 24 fills its width), so that a picture and the same one
    at another size draw the same pixels. Raises `RenderError` when librsvg cannot read or
    draw it. (In place: each copy of the pixels would cost a forked step its pages.)"""
    lib = libraries()
    error = ctypes.POINTER(_GError)()
    handle = lib.rsvg.rsvg_handle_new_from_data(source, len(source), ctypes.byref(error))
    if not handle:
        raise RenderError(_message(lib, error, "librsvg could not read the SVG"))
    surface = context = None
    try:
        surface = lib.cairo.cairo_image_surface_create(ARGB32, width, height)
        context = lib.cairo.cairo_create(surface)
        lib.cairo.cairo_set_source_rgb(context, 1.0, 1.0, 1.0)
        lib.cairo.cairo_paint(context)
        viewport = _Rectangle(0.0, 0.0, float(width), float(height))
        if not lib.rsvg.rsvg_handle_render_document(handle, context, ctypes.byref(viewport), ctypes.byref(error)):
            raise RenderError(_message(lib, error, "librsvg could not draw the SVG"))
        lib.cairo.cairo_surface_flush(surface)
        if lib.cairo.cairo_image_surface_get_stride(surface) != 4 * width:  # (cairo pads no 32-bit row)
            raise RenderError(f"cairo laid out the {width}-pixel rows with padding")
        data = lib.cairo.cairo_image_surface_get_data(surface)
        with memoryview((ctypes.c_ubyte * (4 * width * height)).from_address(ctypes.addressof(data.contents))) as view:
            yield view
    finally:
        if context:
            lib.cairo.cairo_destroy(context)
        if surface:
            lib.cairo.cairo_surface_destroy(surface)
        lib.gobject.g_object_unref(handle)


def _message(lib: _Libraries, error: Any, default: str) -> str:
    if not error:
        return default
    text = (error.contents.message or b"").decode(errors="replace")
    lib.glib.g_error_free(error)
    return text or default


def frame(nonce: str, width: int, height: int, bgra: bytes | memoryview) -> bytes:
    """The frame a render step writes: its header line, then ``bgra`` deflated (fastest level)."""
    packer = zlib.compressobj(1, zlib.DEFLATED, DEFLATE_BITS)
    body = packer.compress(bgra) + packer.flush()
    return b"%s %s %d %d %d\n" % (FRAME, nonce.encode(), width, height, len(body)) + body


RENDERERS = {"svg": SVG_FILE, "chart": CHART_FILE}  # kind -> the file librsvg renders


def main() -> None:
    kind, width, height, nonce = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    try:
        with open(RENDERERS[kind], "rb") as handle:
            source = handle.read()
        with rendered(source, width, height) as bgra:
            out = frame(nonce, width, height, bgra)
    except (RenderError, OSError) as e:
        sys.stderr.write(f"{e}\n")
        sys.stderr.flush()
        os._exit(2)
    sys.stdout.buffer.write(out)
    sys.stdout.flush()


WARM_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="4" height="4" fill="red"/>'
    b'<text x="0" y="8" font-size="6">a</text></svg>'
)


def warm_up() -> None:
    """Load the libraries and draw once (fonts included), so that a step only renders."""
    with rendered(WARM_SVG, 8, 8) as bgra:
        frame("warm", 8, 8, bgra)


def rehearsal() -> Job:
    """A made-up picture, rendered as a submission is (see `codegym.executor.Job.preload`):
    each worker runs it once, so that its spares learn which pages a render step writes (and
    copy them as they are forked, not one fault at a time on the step's path)."""
    source = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="128" height="96" fill="#c33"/>'
        b'<circle cx="160" cy="160" r="60" fill="none" stroke="#236" stroke-width="6"/>'
        b'<text x="20" y="230" font-size="24">Rehearsal</text></svg>'
    )
    step = Step(argv=("python", "-m", __name__, "svg", "256", "256", "rehearsal"))
    return Job(steps=(step,), files={SVG_FILE: source}, preload=(__name__,))


warm_up()  # (at import: a worker that preloads this module has them, and its fonts, before its first fork)
