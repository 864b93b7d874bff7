# difficulty: medium
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """GELU with the tanh approximation."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x, approximate="tanh")


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 4, "dim": 64}


def get_inputs():
    return [torch.randn(batch_size, dim) * 2]


def get_init_inputs():
    return []
