"""A seeded generator of SVG pictures: shapes, icons and badges, with difficulty knobs.

A `Scene` is a canvas, a background and shapes; `Scene.svg` is its hidden reference code.
Every scene is drawn with the elements an agent may use (no rasters), so every generated task
is solvable exactly. `variants` makes the degraded pictures the reward-sanity suite ranks:
shifted, recoloured, missing a shape, laid out anew, blank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

Kind = Literal["rect", "circle", "ellipse", "polygon", "star", "line", "blob"]
KINDS: tuple[Kind, ...] = ("rect", "circle", "ellipse", "polygon", "star", "line", "blob")
PALETTE = ("#e63946", "#f4a261", "#e9c46a", "#2a9d8f", "#264653", "#457b9d", "#1d3557", "#8338ec",
           "#ff006e", "#3a86ff", "#06d6a0", "#118ab2", "#ef476f", "#ffd166", "#073b4c", "#6a994e")  # fmt: skip
BACKGROUNDS = ("#ffffff", "#ffffff", "#ffffff", "#f1faee", "#fefae0", "#edf2f4")


@dataclass(frozen=True)
class Knobs:
    """How hard a scene is: how many shapes, which kinds, and what decorates them."""

    shapes: tuple[int, int] = (2, 4)
    kinds: tuple[Kind, ...] = ("rect", "circle", "ellipse")
    stroke: float = 0.0  # the chance that a shape has an outline
    rotate: float = 0.0  # the chance that a shape is rotated
    gradient: float = 0.0  # the chance that a shape is filled with a linear gradient
    opacity: float = 0.0  # the chance that a shape is translucent
    background: float = 0.0  # the chance of a tinted background


DIFFICULTIES: Mapping[str, Knobs] = {
    "easy": Knobs(),
    "medium": Knobs(shapes=(3, 6), kinds=KINDS[:5], stroke=0.4, rotate=0.3, background=0.3),
    "hard": Knobs(shapes=(5, 9), kinds=KINDS, stroke=0.5, rotate=0.5, gradient=0.3, opacity=0.3, background=0.5),
}


@dataclass(frozen=True)
class Shape:
    kind: Kind
    x: float  # centre
    y: float
    w: float  # extent (a circle's diameter is w)
    h: float
    fill: str
    stroke: str | None = None
    stroke_width: float = 0.0
    rotate: float = 0.0
    gradient: str | None = None  # the second colour of a left-to-right gradient
    opacity: float = 1.0
    sides: int = 5  # a polygon's or a star's
    seed: int = 0  # a blob's outline

    @property
    def area(self) -> float:
        return self.w * self.h


@dataclass(frozen=True)
class Scene:
    width: int
    height: int
    shapes: tuple[Shape, ...]
    background: str = "#ffffff"
    description: str = field(default="", compare=False)

    @property
    def svg(self) -> str:
        """The scene as SVG source (the task's hidden reference)."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">'
        )
        gradients = [_gradient(i, s) for i, s in enumerate(self.shapes) if s.gradient]
        defs = [f"  <defs>{''.join(gradients)}</defs>"] if gradients else []
        body = [f'  <rect width="{self.width}" height="{self.height}" fill="{self.background}"/>']
        body += [f"  {_element(i, s)}" for i, s in enumerate(self.shapes)]
        return "\n".join([head, *defs, *body, "</svg>"]) + "\n"


def generate(rng: np.random.Generator, difficulty: str = "easy", width: int = 256, height: int = 256) -> Scene:
    """A random scene of ``difficulty`` (`DIFFICULTIES`) on a ``width`` x ``height`` canvas."""
    knobs = DIFFICULTIES[difficulty]
    count = int(rng.integers(knobs.shapes[0], knobs.shapes[1] + 1))
    colours = [str(c) for c in rng.permutation(PALETTE)]
    shapes = tuple(_shape(rng, knobs, colours[i % len(colours)], width, height) for i in range(count))
    background = str(rng.choice(BACKGROUNDS)) if rng.random() < knobs.background else "#ffffff"
    kinds = ", ".join(sorted({s.kind for s in shapes}))
    return Scene(width, height, shapes, background, description=f"{count} shapes ({kinds})")


def variants(scene: Scene, rng: np.random.Generator, missing: int | None = None) -> dict[str, Scene]:
    """``scene`` and five pictures of it, from closest to farthest: every shape two pixels
    off, its colours changed, one shape missing (``missing``, by default the largest), its
    shapes laid out anew, nothing."""
    recoloured = tuple(
        replace(s, fill=_other(s.fill), gradient=s.gradient and _other(s.gradient)) for s in scene.shapes
    )
    largest = missing if missing is not None else max(range(len(scene.shapes)), key=lambda i: scene.shapes[i].area)
    moved = tuple(
        replace(s, x=float(rng.uniform(0.15, 0.85) * scene.width), y=float(rng.uniform(0.15, 0.85) * scene.height))
        for s in scene.shapes
    )
    return {
        "exact": scene,
        "shifted": replace(scene, shapes=tuple(replace(s, x=s.x + 2, y=s.y + 2) for s in scene.shapes)),
        "wrong colours": replace(scene, shapes=recoloured),
        "missing element": replace(scene, shapes=scene.shapes[:largest] + scene.shapes[largest + 1 :]),
        "wrong layout": replace(scene, shapes=moved),
        "blank": replace(scene, shapes=()),
    }


