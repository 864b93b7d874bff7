# difficulty: medium
# tags: fused,bf16
import torch
import torch.nn as nn


class Model(nn.Module):
    """SiLU of x times y, in bfloat16."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(x) * y


batch_size = 1024
dim = 2048
cpu_shapes = {"batch_size": 4, "dim": 64}


def get_inputs():
    return [torch.randn(batch_size, dim).bfloat16(), torch.randn(batch_size, dim).bfloat16()]


def get_init_inputs():
    return []
