"""A worker rehearses each preloaded family once; its spares copy ahead of their requests the
pages that rehearsal wrote, and nothing a submission does changes what the next one gets."""

from __future__ import annotations

import pytest

from codegym.executor import Job, Step
from codegym.executor.local import LocalExecutor

CANDIDATE = "codegym.envs.python_function.candidate"
HARNESS = "codegym.envs.python_function.harness"
# A step that says how many pages its process copied as it was forked (see _forkcore.c).
LEARNED = b"import sys\nprint(sys.modules['codegym.executor._forkcore'].learned())\n"
# A step that writes to every object the worker had loaded (the worker froze them all before
# it forked): with each, to a page of the memory it shares with the next spare.
TOUCH_ALL = b"import gc\ngc.unfreeze()\nkept = gc.get_objects()\nprint(len(kept))\n"


def _learned(executor: LocalExecutor, preload: tuple[str, ...]) -> int:
    job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": LEARNED}, preload=preload)
    step = executor.run(job).steps[0]
    assert step.exit_code == 0, step
    return int(step.stdout)


@pytest.mark.parametrize("native", [True, False], ids=["c", "python"])
def test_workers_rehearse_the_families_they_preload(native: bool) -> None:
    with LocalExecutor(workers=1, native_fork_server=native) as executor:
        job = Job(steps=(Step(argv=("true",)),), preload=(CANDIDATE, HARNESS))
        assert executor.run(job).ok
        assert [worker.rehearsed for worker in executor._pool] == [[HARNESS]]


def test_spares_copy_what_the_rehearsal_wrote_and_only_that() -> None:
    """Without a rehearsal a spare copies nothing ahead; after one, every spare copies the
    same pages, however many the submissions before it wrote."""
    with LocalExecutor(workers=1) as executor:
        assert _learned(executor, (CANDIDATE,)) == 0  # (no rehearsal in that module)
    with LocalExecutor(workers=1) as executor:
        first = _learned(executor, (CANDIDATE, HARNESS))
        assert first > 0
        for _ in range(2):
            touch = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": TOUCH_ALL})
            touched = executor.run(touch).steps[0]
            assert touched.exit_code == 0 and int(touched.stdout) > 10_000, touched
            assert _learned(executor, (CANDIDATE, HARNESS)) == first
