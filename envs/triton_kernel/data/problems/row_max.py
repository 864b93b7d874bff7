# difficulty: easy
# tags: reduction
import torch
import torch.nn as nn


class Model(nn.Module):
    """Maximum over dimension 1 (values only)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=1).values


batch_size = 4096
dim = 1024
cpu_shapes = {"batch_size": 6, "dim": 77}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
