import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, out_ptr, n, alpha, beta, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x * alpha + beta
    tl.store(out_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, alpha: float, beta: float):
        super().__init__()
        self.alpha = alpha
        self.beta = beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_shift_kernel[(triton.cdiv(n, 256),)](x, out, n, self.alpha, self.beta, BLOCK=256)
        return out
