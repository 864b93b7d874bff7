"""Puts the host's site-packages (torch, triton, numpy) on the sandboxed worker's path.

Preloaded first by `TritonExecutor`'s workers, which run without ``site``: the executor
binds the directories read-only into the view and lists them in `PATHS_FILE`, a file it
binds into the view too. Stdlib only.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

PATHS_FILE = "/etc/codegym-python-path.json"


def add_site_packages() -> None:
    """Append the directories listed in `PATHS_FILE` (when it exists) to ``sys.path``."""
    if not os.path.exists(PATHS_FILE):
        return
    with open(PATHS_FILE) as handle:
        for path in json.load(handle):
            if path not in sys.path:
                sys.path.append(path)


add_site_packages()
# The worker's /tmp is read-only until a job mounts its own; some of torch's imports ask
# tempfile for a usable directory at import time, which would probe (and fail) here.
tempfile.tempdir = "/tmp"
# torch._dynamo's import makes inductor's cache dir: point it at one that exists (a step's
# environment is its own, set by the env).
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp")
# No thread pools in a process that forks: numpy's OpenBLAS would start one at import.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
