"""The family's own executor: warm local workers with torch and triton already imported.

Torch and triton take seconds to import, so they are imported once per warm worker, and
only by this family's workers: the shared default executor of the other families stays
light. The workers run without ``site``; `TritonExecutor` binds the directories holding
torch, triton and numpy read-only into the sandbox view and onto the workers' ``sys.path``
and, on a GPU machine, the NVIDIA device nodes.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from typing import Any

from codegym.executor.local import LocalExecutor
from codegym.executor.local import site_directories as local_site_directories
from codegym.executor.registry import PerProcess

SITEPATH = "codegym.envs.triton_kernel.sitepath"
INTERPRET = "codegym.envs.triton_kernel.interpret"
MODULES = (
    "codegym.envs.triton_kernel.sizing",
    "codegym.envs.triton_kernel.reference",
    "codegym.envs.triton_kernel.candidate",
    "codegym.envs.triton_kernel.harness",
)
HEAVY = ("torch", "triton", "numpy")
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps/*")

_shared: PerProcess[bool, TritonExecutor] = PerProcess()


def runtime(*, interpret: bool) -> tuple[str, ...]:
    """The modules a worker preloads: for the CPU (Triton's interpreter) or for a GPU."""
    return (SITEPATH, *((INTERPRET,) if interpret else ()), *MODULES)


def gpu_devices() -> list[str]:
    """The NVIDIA device nodes of this machine, relative to /dev (bound read-write into GPU
    workers' views: a CUDA context needs them, and nothing else of /dev)."""
    found = [d for pattern in GPU_DEVICES for d in sorted(glob.glob(pattern)) if not os.path.isdir(d)]
    return [os.path.relpath(d, "/dev") for d in dict.fromkeys(found)]


def site_directories(modules: Iterable[str] = HEAVY) -> list[str]:
    """The directories ``modules`` are imported from (their site-packages)."""
    install = "pip install 'codegym[triton]' (torch==2.13.0, triton, numpy)"
    return local_site_directories(modules, needed_by="the TritonKernel family", install=install)


class TritonExecutor(LocalExecutor):
    """A `LocalExecutor` whose workers import torch and triton once, at start.

    Args:
        workers: Number of workers; one per core by default.
        interpret: Workers for Triton's CPU interpreter (True) or for a GPU (False).
        preload: Further modules to import in every worker.
        **kwargs: Passed on to `LocalExecutor`.
    """

    def __init__(
        self, workers: int | None = None, *, interpret: bool = True, preload: Iterable[str] = (), **kwargs: Any
    ) -> None:
        self.interpret = interpret
        self._paths = site_directories()
        super().__init__(workers, preload=(*runtime(interpret=interpret), *preload), **kwargs)

    def _view(self) -> dict[str, Any]:
        view = super()._view()
        binds = [(path, path) for path in self._paths]
        devices = [] if self.interpret else gpu_devices()
        return {**view, "binds": [*view["binds"], *binds], "devices": devices, "python_path": self._paths}


def shared_executor(*, interpret: bool) -> TritonExecutor:
    """The process-wide executor of the family for the CPU interpreter or a GPU, started on
    first use, closed at exit (like every worker pool)."""
    return _shared.get(interpret, lambda: TritonExecutor(interpret=interpret), stale=lambda e: e._closed)
