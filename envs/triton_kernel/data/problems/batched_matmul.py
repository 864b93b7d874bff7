# difficulty: hard
# tags: matmul
import torch
import torch.nn as nn


class Model(nn.Module):
    """Batched matrix product."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


batch = 16
M = 256
K = 128
N = 256
cpu_shapes = {"batch": 3, "M": 20, "K": 16, "N": 24}


def get_inputs():
    return [torch.randn(batch, M, K), torch.randn(batch, K, N)]


def get_init_inputs():
    return []
