"""Verifier step time against a cold verifier CLI run on the same file, in one run.

    python benchmarks/verifier_step.py [--steps 20]

For Dafny-v1 (``codegym-dafny/sum-array``) and WhyML-v0 (``codegym-whyml/sum-to``), each step
answers with the task's reference, plus a distinct trailing comment so that no cache answers.
Interleaved with the steps, the baseline runs the verifier the way a user would, as a plain
subprocess on the host, with no sandbox, gate or canary, on the file the env assembled:
``dafny /compile:0 program.dfy``, or ``why3 prove -P z3 -a split_vc program.mlw -T Impl -T
Check`` (the goals the env proves, not its canary). Prints
medians, p95s and the ratio. The issue's goal is at most 0.6x for Dafny: the env starts the
copy of Dafny that ``scripts/setup.sh`` compiled ahead of time (`codegym.verifier.dafny`), the
baseline Debian's ``dafny``, which Mono compiles as it starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401

CASES = {
    "Dafny-v1": ("codegym-dafny/sum-array", "// step {}\n", "program.dfy", ("dafny", "/compile:0", "program.dfy")),
    "WhyML-v0": ("codegym-whyml/sum-to", "(* step {} *)\n", "program.mlw",
                 ("why3", "prove", "-P", "z3", "-a", "split_vc", "program.mlw", "-T", "Impl", "-T", "Check")),
}  # fmt: skip


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cold_run(folder: Path, argv: tuple[str, ...]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=folder, capture_output=True, check=False, env={**os.environ, "HOME": str(folder)})
    return time.perf_counter() - started


def measure(env_id: str, steps: int) -> tuple[list[float], list[float]]:
    task_id, comment, file, argv = CASES[env_id]
    env = gym.make(f"codegym/{env_id}")
    unwrapped: Any = env.unwrapped
    task = unwrapped.tasks.get(task_id)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if env_id == "WhyML-v0":
            subprocess.run(("why3", "config", "detect"), cwd=folder, capture_output=True, check=True,
                           env={**os.environ, "HOME": str(folder)})  # fmt: skip
        stepped, cold = [], []
        for index in range(steps + 2):  # (the first two warm the workers and the page cache)
            answer = task.reference + comment.format(index)
            (folder / file).write_text(unwrapped.assemble(task, answer).text)
            env.reset(options={"task_id": task_id})
            started = time.perf_counter()
            _, reward, *_ = env.step(answer)
            elapsed = time.perf_counter() - started
            assert reward == 1.0, f"{env_id}: the reference did not verify"
            baseline = cold_run(folder, argv)
            if index >= 2:
                stepped.append(elapsed)
                cold.append(baseline)
    env.close()
    return stepped, cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    for env_id in CASES:
        stepped, cold = measure(env_id, args.steps)
        step_ms, cold_ms = statistics.median(stepped) * 1e3, statistics.median(cold) * 1e3
        print(f"{env_id:9} env.step median {step_ms:7.1f} ms (p95 {percentile(stepped, 0.95) * 1e3:7.1f}); "
              f"cold CLI median {cold_ms:7.1f} ms (p95 {percentile(cold, 0.95) * 1e3:7.1f}); "
              f"ratio {step_ms / cold_ms:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
