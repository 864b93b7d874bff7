"""PyTorch models rewritten as Triton kernels (``codegym/TritonKernel-v0``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/TritonKernel-v0",
    entry_point="codegym.envs.triton_kernel.env:TritonKernelEnv",
    kwargs={"tasks": "codegym-triton"},
)
