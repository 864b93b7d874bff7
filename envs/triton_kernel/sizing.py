"""The sizing step: find the sizes at which a problem fits the CPU (see `shrink`).

Runs sandboxed as ``python -m codegym.envs.triton_kernel.sizing`` in a job of its own,
before the reference's, when a problem without ``cpu_shapes`` runs on the CPU. It searches
with `shrink.search`, measuring each candidate on PyTorch's meta device (shapes only, no
memory, no arithmetic): the elements of the inputs, parameters and outputs, of every
tensor the forward creates, and the flops of its matmuls and convolutions. A forward the
meta device cannot run (a data-dependent op) is measured for real on the CPU once its
inputs are known to be small; until then its inputs alone count. It writes the search's
result to ``sizing.json``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

import torch
from codegym.envs.triton_kernel import problem, shrink
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import FlopCounterMode

PLAN = "plan.json"
PROBLEM = "problem.py"
OUTPUT = "sizing.json"
REAL_FACTOR = 4  # a real run is tried only for inputs this many times the budget at most


def main() -> None:
    torch.set_num_threads(1)
    with open(PLAN) as handle:
        plan = json.load(handle)
    with open(PROBLEM) as handle:
        source = handle.read()
    budget = shrink.Budget(**plan["budget"])
    try:
        result = shrink.search(shrink.analyse(source), lambda overrides: measure(source, overrides, budget), budget)
    except Exception as e:  # (a problem that does not parse: the loader accepted it, so rarely)
        print(f"sizing failed: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(3)
    report = {
        "bases": result.bases,
        "measurement": vars(result.measurement),
        "steps": result.steps,
        "reason": result.reason,
    }
    with open(OUTPUT + ".part", "w") as handle:
        json.dump(report, handle)
    os.rename(OUTPUT + ".part", OUTPUT)


def measure(source: str, overrides: Mapping[str, Any], budget: shrink.Budget) -> shrink.Measurement:
    """The problem at ``overrides``: on the meta device, else (inputs small enough) for real."""
    try:
        return _on_meta(source, overrides)
    except Exception as e:  # (an operator without a meta kernel, a data-dependent shape, ...)
        note = _text(e)
    try:
        inputs = _inputs_on_meta(source, overrides)
    except Exception:
        inputs = None
    if inputs is not None and inputs > REAL_FACTOR * budget.elements:
        return shrink.Measurement(elements=inputs, activations=inputs, how="inputs", note=note)
    try:
        return _real(source, overrides)
    except Exception as e:
        return shrink.Measurement(how="real", error=_text(e))


class _Created(TorchDispatchMode):
    """Counts the elements of every tensor the operators it sees return."""

    def __init__(self) -> None:
        super().__init__()
        self.elements = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        self.elements += sum(t.numel() for t in tree_leaves(out) if isinstance(t, torch.Tensor))
        return out


def _on_meta(source: str, overrides: Mapping[str, Any]) -> shrink.Measurement:
    module = problem.load(source, shapes=overrides)
    with torch.device("meta"):
        init = list(module.get_init_inputs())
        model = module.Model(*init)
        inputs = list(module.get_inputs())
        return _forward(init, model, inputs, how="meta")


def _inputs_on_meta(source: str, overrides: Mapping[str, Any]) -> int:
    module = problem.load(source, shapes=overrides)
    with torch.device("meta"):
        return _elements(list(module.get_init_inputs()), None, list(module.get_inputs()), [])


def _real(source: str, overrides: Mapping[str, Any]) -> shrink.Measurement:
    module = problem.load(source, shapes=overrides)
    init = problem.init_inputs(module, 0)
    model = problem.build(module.Model, init, 0, "cpu")
    inputs = problem.inputs(module, 1, "cpu")
    return _forward(init, model, inputs, how="real")


def _forward(init: list[Any], model: Any, inputs: list[Any], how: str) -> shrink.Measurement:
    """Run ``model`` once, counting the elements of what it takes, holds, creates and returns,
    and its flops."""
    created, flops = _Created(), FlopCounterMode(display=False)
    with torch.no_grad(), flops, created:
        value = model(*inputs)
    outputs = problem.outputs(value)
    if outputs is None:
        raise problem.ProblemError("Model.forward must return a tensor or a tuple of tensors")
    return shrink.Measurement(
        elements=_elements(init, model, inputs, outputs),
        activations=created.elements,
        flops=int(flops.get_total_flops()),
        how=how,
    )


def _text(error: Exception) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:500]


def _elements(init: list[Any], model: Any, inputs: list[Any], outputs: list[torch.Tensor]) -> int:
    tensors = [x for x in [*init, *inputs, *outputs] if isinstance(x, torch.Tensor)]
    if isinstance(model, torch.nn.Module):
        tensors += [*model.parameters(), *model.buffers()]
    return sum(t.numel() for t in tensors)
