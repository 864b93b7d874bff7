"""Instrumentation of the submission's process: what its forward really did.

Installed by the candidate runner before the submission is imported. It counts Triton
launches (every launch path of triton goes through a wrapper installed here: JIT and
interpreted kernels, autotuned ones, precompiled ones), records the aten operators torch
runs during a forward outside those launches (only allocation, views and copies are
allowed: the arithmetic must happen in Triton), snapshots the attributes of torch, triton
and the timers so that any monkeypatching shows, and counts threads.

Everything here lives in the submission's process, so a submission able to reach it could
forge it: the static checks (`integrity`) keep a submission from reaching it (no imports
beyond torch/triton/math, no private or dunder attributes, no getattr/setattr), and the
outputs are judged by the harness, which the submission cannot reach at all.
"""

from __future__ import annotations

import os
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
import triton
import triton.language
import triton.testing
from codegym.envs.triton_kernel import aot
from torch.utils._python_dispatch import TorchDispatchMode
from triton.compiler.compiler import CompiledKernel
from triton.compiler.errors import CompilationError
from triton.runtime.autotuner import Autotuner
from triton.runtime.interpreter import InterpretedFunction
from triton.runtime.jit import JITFunction

# aten operators a forward may run outside Triton: allocation, views, copies.
ALLOWED_OPS = frozenset(
    [
        "empty",
        "empty_like",
        "empty_strided",
        "new_empty",
        "new_empty_strided",
        "zeros",
        "zeros_like",
        "new_zeros",
        "ones",
        "ones_like",
        "new_ones",
        "full",
        "full_like",
        "new_full",
        "fill_",
        "zero_",
        "view",
        "_unsafe_view",
        "reshape",
        "as_strided",
        "t",
        "transpose",
        "permute",
        "expand",
        "squeeze",
        "unsqueeze",
        "select",
        "slice",
        "narrow",
        "detach",
        "alias",
        "clone",
        "contiguous",
        "copy_",
        "_to_copy",
        "to",
        "lift_fresh",
        "unbind",
        "split",
        "split_with_sizes",
        "chunk",
        "view_as",
        "expand_as",
        "flatten",
        "unflatten",
        "resize_",
        "set_",
        "is_same_size",
    ]
)
WATCHED: tuple[tuple[str, object], ...] = (
    ("torch", torch),
    ("torch.nn.functional", torch.nn.functional),
    ("torch.Tensor", torch.Tensor),
    ("torch.nn.Module", torch.nn.Module),
    ("torch.cuda", torch.cuda),
    ("torch.cuda.Event", torch.cuda.Event),
    ("torch.linalg", torch.linalg),
    ("torch.fft", torch.fft),
    ("torch.special", torch.special),
    ("time", time),
    ("triton", triton),
    ("triton.language", triton.language),
    ("triton.testing", triton.testing),
    ("JITFunction", JITFunction),
    ("InterpretedFunction", InterpretedFunction),
    ("Autotuner", Autotuner),
    ("CompiledKernel", CompiledKernel),
    ("threading", threading),
)


class Violation(Exception):
    """An integrity check failed.

    Attributes:
        check: The check's name (``no_launch``, ``torch_ops``, ``patched``, ...).
    """

    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check


