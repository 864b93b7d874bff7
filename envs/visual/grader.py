"""Judging a render: pure functions of the target, the render step's result and the weights.

The picture comes out of the sandbox as one frame tagged with the step's nonce (see
`codegym.envs.visual.render`); everything is computed here, outside, from its pixels. Failure
is never partial credit: a submission the gate refuses is ``HACK`` (or ``CE`` past a size
limit), one the renderer cannot read is ``CE``, a blank render is ``WA``, and each scores 0.
A picture that renders is ``OK`` and scores its similarity.
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np
from codegym.envs.visual import metrics
from codegym.envs.visual.gate import Violation

from codegym.executor import RunResult
from codegym.executor.base import StepResult
from codegym.grade import Diagnostic, Grade, Status, step_failure

FRAME = b"codegym-render"
DEFLATE_BITS = -15  # a frame's body is a raw deflate stream (`codegym.envs.visual.render.DEFLATE_BITS`)
DIFFERENCE_CELLS = 16  # the difference map's regions a side


def decode(stdout: bytes, nonce: str, width: int, height: int) -> np.ndarray | None:
    """The picture in the frame tagged ``nonce`` (an ``(height, width, 3)`` uint8 array), or
    None when there is none of that size."""
    header = b"%s %s " % (FRAME, nonce.encode())
    start = stdout.find(header)
    if start < 0:
        return None
    end = stdout.find(b"\n", start)
    fields = stdout[start + len(header) : end].split()
    if end < 0 or len(fields) != 3 or not all(f.isdigit() for f in fields):
        return None
    w, h, length = (int(f) for f in fields)
    body = stdout[end + 1 : end + 1 + length]
    if (w, h) != (width, height) or len(body) != length:
        return None
    try:  # (at most one byte past the picture: a stream that inflates to more is refused, not held)
        bgra = zlib.decompressobj(DEFLATE_BITS).decompress(body, width * height * 4 + 1)
    except zlib.error:
        return None
    if len(bgra) != width * height * 4:
        return None
    return rgb_of_bgra(np.frombuffer(bgra, dtype=np.uint8).reshape(height, width, 4))


def rgb_of_bgra(bgra: np.ndarray) -> np.ndarray:
    """cairo's ``(H, W, 4)`` B G R A pixels as a C-contiguous ``(H, W, 3)`` R G B picture."""
    # (a channel at a time: a fancy index gives a picture whose channels lie in planes, and every
    # later pass over it, a copy included, walks memory with a stride and costs several times more)
    picture = np.empty((*bgra.shape[:2], 3), dtype=np.uint8)
    for channel in range(3):
        picture[..., channel] = bgra[..., 2 - channel]
    return picture


def decode_page(stdout: bytes, nonce: str, width: int, height: int) -> tuple[np.ndarray, dict[str, Any]] | None:
    """The screenshot (decoded from its PNG) and the layout record in a page frame tagged
    ``nonce`` (see `browser`), or None when there is none of that size."""
    header = b"%s %s " % (FRAME, nonce.encode())
    start = stdout.find(header)
    end = stdout.find(b"\n", start)
    fields = stdout[start + len(header) : end].split() if start >= 0 and end >= 0 else []
    if len(fields) != 4 or not all(f.isdigit() for f in fields):
        return None
    w, h, png_length, record_length = (int(f) for f in fields)
    png = stdout[end + 1 : end + 1 + png_length]
    body = stdout[end + 1 + png_length : end + 1 + png_length + record_length]
    if (w, h) != (width, height) or len(png) != png_length or len(body) != record_length:
        return None
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as image:
            if image.format != "PNG" or image.size != (width, height):
                return None
            picture = np.asarray(image.convert("RGB"), dtype=np.uint8).copy()
        record = json.loads(body)
    except (OSError, ValueError):
        return None
    return (picture, record) if isinstance(record, dict) else None


def refused(violation: Violation) -> Grade:
    """The grade of a submission the gate refused: nothing of it was rendered."""
    status = Status.HACK if violation.hack else Status.CE
    message = f"{'integrity: ' if violation.hack else ''}{violation.render()}"
    diagnostic = Diagnostic(violation.construct, line=violation.line or None, code="gate")
    return Grade(status, diagnostics=(diagnostic,), message=message, metrics={"similarity": 0.0})


