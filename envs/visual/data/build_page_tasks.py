"""Writes ``page_tasks.jsonl``: the bundled HTMLFromScreenshot pages, 42 from the seeded generator
(`pages.generate`, seeds 3000 + index: 14 of each difficulty). Run it again after changing the
generator; the file is what the env loads.

    python -m codegym.envs.visual.data.build_page_tasks
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from codegym.envs.visual import pages

PER_LEVEL = 14


def rows() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for offset, level in enumerate(pages.DIFFICULTIES):
        for number in range(PER_LEVEL):
            page = pages.generate(np.random.default_rng(3000 + offset * PER_LEVEL + number), level)
            found.append({"id": f"codegym-pages/{level}-{number:02d}", "html": page.html, "difficulty": level,
                          "description": page.description})  # fmt: skip
    return found


def main() -> None:
    out = Path(__file__).parent / "page_tasks.jsonl"
    out.write_text("".join(json.dumps(row) + "\n" for row in rows()))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