class _OpRecorder(TorchDispatchMode):
    """Records the aten operators run while it is active and no launch is in progress."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if self.guard.inside == 0:
            name = func.overloadpacket.__name__
            if name not in ALLOWED_OPS:
                self.guard.ops.append(f"aten.{name}")
        return func(*args, **(kwargs or {}))


class Guard:
    """The counters and snapshots of one submission's process."""

    def __init__(self, *, interpret: bool) -> None:
        self.interpret = interpret
        self.launches = 0
        self.kernels: dict[str, int] = {}
        self.ops: list[str] = []
        self.inside = 0
        self.checked: set[tuple[Any, ...]] = set()
        self.aot_note: str | None = None
        self.snapshot: dict[tuple[str, str], int] = {}
        self.threads = 0
        self.recorder: _OpRecorder | None = None

    # --- installation, before the submission is imported -----------------------------

    def install(self) -> None:
        """Wrap every launch path of triton, then snapshot what must not change."""
        self._wrap(JITFunction, "run")
        self._wrap(InterpretedFunction, "run")
        self._wrap_compiled()
        self.snapshot = _snapshot()

    def _wrap(self, owner: type, name: str) -> None:
        original = owner.__dict__[name]
        guard = self

        def run(kernel: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            if warmup:
                return original(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            guard._before_launch(kernel, args, kwargs)
            guard.inside += 1
            try:
                return original(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            except CompilationError as e:  # on a GPU, compiled at the first launch
                raise aot.KernelCompileError(str(e), aot.compile_error_line(e, kernel)) from None
            finally:
                guard.inside -= 1

        run.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(owner, name, run)

    def _wrap_compiled(self) -> None:
        original = CompiledKernel.__getitem__
        guard = self

        def getitem(kernel: Any, grid: Any) -> Callable[..., Any]:
            launch = original(kernel, grid)

            def counted(*args: Any, **kwargs: Any) -> Any:
                guard._count(getattr(kernel, "name", "compiled"))
                guard.inside += 1
                try:
                    return launch(*args, **kwargs)
                finally:
                    guard.inside -= 1

            return counted

        CompiledKernel.__getitem__ = getitem  # type: ignore[method-assign]

    def _before_launch(self, kernel: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        fn = getattr(kernel, "fn", None)
        self._count(getattr(fn, "__name__", "kernel"))
        # Inside a launch no operator is recorded: nothing of the submission may run there.
        if getattr(kernel, "pre_run_hooks", None):
            raise Violation("launch_hooks", "a kernel launch carries pre-run hooks (code run unobserved)")
        strange = [_type_name(v) for v in (*args, *kwargs.values()) if not _plain_argument(v)]
        if strange:
            raise Violation("launch_args", f"a kernel was launched with arguments of type {', '.join(strange[:3])}")
        if self.interpret and isinstance(fn, types.FunctionType):
            self._check_compiles(fn, args, kwargs)

    def _count(self, name: str) -> None:
        self.launches += 1
        self.kernels[name] = self.kernels.get(name, 0) + 1

    def _check_compiles(self, fn: types.FunctionType, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        arguments = aot.bind(fn, args, kwargs)
        key = (fn, tuple((k, _spec(v)) for k, v in arguments.items()))
        if key in self.checked or self.aot_note is not None:
            return
        self.checked.add(key)
        self.inside += 1
        try:
            aot.front_end(fn, arguments)
        except aot.Unavailable as e:
            self.aot_note = str(e)
        finally:
            self.inside -= 1

    # --- around each forward ---------------------------------------------------------

    def baseline_threads(self) -> None:
        self.threads = _thread_count()

    def start(self) -> None:
        self.launches = 0
        self.kernels = {}
        self.ops = []
        self.recorder = _OpRecorder(self)
        self.recorder.__enter__()

    def stop(self) -> None:
        if self.recorder is not None:
            recorder, self.recorder = self.recorder, None
            recorder.__exit__(None, None, None)

    def verify(self) -> None:
        """Raise `Violation` for the first integrity check the last forward failed."""
        changed = self.changed()
        if changed:
            raise Violation("patched", f"the submission replaced {', '.join(changed[:5])}")
        # Python threads anywhere; OS threads too where nothing else starts them (on a GPU
        # the CUDA driver may, when it loads a module).
        os_threads = self.interpret and _thread_count() > self.threads
        if os_threads or threading.active_count() > 1:
            raise Violation("threads", "the submission started threads of its own")
        if self.ops:
            names = ", ".join(sorted(set(self.ops))[:6])
            raise Violation(
                "torch_ops",
                f"the forward computed with PyTorch operators outside Triton kernels ({names}); "
                "only allocation, views and copies may run outside a kernel",
            )
        if self.launches == 0:
            raise Violation("no_launch", "the forward launched no Triton kernel")

    def changed(self) -> list[str]:
        now = _snapshot()
        return [f"{owner}.{name}" for (owner, name), ident in self.snapshot.items() if now.get((owner, name)) != ident]


def _plain_argument(value: Any) -> bool:
    """A kernel argument whose use by triton runs none of the submission's code."""
    if value is None or type(value) in (torch.Tensor, torch.nn.Parameter, int, float, bool, str, torch.dtype):
        return True
    if type(value) is tuple:
        return all(_plain_argument(v) for v in value)
    return type(value).__module__.startswith("triton.")


def _type_name(value: Any) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _spec(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return ("tensor", value.dtype)
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    return type(value).__name__


def _snapshot() -> dict[tuple[str, str], int]:
    return {(owner, name): id(value) for owner, target in WATCHED for name, value in list(vars(target).items())}


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()
