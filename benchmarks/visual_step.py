"""Visual step time against the bare renderer, per env, in one run.

    python benchmarks/visual_step.py [--steps 60]

SVGFromImage: `env.step` on the bundled pictures' references (each with a distinct trailing
comment, so no cache answers), against a fresh ``rsvg-convert`` writing the same picture as a
PNG: the cold renderer a script would call. Steps and baseline runs are interleaved. Prints
the medians, p95s and the ratio (the goal of issue 33: at most 0.5x the cold renderer).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import codegym  # noqa: F401


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rsvg_convert(folder: Path, source: str) -> float:
    (folder / "in.svg").write_text(source)
    started = time.perf_counter()
    argv = [
        "rsvg-convert",
        "-w",
        "256",
        "-h",
        "256",
        "-b",
        "white",
        "-o",
        str(folder / "out.png"),
        str(folder / "in.svg"),
    ]
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - started


def svg(steps: int) -> None:
    env = gym.make("codegym/SVGFromImage-v0")
    tasks = list(env.unwrapped.tasks)  # type: ignore[attr-defined]
    for task in tasks:  # (each target renders once, before the clock starts)
        env.reset(options={"task_id": task.id})
    stepped, bare = [], []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(steps):
            task = tasks[index % len(tasks)]
            source = f"{task.reference}<!-- {index} -->\n"
            env.reset(options={"task_id": task.id})
            started = time.perf_counter()
            _, reward, *_ = env.step(source)
            stepped.append(time.perf_counter() - started)
            assert reward >= 0.99, (task.id, reward)
            bare.append(rsvg_convert(Path(folder), source))
    env.close()
    report("SVGFromImage", "rsvg-convert (cold)", stepped, bare, goal=0.5)


def report(name: str, baseline: str, stepped: list[float], bare: list[float], goal: float) -> None:
    ms = [1000 * statistics.median(x) for x in (stepped, bare)]
    p95 = [1000 * percentile(x, 0.95) for x in (stepped, bare)]
    ratio = ms[0] / ms[1]
    verdict = "met" if ratio <= goal else "not met"
    print(f"{name}: step median {ms[0]:.1f} ms (p95 {p95[0]:.1f}); {baseline} median {ms[1]:.1f} ms "
          f"(p95 {p95[1]:.1f}); ratio {ratio:.2f}x (goal <= {goal}x): {verdict}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    svg(args.steps)


if __name__ == "__main__":
    main()
