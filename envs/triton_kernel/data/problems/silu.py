# difficulty: easy
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """SiLU (swish): x * sigmoid(x)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(x)


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 3, "dim": 128}


def get_inputs():
    return [torch.randn(batch_size, dim) * 3]


def get_init_inputs():
    return []
