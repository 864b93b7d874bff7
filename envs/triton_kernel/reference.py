"""The reference step: run the task's PyTorch ``Model`` on each trial's seeded inputs.

Runs sandboxed as ``python -m codegym.envs.triton_kernel.reference`` in a job of its own,
before and apart from the submission's, on clones of the inputs. It writes the outputs as
raw arrays to ``reference.out``, which the env collects and hands to the harness of the
submission's job: the submission's process never holds them.
"""

from __future__ import annotations

import json
import os
import sys

import torch
from codegym.envs.triton_kernel import problem, wire

PLAN = "plan.json"
PROBLEM = "problem.py"
OUTPUT = "reference.out"


def main() -> None:
    torch.set_num_threads(1)
    with open(PLAN) as handle:
        plan = json.load(handle)
    with open(PROBLEM) as handle:
        source = handle.read()
    try:
        header, blobs = run(plan, source)
    except Exception as e:
        print(f"the reference failed: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(3)
    with open(OUTPUT + ".part", "wb") as handle:
        handle.write(wire.pack(header, blobs))
    os.rename(OUTPUT + ".part", OUTPUT)


def run(plan: dict, source: str) -> tuple[dict, list[bytes]]:
    module = problem.load(source, shapes=plan["shapes"])
    device = plan["device"]
    model = problem.build(module.Model, problem.init_inputs(module, plan["init_seed"]), plan["init_seed"], device)
    blobs: list[bytes] = []
    trials = []
    for seed in plan["seeds"]:
        inputs = problem.inputs(module, seed, device)
        with torch.no_grad():
            value = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
        if device == "cuda":
            torch.cuda.synchronize()
        tensors = problem.outputs(value)
        if tensors is None:
            raise problem.ProblemError("Model.forward must return a tensor or a tuple of tensors")
        trials.append([problem.encode(t, blobs) for t in tensors])
    return {"trials": trials, "torch": torch.__version__}, blobs
