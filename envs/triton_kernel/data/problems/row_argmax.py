# difficulty: medium
# tags: reduction
import torch
import torch.nn as nn


class Model(nn.Module):
    """Index of the maximum of each row (int64)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(x, dim=1)


batch_size = 4096
dim = 1024
cpu_shapes = {"batch_size": 6, "dim": 50}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
