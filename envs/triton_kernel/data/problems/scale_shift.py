# difficulty: easy
# tags: elementwise
import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales a tensor and shifts it by constants given at construction."""

    def __init__(self, alpha: float, beta: float):
        super().__init__()
        self.alpha = alpha
        self.beta = beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.alpha + self.beta


batch_size = 1024
dim = 2048
cpu_shapes = {"batch_size": 6, "dim": 50}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [1.5, -0.25]
