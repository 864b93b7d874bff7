"""Visual step time against the bare renderer, per env, in one run.

    python benchmarks/visual_step.py [--steps 60] [--only svg,chart,page] [--gap 0.4]

Each env's ``env.step`` on its bundled references (each with a distinct trailing comment, so
no cache answers), interleaved with the bare renderer on the same code (issue 33's goals):

- SVGFromImage against a fresh ``rsvg-convert`` writing the picture as a PNG, the cold
  renderer a script would call (goal: at most 0.5x);
- ChartFromImage against a fresh ``python chart.py`` that imports matplotlib, draws and saves
  a PNG (goal: at most 0.5x);
- HTMLFromScreenshot against one screenshot by a warm Chromium, started once before the clock
  and driven over the same DevTools pipe: a new tab, the page, the screenshot (goal: at most
  1.3x).

Prints the medians, p95s and the ratios. ``--gap S`` waits S seconds before each timed call
(the step and the baseline alike), so that neither is timed beside the other's leftover work
(a warm browser prepares the next page's tab in the background after a step; a fresh
process's exit and reaping): with 0 (the default) the two run back to back.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym
from codegym.envs.visual import browser

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
    against_cold("SVGFromImage", steps, rsvg_convert, "<!-- {index} -->\n", "rsvg-convert (cold)")


def chart_script(folder: Path, source: str) -> float:
    script = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nimport numpy as np\n"
              f"{source}\nplt.gcf().set_size_inches(4, 3)\nplt.savefig('out.png', dpi=100)\n")  # fmt: skip
    (folder / "chart.py").write_text(script)
    started = time.perf_counter()
    subprocess.run([sys.executable, "chart.py"], cwd=folder, check=True, capture_output=True)
    return time.perf_counter() - started


def chart(steps: int) -> None:
    against_cold("ChartFromImage", steps, chart_script, "# {index}\n", "python chart.py (cold)")


def against_cold(family: str, steps: int, baseline, comment: str, label: str) -> None:  # type: ignore[no-untyped-def]
    """``family``'s steps against a cold renderer (goal: at most half its time)."""
    env = gym.make(f"codegym/{family}-v1")  # (SVGFromImage and ChartFromImage)
    try:
        stepped, bare = _interleaved(env, steps, baseline, comment)
    finally:
        env.close()
    report(family, label, stepped, bare, goal=0.5)


class WarmChromium:
    """One Chromium, started once, that screenshots a page per call (a new tab each time)."""

    def __init__(self, width: int, height: int) -> None:
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        argv = [a for a in browser.chromium_argv(width, height, False) if a not in ("--single-process", "--no-zygote")]
        self.process = subprocess.Popen(
            argv, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _pipe_fds(commands_r, replies_w),  # noqa: PLW1509 (no thread of ours runs yet)
        )  # fmt: skip
        os.close(commands_r)
        os.close(replies_w)
        self.browser = browser.Browser(commands_w, replies_r)
        self.width, self.height = width, height

    def screenshot(self, path: Path) -> bytes:
        target = self.browser.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.browser.call("Page.enable", session)
        self.browser.call("Emulation.setDeviceMetricsOverride", session, width=self.width, height=self.height,
                          deviceScaleFactor=1, mobile=False)  # fmt: skip
        self.browser.call("Page.navigate", session, url=f"file://{path}")
        self.browser.wait_for("Page.loadEventFired")
        shot = self.browser.call("Page.captureScreenshot", session, format="png")["data"]
        self.browser.call("Target.closeTarget", targetId=target)
        return base64.b64decode(shot)

    def close(self) -> None:
        self.browser.close()
        self.process.wait(timeout=10)


def _pipe_fds(reading: int, writing: int) -> None:
    moved = fcntl.fcntl(reading, fcntl.F_DUPFD, 16), fcntl.fcntl(writing, fcntl.F_DUPFD, 16)
    os.dup2(moved[0], 3)
    os.dup2(moved[1], 4)


def page(steps: int) -> None:
    env = gym.make("codegym/HTMLFromScreenshot-v0")
    height, width = env.unwrapped.canvas  # type: ignore[attr-defined]
    warm = WarmChromium(width, height)
    try:
        warm.screenshot(Path(__file__).resolve())  # (the first tab, before the clock)

        def screenshot(folder: Path, source: str) -> float:
            (folder / "page.html").write_text(source)
            started = time.perf_counter()
            assert warm.screenshot(folder / "page.html").startswith(b"\x89PNG")
            return time.perf_counter() - started

        stepped, bare = _interleaved(env, steps, screenshot, "<!-- {index} -->\n")
    finally:
        warm.close()
        env.close()
    report("HTMLFromScreenshot", "a warm Chromium's screenshot", stepped, bare, goal=1.3)


GAP_S = 0.0  # (set by ``--gap``)


def _interleaved(env: gym.Env, steps: int, baseline, comment: str) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """``steps`` env steps on the bundled references, each followed by ``baseline`` on the same code."""
    tasks = list(env.unwrapped.tasks)  # type: ignore[attr-defined]
    for task in tasks:  # (each target renders once, before the clock starts)
        env.reset(options={"task_id": task.id})
    stepped, bare = [], []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(steps):
            task = tasks[index % len(tasks)]
            source = f"{task.reference}{comment.format(index=index)}"
            env.reset(options={"task_id": task.id})
            time.sleep(GAP_S)
            started = time.perf_counter()
            _, reward, *_ = env.step(source)
            stepped.append(time.perf_counter() - started)
            assert reward >= 0.99, (task.id, reward)
            time.sleep(GAP_S)
            bare.append(baseline(Path(folder), source))
    return stepped, bare


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
    parser.add_argument("--only", default="svg,chart,page", help="which envs, comma-separated")
    parser.add_argument("--gap", type=float, default=0.0, help="seconds of rest before each timed call")
    args = parser.parse_args()
    global GAP_S
    GAP_S = args.gap
    print(f"{args.steps} steps each; {args.gap} s before each timed call")
    runs = {"svg": svg, "chart": chart, "page": page}
    for name in args.only.split(","):
        runs[name](args.steps)


if __name__ == "__main__":
    main()
