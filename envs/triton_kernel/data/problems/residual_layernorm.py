# difficulty: hard
# tags: fused,layernorm
import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a residual, then layer-normalises the sum (no affine parameters)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        h = x + residual
        return torch.nn.functional.layer_norm(h, (h.shape[-1],), eps=1e-5)


batch_size = 2048
dim = 1024
cpu_shapes = {"batch_size": 4, "dim": 60}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
