"""TritonKernel step latency on the CPU, against a cold interpreter run of the same kernel.

    python benchmarks/triton_step.py [--steps 20] [--task codegym-triton/softmax]

``env.step`` on a bundled problem's reference solution (warm workers, reference outputs
cached: what an RL loop sees after its first step), against the baseline a naive harness
would pay per evaluation: a fresh ``python`` that imports torch and triton with
``TRITON_INTERPRET=1`` and runs ``ModelNew`` once on the same small inputs, measured in the
same run. Prints medians and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codegym.envs.triton_kernel.env import TritonKernelEnv

COLD = """
import sys
import torch
sys.path.insert(0, sys.argv[1])
namespace = {}
exec(open(sys.argv[2]).read(), namespace)
namespace.update(namespace.get("cpu_shapes", {}))
torch.manual_seed(0)
from solution import ModelNew
model = ModelNew(*namespace["get_init_inputs"]())
model(*namespace["get_inputs"]())
"""


def cold_run(task_problem: str, reference: str, repeats: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "solution.py").write_text(reference)
        Path(folder, "problem.py").write_text(task_problem)
        env = {"TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", COLD, folder, f"{folder}/problem.py"], env=env, check=True)
            times.append(time.perf_counter() - started)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--task", default="codegym-triton/softmax")
    args = parser.parse_args()
    env = TritonKernelEnv(device="cpu")
    task = env.tasks.get(args.task)
    assert task.reference is not None
    for _ in range(3):  # start the workers, run the reference once
        env.reset(options={"task_id": task.id})
        env.step(task.reference)
    steps = []
    for _ in range(args.steps):
        env.reset(options={"task_id": task.id})
        started = time.perf_counter()
        _, reward, *_ = env.step(task.reference)
        steps.append(time.perf_counter() - started)
        assert reward == 1.0
    cold = cold_run(task.metadata["problem"], task.reference, max(3, args.steps // 4))
    step, baseline = statistics.median(steps), statistics.median(cold)
    print(f"{task.id}: {args.steps} steps, 3 trials each, CPU interpreter")
    print(f"env.step (sandboxed, 3 trials, checked) : median {step * 1000:8.1f} ms")
    print(f"cold python + torch + triton, 1 trial   : median {baseline * 1000:8.1f} ms")
    print(f"step / cold = {step / baseline:.2f}")


if __name__ == "__main__":
    main()
