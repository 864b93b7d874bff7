import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def residual_layernorm_kernel(x_ptr, r_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    h = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0) + tl.load(
        r_ptr + row * n_cols + cols, mask=mask, other=0.0
    )
    mean = tl.sum(h, axis=0) / n_cols
    centered = tl.where(mask, h - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, centered * rstd, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        x, residual = x.contiguous(), residual.contiguous()
        rows, n_cols = x.shape
        out = torch.empty_like(x)
        residual_layernorm_kernel[(rows,)](x, residual, out, n_cols, 1e-5, BLOCK=triton.next_power_of_2(n_cols))
        return out
