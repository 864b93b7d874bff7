import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def squared_error_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    diff = tl.load(p_ptr + offsets, mask=mask, other=0.0) - tl.load(t_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(diff * diff, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        predictions, targets = predictions.contiguous(), targets.contiguous()
        out = torch.zeros((), device=predictions.device, dtype=torch.float32)
        n = predictions.numel()
        squared_error_kernel[(triton.cdiv(n, 1024),)](predictions, targets, out, n, BLOCK=1024)
        return out
