# difficulty: easy
# tags: memory
import torch
import torch.nn as nn


class Model(nn.Module):
    """Transposes a matrix into a new contiguous tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


M = 1024
N = 2048
cpu_shapes = {"M": 20, "N": 36}


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
