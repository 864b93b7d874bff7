"""Jobs and results cross to the workers in their wire form: every field, nested ones too."""

from __future__ import annotations

import dataclasses
import marshal
from types import MappingProxyType

import pytest

from codegym.executor import Harness, Job, Limits, RunResult, Step, StepResult

LIMITS = Limits(cpu_s=1.5, wall_s=2.5, memory_bytes=3, processes=4, output_bytes=5, file_size_bytes=6,
                disk_bytes=7, open_files=8, stack_bytes=9)  # fmt: skip
JOB = Job(
    steps=(
        Step(
            argv=("python", "-m", "m"),
            stdin=b"in",
            limits=LIMITS,
            channel=True,
            stop_on_failure=False,
            env=(("K", "V"),),
            sockets="errno",
            memory_slack_bytes=1 << 20,
        ),
        Step(argv=("true",)),
    ),
    files=MappingProxyType({"a.c": b"int main;", "d/x": b"\0"}),
    limits=Limits(cpu_s=9.0),
    harness=Harness("pkg.mod:grade", b"payload"),
    preload=("pkg.mod",),
    collect=("a.out",),
    executables=("d/x",),
    protected=("a.c",),
)
RESULT = RunResult(
    steps=(
        StepResult(
            argv=("gcc",),
            exit_code=1,
            signal=15,
            stdout=b"o",
            stderr=b"e",
            cpu_s=0.5,
            wall_s=0.25,
            peak_memory_bytes=10,
            limit="cpu",
            skipped=True,
        ),
        StepResult(argv=("x",), signal=9, skipped=True),
    ),
    harness_output=b"{}",
    harness_error="trace",
    backend="docker",
    cgroup="v2",
    isolation="userns",
    attempts=2,
    files={"a.out": b"\x7fELF"},
)


def _defaulted(obj: object) -> list[str]:
    """The fields of ``obj`` left at their default value."""
    left = []
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            continue
        if getattr(obj, f.name) == default:
            left.append(f.name)
    return left


@pytest.mark.parametrize("obj", [JOB, RESULT], ids=["job", "result"])
def test_the_wire_form_is_builtins_and_round_trips(obj: Job | RunResult) -> None:
    wire = marshal.loads(marshal.dumps(obj.to_wire()))  # (marshal refuses anything but builtins)
    back = type(obj).from_wire(wire)
    assert back == obj
    assert [type(step) for step in back.steps] == [type(step) for step in obj.steps]


@pytest.mark.parametrize("obj", [JOB, JOB.steps[0], LIMITS, JOB.harness, RESULT, RESULT.steps[0]],
                         ids=lambda obj: type(obj).__name__)  # fmt: skip
def test_the_samples_set_every_field(obj: object) -> None:
    """So that the round trip above covers every field, and a field added later: its wire
    form must carry it too."""
    assert _defaulted(obj) == []


def test_a_host_holding_descriptors_past_1024_still_runs_jobs() -> None:
    """A long-lived trainer may hold thousands of descriptors: the executor's pipes and its
    workers' then number past `select`'s 1024, and every wait uses `poll`."""
    import os
    import resource

    from codegym.executor.local import LocalExecutor

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the descriptor limit ({hard}) is too low to hold 1100")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with LocalExecutor(workers=1) as executor:
            result = executor.run(Job(steps=(Step(argv=("python", "-c", "print(6 * 7)")),)))
        assert result.steps[0].ok and result.steps[0].stdout == b"42\n"
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
