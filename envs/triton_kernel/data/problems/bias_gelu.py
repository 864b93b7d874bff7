# difficulty: medium
# tags: fused,activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a learned per-feature bias, then applies exact (erf) GELU."""

    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x + self.bias)


batch_size = 1024
dim = 2048
cpu_shapes = {"batch_size": 5, "dim": 48}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
