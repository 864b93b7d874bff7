# difficulty: medium
# tags: layernorm
import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS normalisation over the last dimension with a learned scale."""

    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


batch_size = 2048
dim = 2048
cpu_shapes = {"batch_size": 6, "dim": 56}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim, 1e-6]