def grade(
    target: metrics.Target,
    result: RunResult,
    nonce: str,
    weights: Mapping[str, float],
    similarity: metrics.Similarity | None = None,
    *,
    file: str = "drawing.svg",
    extra: Mapping[str, float] | None = None,
    picture: np.ndarray | None = None,
) -> Grade:
    """The grade of the render ``result`` against ``target``, under the reward mix ``weights``
    (plus ``similarity``, a user's learned metric, under the name ``learned``, and ``extra``
    scores a family measured of what was drawn)."""
    step = result.steps[-1]
    height, width = target.image.shape[:2]
    resources = {"cpu_s": step.cpu_s, "wall_s": step.wall_s}
    said = step.stderr.decode(errors="replace").strip()[-2000:]
    if step.limit is None and step.exit_code == 2 and not step.denied_syscall:
        what = "the renderer could not read it"
        diagnostic = Diagnostic(said or what, file=file, code="render")
        return Grade(Status.CE, diagnostics=(diagnostic,), message=f"{what}: {said[:200]}", metrics={"similarity": 0.0},
                     resources=resources)  # fmt: skip
    failure = step_failure(step)
    if failure is not None:
        status, message = failure
        return Grade(status, message=f"the render failed: {message}", metrics={"similarity": 0.0}, resources=resources)
    picture = decode(step.stdout, nonce, width, height) if picture is None else picture
    if picture is None:
        return Grade(
            Status.RE, message="the renderer wrote no picture", metrics={"similarity": 0.0}, resources=resources
        )
    artifacts = {"render": picture, "difference": difference_map(target.image, picture)}
    if metrics.is_blank(picture):
        return Grade(Status.WA, message="the render is blank: nothing was drawn", metrics={"similarity": 0.0},
                     resources=resources, artifacts=artifacts)  # fmt: skip
    scores = {**metrics.scores(target, picture), **(extra or {})}
    mix = dict(weights)
    if similarity is not None:
        scores["learned"] = float(np.clip(similarity(target.image, picture), 0.0, 1.0))
        mix.setdefault("learned", 0.0)
    value = metrics.mixed(scores, mix)
    shown = ", ".join(f"{name} {score:.3f}" for name, score in scores.items())
    return Grade(
        Status.OK,
        message=f"similarity {value:.3f} ({shown})",
        metrics={"similarity": value, **scores},
        resources=resources,
        artifacts=artifacts,
    )


def program_failure(step: StepResult, *, file: str) -> Grade | None:
    """The grade of a program that did not draw (its traceback, a limit, no figure), or None
    when it ran to its end and saved its figure."""
    said = step.stderr.decode(errors="replace").strip()
    if step.limit is None and not step.denied_syscall and step.exit_code == 4:
        return Grade(Status.WA, message="the program drew no figure", metrics={"similarity": 0.0})
    failure = step_failure(step)
    if failure is None:
        return None
    status, message = failure
    if status is Status.RE and step.exit_code == 1 and said:
        last = said.splitlines()[-1][:300]
        diagnostic = Diagnostic(said[-3000:], file=file, code="traceback")
        return Grade(
            Status.RE, diagnostics=(diagnostic,), message=f"the program raised: {last}", metrics={"similarity": 0.0}
        )
    return Grade(status, message=f"the program failed: {message}", metrics={"similarity": 0.0})


def difference_map(target: np.ndarray, render: np.ndarray) -> np.ndarray:
    """Where the pictures differ, as a picture of their size: each of `DIFFERENCE_CELLS` x
    `DIFFERENCE_CELLS` regions grey from black (the same) to white (as far apart as colours go;
    twice the mean difference of a channel, capped)."""
    height, width = target.shape[:2]
    channels = np.maximum(target, render) - np.minimum(target, render)  # (|target - render|, in uint8)
    error = metrics.area_down(channels, DIFFERENCE_CELLS).mean(axis=2)
    cells = np.minimum(255, np.rint(error * 2)).astype(np.uint8)
    (h, w), fy, fx = cells.shape, height // cells.shape[0], width // cells.shape[1]
    grown = np.broadcast_to(cells[:, None, :, None, None], (h, fy, w, fx, 3)).reshape(h * fy, w * fx, 3)
    if grown.shape[:2] != (height, width):  # (a canvas the cells do not divide: its last rows and columns)
        grown = np.pad(grown, ((0, height - h * fy), (0, width - w * fx), (0, 0)), mode="edge")
    return grown


def difference_text(difference: np.ndarray, cells: int = 8) -> str:
    """A `difference_map` as text a model can read: ``cells`` x ``cells`` regions, each a
    digit from 0 (the same) to 9 (as far apart as colours go), rows from the top."""
    grey = difference[..., 0].astype(np.float32)
    levels = np.minimum(9, np.rint(metrics.area_down(grey, cells) / 255 * 9)).astype(int)
    rows = ["".join(str(level) for level in row) for row in levels]
    return (
        f"Where they differ ({cells} x {cells} regions, rows from the top; 0: the same, 9: far apart):\n"
        + "\n".join(rows)
    )
