import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, x / norm, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, n_cols = x.shape
        out = torch.empty_like(x)
        l2_normalize_kernel[(rows,)](x, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out
