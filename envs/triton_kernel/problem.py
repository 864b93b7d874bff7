"""A KernelBench problem inside a sandboxed process: load it, make its seeded inputs, and
turn tensors into raw records. Runs in the reference and candidate processes (torch)."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

import torch
from codegym.envs.triton_kernel.wire import ITEM_SIZE


class ProblemError(Exception):
    """The problem file itself failed (a fault of the task, not of the submission)."""


def load(source: str, *, shapes: Mapping[str, Any] | None = None) -> types.ModuleType:
    """The problem as a private module (never in ``sys.modules``), its globals ``shapes``
    (the plan's: sizes that replace the problem's own, see `shrink`) replaced once it ran;
    a list given for a tuple global becomes a tuple (JSON has no tuples)."""
    module = types.ModuleType("codegym_problem")
    module.__file__ = "problem.py"
    try:
        exec(compile(source, "problem.py", "exec", dont_inherit=True), module.__dict__)
    except Exception as e:
        raise ProblemError(f"the problem file failed to load: {type(e).__name__}: {e}") from e
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            raise ProblemError(f"the problem file defines no {name}")
    for name, value in (shapes or {}).items():
        original = getattr(module, name, None)
        setattr(module, name, tuple(value) if isinstance(original, tuple) and isinstance(value, list) else value)
    return module


def init_inputs(problem: types.ModuleType, seed: int) -> list[Any]:
    torch.manual_seed(seed)
    return list(problem.get_init_inputs())


def inputs(problem: types.ModuleType, seed: int, device: str) -> list[Any]:
    """The trial's inputs: seeded, generated on the CPU, then moved to ``device``."""
    torch.manual_seed(seed)
    return [x.to(device) if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]


def build(cls: type, args: list[Any], seed: int, device: str) -> Any:
    """``cls(*args)`` with its parameters drawn from ``seed``, on ``device``, in eval mode."""
    torch.manual_seed(seed)
    model = cls(*args)
    if isinstance(model, torch.nn.Module):
        model = model.to(device).eval()
    return model


def outputs(value: Any) -> list[torch.Tensor] | None:
    """A forward's result as a list of tensors (None if it is not tensors)."""
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    if not items or not all(isinstance(t, torch.Tensor) for t in items):
        return None
    return items


def dtype_name(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def encode(tensor: torch.Tensor, blobs: list[bytes], *, data: bool = True) -> dict[str, Any]:
    """A raw record of ``tensor``, its bytes appended to ``blobs`` (only its dtype, shape and
    strides, with blob -1, when not ``data``: an output the harness will refuse anyway)."""
    name = dtype_name(tensor)
    if name not in ITEM_SIZE:
        raise TypeError(f"outputs of dtype {name} cannot be compared")
    record = {"dtype": name, "shape": list(tensor.shape), "strides": list(tensor.stride()), "blob": -1}
    if data:
        flat = tensor.detach().contiguous().cpu().reshape(-1)
        if name == "bfloat16":
            flat = flat.view(torch.int16)
        blobs.append(flat.numpy().tobytes())
        record["blob"] = len(blobs) - 1
    return record
