"""A seeded generator of web pages: sections of a landing page, with difficulty knobs.

A `Page` is a palette and sections (a header with navigation, a hero, rows of cards, a list, two
columns, a footer); `Page.html` is its hidden reference, one file with its own CSS and no script
or picture, so every generated task is solvable exactly. `variants` makes the degraded pages
the reward-sanity suite ranks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

Section = Literal["header", "hero", "cards", "list", "columns", "footer"]
PALETTES = (
    ("#1d3557", "#e63946", "#f1faee", "#457b9d"), ("#264653", "#e76f51", "#fefae0", "#2a9d8f"),
    ("#3d405b", "#e07a5f", "#f4f1de", "#81b29a"), ("#22223b", "#9a8c98", "#f2e9e4", "#4a4e69"),
    ("#0b3954", "#ff5a5f", "#ffffff", "#087e8b"), ("#2b2d42", "#ef233c", "#edf2f4", "#8d99ae"),
)  # fmt: skip  # (dark, accent, light, muted)
WORDS = ("fast", "simple", "secure", "open", "modern", "cloud", "data", "team", "build", "ship", "learn",
         "grow", "plans", "pricing", "support", "about", "blog", "docs", "contact", "features", "reliable",
         "private")  # fmt: skip
DIFFICULTIES: Mapping[str, tuple[tuple[int, int], tuple[Section, ...]]] = {  # (how many middle sections, which)
    "easy": ((1, 1), ("hero",)),
    "medium": ((1, 2), ("hero", "cards", "list")),
    "hard": ((2, 3), ("hero", "cards", "list", "columns")),
}


@dataclass(frozen=True)
class Block:
    kind: Section
    title: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    blocks: tuple[Block, ...]
    palette: tuple[str, str, str, str]
    offset: int = 0  # pixels the whole page is pushed down

    @property
    def html(self) -> str:
        """The page as one HTML file (the task's hidden reference)."""
        dark, accent, light, muted = self.palette
        css = (
            f"body{{margin:0;padding-top:{self.offset}px;font-family:'DejaVu Sans',sans-serif;background:{light};"
            f"color:{dark}}}\n"
            f"header,footer{{background:{dark};color:{light};padding:14px 20px;display:flex;"
            "justify-content:space-between;align-items:center}\n"
            "header b{font-size:20px} nav a{margin-left:14px;color:inherit;text-decoration:none;font-size:14px}\n"
            "section{padding:18px 20px} h1{margin:0 0 8px;font-size:26px} h2{margin:0 0 10px;font-size:18px}\n"
            "p{margin:0 0 10px;font-size:14px;line-height:1.4}\n"
            f".button{{display:inline-block;background:{accent};color:{light};padding:8px 16px;border-radius:6px;"
            "font-size:14px}\n"
            ".row{display:flex;gap:12px} .card{flex:1;background:#ffffff;border-radius:8px;padding:12px;"
            f"border-top:4px solid {muted}}}\n"
            f"ul{{margin:0;padding-left:20px;font-size:14px}} li{{margin-bottom:4px}} .side{{flex:0 0 30%;"
            f"background:{muted};color:{light};padding:12px;border-radius:8px}} .main{{flex:1}}\n"
            "footer{font-size:12px}\n"
        )
        body = "\n".join(_block_html(b) for b in self.blocks)
        return (f"<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<style>\n{css}</style>\n</head>\n"
                f"<body>\n{body}\n</body>\n</html>\n")  # fmt: skip

    @property
    def description(self) -> str:
        return "a page with " + ", ".join(b.kind for b in self.blocks)


def generate(rng: np.random.Generator, difficulty: str = "easy") -> Page:
    """A random page of ``difficulty`` (`DIFFICULTIES`): a header, middle sections, a footer."""
    (low, high), kinds = DIFFICULTIES[difficulty]
    count = int(rng.integers(low, high + 1))
    middle = [kinds[int(rng.integers(len(kinds)))] for _ in range(count)]
    blocks = [_block(rng, "header"), *(_block(rng, kind) for kind in middle), _block(rng, "footer")]
    palette = PALETTES[int(rng.integers(len(PALETTES)))]
    return Page(tuple(blocks), palette)


def variants(page: Page) -> dict[str, Page]:
    """``page`` and five others, from closest to farthest: pushed down 2 pixels, another
    palette, its largest middle section missing, its sections in reverse order, nothing."""
    index = PALETTES.index(page.palette) if page.palette in PALETTES else 0
    middle = [i for i, b in enumerate(page.blocks) if b.kind not in ("header", "footer")] or [0]
    largest = max(middle, key=lambda i: len(" ".join(page.blocks[i].texts)))
    return {
        "exact": page,
        "shifted": replace(page, offset=page.offset + 2),
        "wrong colours": replace(page, palette=PALETTES[(index + 3) % len(PALETTES)]),
        "missing element": replace(page, blocks=page.blocks[:largest] + page.blocks[largest + 1 :]),
        "wrong layout": replace(page, blocks=tuple(reversed(page.blocks))),
        "blank": Page((), page.palette),
    }


# --- parts ---------------------------------------------------------------------------------------


def _words(rng: np.random.Generator, low: int, high: int) -> str:
    count = int(rng.integers(low, high + 1))
    return " ".join(str(w) for w in rng.choice(WORDS, size=count)).capitalize()


def _block(rng: np.random.Generator, kind: Section) -> Block:
    if kind == "header":
        return Block(kind, _words(rng, 1, 2), tuple(_words(rng, 1, 1) for _ in range(int(rng.integers(2, 5)))))
    if kind == "footer":
        return Block(kind, _words(rng, 2, 4), ())
    if kind == "hero":
        return Block(kind, _words(rng, 3, 6), (_words(rng, 10, 20), _words(rng, 1, 2)))
    if kind == "cards":
        return Block(kind, _words(rng, 2, 4), tuple(_words(rng, 4, 9) for _ in range(int(rng.integers(2, 5)))))
    if kind == "list":
        return Block(kind, _words(rng, 2, 3), tuple(_words(rng, 2, 5) for _ in range(int(rng.integers(3, 6)))))
    return Block(kind, _words(rng, 2, 3), (_words(rng, 3, 6), _words(rng, 12, 24)))


def _block_html(b: Block) -> str:
    if b.kind == "header":
        links = "".join(f'<a href="#">{t}</a>' for t in b.texts)
        return f"<header><b>{b.title}</b><nav>{links}</nav></header>"
    if b.kind == "footer":
        return f"<footer><span>{b.title}</span><span>2026</span></footer>"
    if b.kind == "hero":
        return f'<section><h1>{b.title}</h1><p>{b.texts[0]}</p><span class="button">{b.texts[1]}</span></section>'
    if b.kind == "cards":
        cards = "".join(f'<div class="card"><p>{t}</p></div>' for t in b.texts)
        return f'<section><h2>{b.title}</h2><div class="row">{cards}</div></section>'
    if b.kind == "list":
        items = "".join(f"<li>{t}</li>" for t in b.texts)
        return f"<section><h2>{b.title}</h2><ul>{items}</ul></section>"
    return (f'<section><div class="row"><div class="side"><h2>{b.title}</h2><p>{b.texts[0]}</p></div>'
            f'<div class="main"><p>{b.texts[1]}</p></div></div></section>')  # fmt: skip


BLANK = Page((), PALETTES[0])
