# difficulty: medium
# tags: fused,activation
import torch
import torch.nn as nn


class Model(nn.Module):
    """SwiGLU gate: silu(gate) * up."""

    def __init__(self):
        super().__init__()

    def forward(self, gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(gate) * up


batch_size = 1024
dim = 2048
cpu_shapes = {"batch_size": 4, "dim": 72}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
