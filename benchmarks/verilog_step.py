"""Verilog step time against a raw ``iverilog`` + ``vvp`` run of the same files.

    python benchmarks/verilog_step.py [--steps 100] [--task codegym-verilog/fifo4]

One `codegym/Verilog-v1` env steps the problem's reference (renamed ``TopModule``), each
step with a distinct trailing comment so the gate's cache never answers. The baseline, in
the same run and interleaved with the steps, compiles and simulates the same testbench and
design with ``iverilog -g2012`` and ``vvp`` as plain subprocesses on the host, no sandbox and
no checks. Prints the medians, p95s and the ratio (the goal is at most 1.2x).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import gymnasium as gym
from codegym.envs.verilog.runner import IVERILOG

import codegym  # noqa: F401


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raw_run(folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(IVERILOG, cwd=folder, check=True, capture_output=True)
    done = subprocess.run(("vvp", "-n", "sim.vvp", "+codegym_nonce=0"), cwd=folder, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    assert b"@@0@@ done" in done.stdout
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--task", default="codegym-verilog/fifo4")
    args = parser.parse_args()
    env = gym.make("codegym/Verilog-v1")  # default settings (lint only runs on failures)
    task = env.unwrapped.tasks.get(args.task)  # type: ignore[attr-defined]
    reference = task.reference
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "tb.sv").write_text(task.metadata["harness"])
        (folder / "solution.sv").write_text(reference)
        for warm in range(10):  # start the workers, load pyslang, warm the page cache
            env.reset(options={"task_id": args.task})
            env.step(f"{reference}// warm-up {warm}\n")
            raw_run(folder)
        steps, raws = [], []
        for index in range(args.steps):
            env.reset(options={"task_id": args.task})
            started = time.perf_counter()
            _, reward, *_ = env.step(f"{reference}// step {index}\n")
            steps.append(time.perf_counter() - started)
            assert reward == 1.0
            raws.append(raw_run(folder))
    env.close()
    ms = 1000.0
    step, raw = statistics.median(steps), statistics.median(raws)
    print(f"{args.steps} steps of {args.task} (reference design, {task.metadata['expected']} samples)")
    print(f"env.step            : median {step * ms:.2f} ms, p95 {percentile(steps, 0.95) * ms:.2f} ms")
    print(f"raw iverilog + vvp  : median {raw * ms:.2f} ms, p95 {percentile(raws, 0.95) * ms:.2f} ms")
    print(f"ratio (medians)     : {step / raw:.2f}x (goal <= 1.2x)")


if __name__ == "__main__":
    main()
