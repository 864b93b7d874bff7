"""Turns on Triton's interpreter for the worker: preloaded before triton by CPU workers.

Triton decorates its own library kernels (``tl.sum``, ``tl.max``, ``tl.cumsum``, ...) when
it is imported, as interpreted functions only if ``TRITON_INTERPRET`` is set by then; the
warm workers import triton once, so the choice is made here, per executor, not per step.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
