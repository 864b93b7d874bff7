"""The harness of a test-generation job (stdlib only; runs in the worker's supervisor).

It sends the programs (the reference, then its mutants; or a matrix cell's one program) and
the budgets down the job's channel, where only the holder reads them, then waits for the
runner's report (see `codegym.envs.test_generation.runner`). The grader checks the report.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
import time
from collections.abc import Sequence
from typing import Any

from codegym.executor.base import Harness, Job, Limits, Step
from codegym.executor.channel import Channel, ChannelClosed, ChannelTimeout, ChannelViolation

RUNNER = "codegym.envs.test_generation.runner"
CODEC = "codegym.envs.python_function.codec"  # (preloaded: the worker then stubs its package)
PRELOAD = (RUNNER, CODEC, __name__)
STEP = Step(argv=("python", "-m", RUNNER), channel=True)
MAX_REPORT = 1 << 20


def judge(channel: Channel, payload: bytes) -> bytes:
    """Harness entry (see `codegym.executor.Harness`)."""
    spec = marshal.loads(payload)
    runs = len(spec["programs"]) + (1 if spec["coverage"] else 0)
    deadline = time.monotonic() + runs * (2 * float(spec["budget_s"]) + 2.0) + 5.0
    try:
        channel.send(json.dumps(spec).encode())
        report = channel.recv(timeout=max(0.0, deadline - time.monotonic()))
    except ChannelClosed:
        return _broken("the test runner ended without a report (its process was killed)")
    except ChannelTimeout:
        return _broken("the test runner did not report in time")
    except ChannelViolation as e:
        return _broken(f"the test runner's report was garbled: {e}")
    if len(report) > MAX_REPORT:
        return _broken(f"a report of {len(report)} bytes")
    return report


def _broken(why: str) -> bytes:
    return json.dumps({"phase": "broken", "error": why}).encode()


def job_for(
    tests: str,
    programs: Sequence[str],
    entry_point: str,
    *,
    limits: Limits,
    per_test_s: float,
    coverage: bool = False,
) -> Job:
    """The job that runs ``tests`` (the submission) against ``programs[0]`` (the reference),
    then, when they pass there, against each other program. ``limits`` are one run's; the
    job's are as many times that as it has runs (the runner keeps each run to its own budget).
    Everything that differs between submissions' programs travels in the harness's payload."""
    budget = max(0.5, min(limits.wall_s, limits.cpu_s) - 1.0)
    runs = len(programs) + (1 if coverage else 0)
    spec: dict[str, Any] = {"programs": list(programs), "entry_point": entry_point, "coverage": coverage,
                            "per_test_s": min(per_test_s, budget), "budget_s": budget}  # fmt: skip
    config = json.dumps({"entry_point": entry_point, "tests": "test_submission.py", "runs": runs}).encode()
    return Job(
        steps=(STEP,),
        files={"test_submission.py": tests.encode(), "runner.json": config},
        limits=dataclasses.replace(
            limits, cpu_s=limits.cpu_s * runs, wall_s=limits.wall_s * runs, output_bytes=limits.output_bytes * runs
        ),
        harness=Harness(f"{__name__}:judge", marshal.dumps(spec)),
        preload=PRELOAD,
    )
