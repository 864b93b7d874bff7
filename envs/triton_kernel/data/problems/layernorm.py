# difficulty: medium
# tags: layernorm
import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer normalisation over the last dimension with a learned scale and shift."""

    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), self.weight, self.bias, eps=1e-5)


batch_size = 2048
dim = 2048
cpu_shapes = {"batch_size": 6, "dim": 72}


def get_inputs():
    return [torch.randn(batch_size, dim) * 2 + 1]


def get_init_inputs():
    return [dim]
