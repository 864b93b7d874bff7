# difficulty: medium
# tags: reduction,scan
import torch
import torch.nn as nn


class Model(nn.Module):
    """Cumulative sum along each row."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


batch_size = 2048
dim = 1024
cpu_shapes = {"batch_size": 5, "dim": 40}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
