# difficulty: medium
# tags: matmul
import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix product of two matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


M = 1024
K = 512
N = 1024
cpu_shapes = {"M": 40, "K": 24, "N": 36}


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
