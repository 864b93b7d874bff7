# difficulty: easy
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """Leaky ReLU with a slope given at construction."""

    def __init__(self, negative_slope: float):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, self.negative_slope)


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 4, "dim": 80}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.05]
