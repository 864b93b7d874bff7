import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, n, dim, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    h = tl.load(x_ptr + offsets, mask=mask) + tl.load(bias_ptr + offsets % dim, mask=mask)
    y = 0.5 * h * (1.0 + tl.erf(h * 0.7071067811865476))
    tl.store(out_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bias_gelu_kernel[(triton.cdiv(n, 256),)](x, self.bias, out, n, x.shape[-1], BLOCK=256)
        return out
