"""Where the local backend's workers run: by default wherever the scheduler puts them; with
``pin_workers``, each worker, and every process it starts, on a CPU of its own."""

from __future__ import annotations

import json
import os

import pytest

from codegym.executor import Job, Step
from codegym.executor.base import Executor
from codegym.executor.local import LocalExecutor

ALLOWED = sorted(os.sched_getaffinity(0))
# Each step holds its worker for a while, so that a batch of them occupies every worker.
AFFINITY = Job(
    steps=(Step(argv=("python", "main.py")),),
    files={"main.py": b"import os, time\ntime.sleep(0.2)\nprint(sorted(os.sched_getaffinity(0)))\n"},
)


def _affinities(executor: Executor, jobs: int) -> set[tuple[int, ...]]:
    """The CPUs each of ``jobs`` steps run at once may run on."""
    futures = [executor.submit(AFFINITY) for _ in range(jobs)]
    return {tuple(json.loads(future.result().steps[0].stdout)) for future in futures}


@pytest.mark.parametrize("workers", [len(ALLOWED), 2 * len(ALLOWED)])
def test_pinned_workers_each_keep_to_a_cpu_round_robin(workers: int) -> None:
    with LocalExecutor(workers=workers, pin_workers=True) as executor:
        assert _affinities(executor, 2 * workers) == {(cpu,) for cpu in ALLOWED}


def test_workers_run_wherever_this_process_may_by_default() -> None:
    with LocalExecutor(workers=len(ALLOWED)) as executor:
        assert _affinities(executor, 2 * len(ALLOWED)) == {tuple(ALLOWED)}
