# difficulty: easy
# tags: elementwise,fp16
import torch
import torch.nn as nn


class Model(nn.Module):
    """Fused multiply-add in half precision: a * b + c."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return a * b + c


batch_size = 1024
dim = 4096
cpu_shapes = {"batch_size": 4, "dim": 100}


def get_inputs():
    return [
        torch.randn(batch_size, dim).half(),
        torch.randn(batch_size, dim).half(),
        torch.randn(batch_size, dim).half(),
    ]


def get_init_inputs():
    return []
