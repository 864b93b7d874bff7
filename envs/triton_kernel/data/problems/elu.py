# difficulty: easy
# tags: activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """ELU with alpha given at construction."""

    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.elu(x, alpha=self.alpha)


batch_size = 512
dim = 4096
cpu_shapes = {"batch_size": 5, "dim": 40}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.7]
