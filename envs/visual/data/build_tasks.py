"""Writes the visual family's bundled task sets, what the envs load:

- ``svg_tasks.jsonl``: eight icons drawn by hand and 40 scenes from `scenes.generate` (seeds
  1000 + index);
- ``chart_tasks.jsonl``: 48 charts from `charts.generate` (seeds 2000 + index, 16 a difficulty);
- ``page_tasks.jsonl``: 42 pages from `pages.generate` (seeds 3000 + index, 14 a difficulty).

Run it again after changing a generator or an icon:

    python -m codegym.envs.visual.data.build_tasks
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from codegym.envs.visual import charts, pages, scenes

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">\n'
ICONS = {
    "house": (
        "a house with a red roof, a door and two windows",
        """\
  <rect width="256" height="256" fill="#e0f2fe"/>
  <rect x="0" y="200" width="256" height="56" fill="#65a30d"/>
  <rect x="58" y="112" width="140" height="100" fill="#fde68a" stroke="#78350f" stroke-width="3"/>
  <path d="M44 118 L128 52 L212 118 Z" fill="#dc2626"/>
  <rect x="114" y="152" width="28" height="60" fill="#78350f"/>
  <rect x="74" y="132" width="26" height="24" fill="#38bdf8" stroke="#ffffff" stroke-width="3"/>
  <rect x="156" y="132" width="26" height="24" fill="#38bdf8" stroke="#ffffff" stroke-width="3"/>
""",
    ),
    "sun": (
        "a yellow sun with eight rays on a blue sky",
        """\
  <rect width="256" height="256" fill="#7dd3fc"/>
  <g stroke="#f59e0b" stroke-width="10" stroke-linecap="round">
    <line x1="128" y1="28" x2="128" y2="64"/><line x1="128" y1="192" x2="128" y2="228"/>
    <line x1="28" y1="128" x2="64" y2="128"/><line x1="192" y1="128" x2="228" y2="128"/>
    <line x1="57" y1="57" x2="82" y2="82"/><line x1="174" y1="174" x2="199" y2="199"/>
    <line x1="57" y1="199" x2="82" y2="174"/><line x1="174" y1="82" x2="199" y2="57"/>
  </g>
  <circle cx="128" cy="128" r="50" fill="#facc15"/>
""",
    ),
    "traffic-light": (
        "a traffic light: red, amber and green lamps in a dark box",
        """\
  <rect x="118" y="196" width="20" height="56" fill="#374151"/>
  <rect x="84" y="16" width="88" height="188" rx="18" fill="#1f2937"/>
  <circle cx="128" cy="56" r="24" fill="#ef4444"/>
  <circle cx="128" cy="110" r="24" fill="#f59e0b"/>
  <circle cx="128" cy="164" r="24" fill="#22c55e"/>
""",
    ),
    "smiley": (
        "a yellow smiling face",
        """\
  <circle cx="128" cy="128" r="100" fill="#fde047" stroke="#a16207" stroke-width="6"/>
  <ellipse cx="92" cy="100" rx="12" ry="18" fill="#1c1917"/>
  <ellipse cx="164" cy="100" rx="12" ry="18" fill="#1c1917"/>
  <path d="M72 150 Q128 208 184 150" fill="none" stroke="#1c1917" stroke-width="10" stroke-linecap="round"/>
""",
    ),
    "flag": (
        "a flag of three vertical bands (green, white, orange) on a pole",
        """\
  <rect x="36" y="24" width="8" height="216" fill="#57534e"/>
  <rect x="44" y="40" width="60" height="110" fill="#16a34a"/>
  <rect x="104" y="40" width="60" height="110" fill="#ffffff" stroke="#e5e7eb" stroke-width="1"/>
  <rect x="164" y="40" width="60" height="110" fill="#f97316"/>
""",
    ),
    "heart": (
        "a red heart with a pink outline",
        """\
  <path d="M128 214 C40 150 24 104 48 72 C72 40 112 48 128 80 C144 48 184 40 208 72 C232 104 216 150 128 214 Z"
        fill="#e11d48" stroke="#f9a8d4" stroke-width="8"/>
""",
    ),
    "bar-chart": (
        "a bar chart of four bars rising left to right, with axes",
        """\
  <rect width="256" height="256" fill="#f8fafc"/>
  <rect x="56" y="160" width="32" height="60" fill="#60a5fa"/>
  <rect x="100" y="124" width="32" height="96" fill="#3b82f6"/>
  <rect x="144" y="92" width="32" height="128" fill="#2563eb"/>
  <rect x="188" y="52" width="32" height="168" fill="#1d4ed8"/>
  <path d="M40 36 V220 H236" fill="none" stroke="#0f172a" stroke-width="4"/>
""",
    ),
    "target": (
        "a target of five rings, red and white, with a gradient background",
        """\
  <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#c7d2fe"/><stop offset="1" stop-color="#fbcfe8"/></linearGradient></defs>
  <rect width="256" height="256" fill="url(#sky)"/>
  <circle cx="128" cy="128" r="110" fill="#dc2626"/>
  <circle cx="128" cy="128" r="88" fill="#ffffff"/>
  <circle cx="128" cy="128" r="66" fill="#dc2626"/>
  <circle cx="128" cy="128" r="44" fill="#ffffff"/>
  <circle cx="128" cy="128" r="22" fill="#dc2626"/>
""",
    ),
}
SCENES = {"easy": 14, "medium": 14, "hard": 12}
CHARTS_PER_LEVEL = 16
PAGES_PER_LEVEL = 14


def svg_rows() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for name, (description, body) in ICONS.items():
        found.append({"id": f"codegym-svg/icon-{name}", "svg": HEAD + body + "</svg>\n", "difficulty": "medium",
                      "description": description})  # fmt: skip
    index = 0
    for level, count in SCENES.items():
        for number in range(count):
            scene = scenes.generate(np.random.default_rng(1000 + index), level)
            found.append({"id": f"codegym-svg/{level}-{number:02d}", "svg": scene.svg, "difficulty": level,
                          "description": scene.description})  # fmt: skip
            index += 1
    return found


def generated_rows(name: str, field: str, seed: int, per_level: int,
                   draw: Callable[[np.random.Generator, str], tuple[str, str]]) -> list[dict[str, object]]:  # fmt: skip
    """``per_level`` rows of each difficulty, ``draw`` giving each its reference and description."""
    found: list[dict[str, object]] = []
    for offset, level in enumerate(("easy", "medium", "hard")):
        for number in range(per_level):
            reference, description = draw(np.random.default_rng(seed + offset * per_level + number), level)
            found.append({"id": f"{name}/{level}-{number:02d}", field: reference, "difficulty": level,
                          "description": description})  # fmt: skip
    return found


def chart_rows() -> list[dict[str, object]]:
    def draw(rng: np.random.Generator, level: str) -> tuple[str, str]:
        chart = charts.generate(rng, level)
        return chart.code, chart.description

    return generated_rows("codegym-charts", "code", 2000, CHARTS_PER_LEVEL, draw)


def page_rows() -> list[dict[str, object]]:
    def draw(rng: np.random.Generator, level: str) -> tuple[str, str]:
        page = pages.generate(rng, level)
        return page.html, page.description

    return generated_rows("codegym-pages", "html", 3000, PAGES_PER_LEVEL, draw)


def main() -> None:
    for name, rows in (("svg_tasks", svg_rows()), ("chart_tasks", chart_rows()), ("page_tasks", page_rows())):
        out = Path(__file__).parent / f"{name}.jsonl"
        out.write_text("".join(json.dumps(row) + "\n" for row in rows))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
