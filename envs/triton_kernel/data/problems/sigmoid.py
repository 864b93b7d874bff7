# difficulty: easy
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """Logistic sigmoid."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x)


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 4, "dim": 70}


def get_inputs():
    return [torch.randn(batch_size, dim) * 4]


def get_init_inputs():
    return []
