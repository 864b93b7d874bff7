"""A step the local backend cannot confine is an infrastructure failure, never a verdict."""

from __future__ import annotations

import pytest

from codegym.error import SandboxError
from codegym.executor import Job, Step
from codegym.executor.local import LocalExecutor

UNUSABLE_UID = (1 << 32) - 1  # (uid_t) -1: setuid and setgid refuse it


@pytest.mark.parametrize("argv", [("python", "main.py"), ("true",)], ids=["in-process", "exec"])
def test_a_step_that_cannot_be_confined_raises(argv: tuple[str, ...]) -> None:
    with (
        LocalExecutor(workers=1, retries=0, uid_base=UNUSABLE_UID) as executor,
        pytest.raises(SandboxError, match=r"could not be confined|Invalid argument"),
    ):
        executor.run(Job(steps=(Step(argv=argv),), files={"main.py": b"print('never')\n"}))
