"""GPU timing of the reference and the submission, in the submission's process.

CUDA events around each call, after warm-up calls; the L2 cache flushed before every timed
call by overwriting a buffer twice its size; reference and submission timed in pairs whose
order alternates, so that clock and thermal drift hit both alike; the speedup is the
geometric mean of the per-pair ratios, with a Student-t confidence interval on their logs.
Only ever called on a GPU.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

# Two-sided 95% Student-t quantiles by degrees of freedom (30 and more: 2.042 down to 1.96).
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}  # fmt: skip


@dataclass(frozen=True)
class TimingConfig:
    """How to time: ``warmup`` calls of each, then ``rounds`` alternating pairs."""

    warmup: int = 5
    rounds: int = 30


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (approximate between
    tabulated values: the next smaller tabulated df, so the interval errs wide)."""
    if df < 1:
        return math.inf
    if df > 30:
        return 1.96 + 2.4 / df
    return _T95[max(k for k in _T95 if k <= df)]


def speedup_interval(reference_ms: list[float], candidate_ms: list[float]) -> dict[str, float]:
    """Geometric-mean speedup of paired timings and its 95% confidence interval."""
    logs = [math.log(r / c) for r, c in zip(reference_ms, candidate_ms, strict=True) if r > 0 and c > 0]
    if not logs:
        raise ValueError("no positive timing pairs")
    mean = statistics.fmean(logs)
    spread = statistics.stdev(logs) if len(logs) > 1 else math.inf
    half = t_quantile(len(logs) - 1) * spread / math.sqrt(len(logs))
    return {
        "speedup": math.exp(mean),
        "speedup_low": math.exp(mean - half) if math.isfinite(half) else 0.0,
        "speedup_high": math.exp(mean + half) if math.isfinite(half) else math.inf,
        "reference_ms": statistics.median(reference_ms),
        "candidate_ms": statistics.median(candidate_ms),
        "pairs": float(len(logs)),
    }


class Timer:
    """Times callables on the current CUDA device. Built before the submission is imported,
    so it holds the genuine event class even if the submission later patches torch."""

    def __init__(self) -> None:
        self.event = torch.cuda.Event
        self.synchronize = torch.cuda.synchronize
        size = max(int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0)), 8 << 20) * 2
        self.flush_buffer = torch.empty(size // 4, dtype=torch.int32, device="cuda")

    def once(self, fn: Callable[[], Any]) -> tuple[Any, Any]:
        self.flush_buffer.zero_()  # evicts L2: both callables start cold
        start, end = self.event(enable_timing=True), self.event(enable_timing=True)
        start.record()
        fn()
        end.record()
        return start, end

    def pairs(
        self, reference: Callable[[], Any], candidate: Callable[[], Any], config: TimingConfig
    ) -> dict[str, float]:
        for _ in range(config.warmup):
            reference()
            candidate()
        self.synchronize()
        events: list[tuple[Any, Any, Any, Any]] = []
        for round_ in range(config.rounds):
            if round_ % 2 == 0:
                ref = self.once(reference)
                cand = self.once(candidate)
            else:
                cand = self.once(candidate)
                ref = self.once(reference)
            events.append((*ref, *cand))
        self.synchronize()
        reference_ms = [start.elapsed_time(end) for start, end, _, _ in events]
        candidate_ms = [start.elapsed_time(end) for _, _, start, end in events]
        return speedup_interval(reference_ms, candidate_ms)
