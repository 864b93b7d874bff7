"""Readies the sandboxed worker for torch's import (stdlib only).

Preloaded first by `TritonExecutor`'s workers, which run without ``site``: the executor
binds the host's site-packages (torch, triton, numpy) read-only into the view and puts them
on the worker's ``sys.path`` (its view's ``python_path``).
"""

from __future__ import annotations

import os
import tempfile

# The worker's /tmp is read-only until a job mounts its own; some of torch's imports ask
# tempfile for a usable directory at import time, which would probe (and fail) here.
tempfile.tempdir = "/tmp"
# torch._dynamo's import makes inductor's cache dir: point it at one that exists (a step's
# environment is its own, set by the env).
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp")
# No thread pools in a process that forks: numpy's OpenBLAS would start one at import.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
