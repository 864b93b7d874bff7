"""A seeded generator of charts: a spec per chart, and the matplotlib program that draws it.

`Chart` holds what a chart shows (its kind, series, labels, colours, layout); `Chart.code` is
its hidden reference program. Every common kind is covered (line, bar, horizontal bar,
grouped and stacked bars, scatter, area, pie, histogram, step), alone or two side by side.
`variants` makes the degraded charts the reward-sanity suite ranks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

Kind = Literal["line", "bar", "barh", "grouped", "stacked", "scatter", "area", "pie", "hist", "step"]
KINDS: tuple[Kind, ...] = ("line", "bar", "barh", "grouped", "stacked", "scatter", "area", "pie", "hist", "step")
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#264653", "#e76f51", "#2a9d8f", "#f4a261")  # fmt: skip
WORDS = ("North", "South", "East", "West", "Alpha", "Beta", "Gamma", "Delta", "Q1", "Q2", "Q3", "Q4", "Mon",
         "Tue", "Wed", "Thu", "Fri", "Apples", "Pears", "Plums", "Figs", "Kiwis")  # fmt: skip
TITLES = ("Sales by region", "Monthly visitors", "Yield per field", "Response times", "Energy use",
          "Survey results", "Revenue", "Temperatures", "Downloads", "Market share")  # fmt: skip
SERIES = ("2023", "2024", "plan", "actual", "model", "baseline", "A", "B")
DIFFICULTIES: Mapping[str, tuple[tuple[Kind, ...], int, int]] = {  # kinds, most series, panels
    "easy": (("line", "bar", "barh", "scatter", "pie"), 1, 1),
    "medium": (KINDS, 2, 1),
    "hard": (KINDS, 3, 2),
}


@dataclass(frozen=True)
class Panel:
    kind: Kind
    labels: tuple[str, ...]  # categories (bars, pie) or x values' names
    series: tuple[tuple[float, ...], ...]
    names: tuple[str, ...]
    colours: tuple[str, ...]
    title: str
    xlabel: str = ""
    ylabel: str = ""
    grid: bool = False


@dataclass(frozen=True)
class Chart:
    panels: tuple[Panel, ...]
    shift: float = 0.0  # how far the axes are moved right, as a fraction of the figure

    @property
    def code(self) -> str:
        """The matplotlib program that draws the chart (the task's hidden reference)."""
        if not self.panels:
            return BLANK_CODE
        lines = [f"fig, axes = plt.subplots(1, {len(self.panels)}, squeeze=False)"]
        for index, panel in enumerate(self.panels):
            lines.append(f"ax = axes[0][{index}]")
            lines += _panel_code(panel)
        lines.append("fig.tight_layout()")
        if self.shift:
            lines.append("for ax in fig.axes:")
            lines.append("    box = ax.get_position()")
            lines.append(f"    ax.set_position([box.x0 + {self.shift}, box.y0, box.width, box.height])")
        return "\n".join(lines) + "\n"

    @property
    def description(self) -> str:
        return " and ".join(f"{_article(p.kind)} {p.kind} chart ({len(p.series)} series)" for p in self.panels)


def generate(rng: np.random.Generator, difficulty: str = "easy") -> Chart:
    """A random chart of ``difficulty`` (`DIFFICULTIES`)."""
    kinds, most, panels = DIFFICULTIES[difficulty]
    count = int(rng.integers(1, panels + 1))
    return Chart(tuple(_panel(rng, kinds, most) for _ in range(count)))


def variants(chart: Chart) -> dict[str, Chart]:
    """``chart`` and five others, from closest to farthest: its axes moved a little, its
    colours changed, a series missing (the title when there is one series), each panel
    drawn as another kind of chart, nothing."""
    recoloured = tuple(replace(p, colours=tuple(_other(c) for c in p.colours)) for p in chart.panels)
    missing = tuple(
        replace(p, series=p.series[:-1], names=p.names[:-1], colours=p.colours[:-1]) if len(p.series) > 1
        else replace(p, title="", xlabel="", ylabel="")
        for p in chart.panels
    )  # fmt: skip
    other = {"line": "bar", "bar": "line", "barh": "line", "grouped": "line", "stacked": "line", "scatter": "bar",
             "area": "bar", "pie": "bar", "hist": "line", "step": "bar"}  # fmt: skip
    relaid = tuple(replace(p, kind=other[p.kind]) for p in chart.panels)
    return {
        "exact": chart,
        "shifted": replace(chart, shift=0.01),
        "wrong colours": replace(chart, panels=recoloured),
        "missing element": replace(chart, panels=missing),
        "wrong layout": replace(chart, panels=relaid),
        "blank": Chart(()),
    }


BLANK_CODE = "fig = plt.figure()\n"


# --- parts ---------------------------------------------------------------------------------------


def _panel(rng: np.random.Generator, kinds: tuple[Kind, ...], most: int) -> Panel:
    kind: Kind = kinds[int(rng.integers(len(kinds)))]
    count = 1 if kind in ("pie", "hist") else int(rng.integers(1, most + 1))
    if kind in ("grouped", "stacked") and count < 2:
        count = 2
    points = int(rng.integers(4, 8))
    words = [str(w) for w in rng.choice(WORDS, size=points, replace=False)]
    scale = float(rng.choice([10, 50, 100, 1000]))
    if kind == "hist":
        series = (tuple(round(float(v), 1) for v in rng.normal(scale / 2, scale / 8, 60)),)
    elif kind == "scatter":
        series = tuple(tuple(round(float(v), 1) for v in rng.uniform(0, scale, points * 2)) for _ in range(count))
    else:
        series = tuple(tuple(round(float(v), 1) for v in rng.uniform(scale / 10, scale, points)) for _ in range(count))
    colours = tuple(str(c) for c in rng.choice(COLOURS, size=max(count, points if kind == "pie" else 1), replace=False))
    names = tuple(str(n) for n in rng.choice(SERIES, size=count, replace=False))
    title = str(rng.choice(TITLES))
    labelled = kind not in ("pie",) and rng.random() < 0.6
    return Panel(kind, tuple(words), series, names, colours, title,
                 xlabel="category" if labelled else "", ylabel="value" if labelled else "",
                 grid=kind not in ("pie",) and rng.random() < 0.4)  # fmt: skip


def _panel_code(p: Panel) -> list[str]:
    lines: list[str] = []
    labels = list(p.labels)
    legend = len(p.series) > 1
    for number, values in enumerate(p.series):
        data, colour, name = list(values), p.colours[number % len(p.colours)], p.names[number]
        label = f", label={name!r}" if legend else ""
        if p.kind == "line":
            lines.append(f"ax.plot({labels!r}, {data!r}, color={colour!r}, marker='o'{label})")
        elif p.kind == "step":
            lines.append(f"ax.step({labels!r}, {data!r}, color={colour!r}, where='mid'{label})")
        elif p.kind == "area":
            lines.append(f"ax.fill_between(range({len(data)}), {data!r}, color={colour!r}, alpha=0.6{label})")
        elif p.kind in ("bar", "grouped"):
            width = 0.8 / len(p.series)
            lines.append(f"ax.bar([i + {number * width - 0.4 + width / 2:.3f} for i in range({len(data)})], {data!r}, "
                         f"width={width:.3f}, color={colour!r}{label})")  # fmt: skip
        elif p.kind == "stacked":
            below = [round(sum(s[i] for s in p.series[:number]), 1) for i in range(len(data))]
            lines.append(f"ax.bar({labels!r}, {data!r}, bottom={below!r}, color={colour!r}{label})")
        elif p.kind == "barh":
            lines.append(f"ax.barh({labels!r}, {data!r}, color={colour!r}{label})")
        elif p.kind == "scatter":
            half = len(data) // 2
            lines.append(f"ax.scatter({data[:half]!r}, {data[half:]!r}, color={colour!r}{label})")
        elif p.kind == "pie":
            lines.append(f"ax.pie({data!r}, labels={labels!r}, colors={list(p.colours[: len(data)])!r})")
        elif p.kind == "hist":
            lines.append(f"ax.hist({data!r}, bins=10, color={colour!r})")
    if p.kind in ("bar", "grouped"):
        lines.append(f"ax.set_xticks(range({len(labels)}), {labels!r})")
    if p.title:
        lines.append(f"ax.set_title({p.title!r})")
    if p.xlabel:
        lines.append(f"ax.set_xlabel({p.xlabel!r})")
    if p.ylabel:
        lines.append(f"ax.set_ylabel({p.ylabel!r})")
    if p.grid:
        lines.append("ax.grid(True, alpha=0.3)")
    if legend:
        lines.append("ax.legend()")
    return lines


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _other(colour: str) -> str:
    index = COLOURS.index(colour) if colour in COLOURS else 0
    return COLOURS[(index + len(COLOURS) // 2) % len(COLOURS)]
