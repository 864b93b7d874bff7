# difficulty: easy
# tags: elementwise
import torch
from torch import nn


class Model(nn.Module):
    """Adds two tensors elementwise."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


batch_size = 2048
dim = 2048
cpu_shapes = {"batch_size": 8, "dim": 100}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
