# difficulty: medium
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softplus: log(1 + exp(x)), numerically stable for large x."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(x)


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 4, "dim": 60}


def get_inputs():
    return [torch.randn(batch_size, dim) * 10]


def get_init_inputs():
    return []
