"""Where the local backend's workers run: a pool with a worker per CPU keeps each worker, and
every process it starts, on its own CPU; a smaller pool is left to the scheduler."""

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


def test_a_pool_with_a_worker_per_cpu_pins_each_worker_to_its_own() -> None:
    with LocalExecutor(workers=len(ALLOWED)) as executor:
        assert _affinities(executor, 2 * len(ALLOWED)) == {(cpu,) for cpu in ALLOWED}


@pytest.mark.skipif(len(ALLOWED) < 2, reason="one CPU: pinned or not, a step runs on it")
@pytest.mark.parametrize("pin_workers", [None, False], ids=["smaller-pool", "off"])
def test_unpinned_workers_run_where_this_process_may(pin_workers: bool | None) -> None:
    with LocalExecutor(workers=len(ALLOWED) - 1, pin_workers=pin_workers) as executor:
        assert _affinities(executor, 2) == {tuple(ALLOWED)}


def test_pinning_can_be_asked_for() -> None:
    with LocalExecutor(workers=1, pin_workers=True) as executor:
        assert _affinities(executor, 1) == {(ALLOWED[0],)}