# --- parts ---------------------------------------------------------------------------------------


def _shape(rng: np.random.Generator, knobs: Knobs, fill: str, width: int, height: int) -> Shape:
    kind: Kind = knobs.kinds[int(rng.integers(len(knobs.kinds)))]
    size = min(width, height)
    w = float(rng.uniform(0.15, 0.45) * size)
    h = w if kind in ("circle", "star", "polygon") else float(rng.uniform(0.15, 0.45) * size)
    stroke = rng.random() < knobs.stroke or kind == "line"
    return Shape(
        kind=kind,
        x=round(float(rng.uniform(0.2, 0.8) * width), 1),
        y=round(float(rng.uniform(0.2, 0.8) * height), 1),
        w=round(w, 1),
        h=round(h, 1),
        fill=fill,
        stroke=str(rng.choice(PALETTE)) if stroke else None,
        stroke_width=float(rng.integers(2, 7)) if stroke else 0.0,
        rotate=float(rng.integers(-60, 61)) if rng.random() < knobs.rotate else 0.0,
        gradient=str(rng.choice(PALETTE)) if rng.random() < knobs.gradient and kind != "line" else None,
        opacity=round(float(rng.uniform(0.5, 0.85)), 2) if rng.random() < knobs.opacity else 1.0,
        sides=int(rng.integers(3, 8)),
        seed=int(rng.integers(1 << 30)),
    )


def _other(colour: str) -> str:
    """A clearly different colour: the palette's colour half way round from this one."""
    index = PALETTE.index(colour) if colour in PALETTE else 0
    return PALETTE[(index + len(PALETTE) // 2) % len(PALETTE)]


def _gradient(index: int, shape: Shape) -> str:
    return (
        f'<linearGradient id="g{index}"><stop offset="0" stop-color="{shape.fill}"/>'
        f'<stop offset="1" stop-color="{shape.gradient}"/></linearGradient>'
    )


def _element(index: int, s: Shape) -> str:
    paint = f'fill="url(#g{index})"' if s.gradient else f'fill="{s.fill}"'
    if s.stroke:
        paint += f' stroke="{s.stroke}" stroke-width="{s.stroke_width:g}"'
    if s.opacity < 1:
        paint += f' opacity="{s.opacity:g}"'
    if s.rotate:
        paint += f' transform="rotate({s.rotate:g} {s.x:g} {s.y:g})"'
    if s.kind == "rect":
        return f'<rect x="{s.x - s.w / 2:g}" y="{s.y - s.h / 2:g}" width="{s.w:g}" height="{s.h:g}" {paint}/>'
    if s.kind == "circle":
        return f'<circle cx="{s.x:g}" cy="{s.y:g}" r="{s.w / 2:g}" {paint}/>'
    if s.kind == "ellipse":
        return f'<ellipse cx="{s.x:g}" cy="{s.y:g}" rx="{s.w / 2:g}" ry="{s.h / 2:g}" {paint}/>'
    if s.kind == "line":
        x1, y1, x2, y2 = s.x - s.w / 2, s.y - s.h / 2, s.x + s.w / 2, s.y + s.h / 2
        return f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" {paint}/>'
    return f'<path d="{_outline(s)}" {paint}/>'


def _outline(s: Shape) -> str:
    """A polygon's, a star's or a blob's outline as path data."""
    if s.kind == "blob":
        rng = np.random.default_rng(s.seed)
        radii = rng.uniform(0.6, 1.0, 8)
        points = [
            (s.x + r * s.w / 2 * math.cos(2 * math.pi * k / 8), s.y + r * s.h / 2 * math.sin(2 * math.pi * k / 8))
            for k, r in enumerate(radii)
        ]
        mids = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in zip(points, points[1:] + points[:1], strict=True)]
        parts = [f"M{mids[-1][0]:.1f} {mids[-1][1]:.1f}"]
        parts += [f"Q{p[0]:.1f} {p[1]:.1f} {m[0]:.1f} {m[1]:.1f}" for p, m in zip(points, mids, strict=True)]
        return " ".join(parts) + "Z"
    corners = s.sides * (2 if s.kind == "star" else 1)
    points = []
    for k in range(corners):
        radius = s.w / 2 * (0.45 if s.kind == "star" and k % 2 else 1.0)
        angle = -math.pi / 2 + 2 * math.pi * k / corners
        points.append(f"{s.x + radius * math.cos(angle):.1f} {s.y + radius * math.sin(angle):.1f}")
    return "M" + " L".join(points) + "Z"
