"""Writes ``chart_tasks.jsonl``: the bundled ChartFromImage charts, 48 from the seeded generator
(`charts.generate`, seeds 2000 + index: 16 of each difficulty). Run it again after changing the
generator; the file is what the env loads.

    python -m codegym.envs.visual.data.build_chart_tasks
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from codegym.envs.visual import charts

PER_LEVEL = 16


def rows() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for offset, level in enumerate(charts.DIFFICULTIES):
        for number in range(PER_LEVEL):
            chart = charts.generate(np.random.default_rng(2000 + offset * PER_LEVEL + number), level)
            found.append({"id": f"codegym-charts/{level}-{number:02d}", "code": chart.code, "difficulty": level,
                          "description": chart.description})  # fmt: skip
    return found


def main() -> None:
    out = Path(__file__).parent / "chart_tasks.jsonl"
    out.write_text("".join(json.dumps(row) + "\n" for row in rows()))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
