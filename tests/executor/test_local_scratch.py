"""Each job's work dir and /tmp leave the view with it. Unmounting them costs an RCU grace
period, which interrupts every CPU, so the local backend moves small ones under a root-only
directory and unmounts them together once its worker is idle (or holds too many): they must
stay out of every later submission's reach meanwhile, and hold little."""

from __future__ import annotations

import json
import time

import pytest

from codegym.executor import Job, Step
from codegym.executor._worker import RETIRE_BYTES, RETIRE_FILES, RETIRE_JOBS
from codegym.executor.base import Executor
from codegym.executor.local import LocalExecutor

IDLE_S = 0.5  # fifty times a worker's idle time before it unmounts what it retired

PLANT = "for path in ('/tmp/secret', '/sandbox/secret'):\n    open(path, 'w').write('42')\n"

# What a later submission can see of past jobs' scratch: the retired mounts listed in its
# mountinfo (a work dir is mounted with mode=755, a /tmp with the default), and what it
# reads when it reaches for them.
OBSERVE = r"""
import json, os, re
work = tmp = 0
for line in open('/proc/self/mountinfo'):
    fields = line.split()
    if re.fullmatch(r'/\.retired/\d+', fields[4]):  # (not what is mounted below them)
        if 'mode=755' in fields[-1].split(','):
            work += 1
        else:
            tmp += 1
reached = []
for path in ('/.retired', '/.retired/0', '/.retired/0/secret', '/.retired/1/secret'):
    try:
        reached.append(os.listdir(path) if os.path.isdir(path) else open(path).read())
    except OSError as e:
        reached.append(type(e).__name__)
print(json.dumps([work, tmp, reached]))
"""


def _python(executor: Executor, source: str) -> str:
    step = executor.run(Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()})).steps[0]
    assert step.exit_code == 0, step
    return step.stdout.decode()


def _observe(executor: Executor) -> tuple[int, int]:
    """The retired work dirs and /tmps a submission sees mounted; it reaches none of them."""
    work, tmp, reached = json.loads(_python(executor, OBSERVE))
    assert reached == ["PermissionError"] * 4
    return work, tmp


def test_past_scratch_is_out_of_reach_until_an_idle_worker_unmounts_it() -> None:
    with LocalExecutor(workers=1) as executor:
        seen = []
        for _ in range(RETIRE_JOBS + 4):
            _python(executor, PLANT)
            seen.append(_observe(executor))
        assert any(work for work, _ in seen), "back to back, past scratch is retired, not unmounted"
        assert all(work == tmp and work + tmp <= 2 * RETIRE_JOBS for work, tmp in seen), seen
        time.sleep(IDLE_S)
        assert _observe(executor) == (0, 0)


@pytest.mark.parametrize(
    ("fill", "retired"),
    [
        ("open('/tmp/a', 'w').write('x' * 1024)", True),
        (f"open('/tmp/a', 'w').write('x' * {RETIRE_BYTES + 4096})", False),
        (f"for i in range({RETIRE_FILES}):\n    open(f'/tmp/{{i}}', 'w').close()", False),
    ],
    ids=["little", "many-bytes", "many-files"],
)
def test_a_scratch_that_holds_much_is_unmounted_at_once(fill: str, retired: bool) -> None:
    """Retired scratch holds memory until it is unmounted: only small ones wait for that."""
    with LocalExecutor(workers=1) as executor:
        for _ in range(10):
            _python(executor, fill)
            work, tmp = _observe(executor)
            if work:  # (else the worker was idle long enough to unmount them all meanwhile)
                # Since the last unmount: each observation retired its work dir and /tmp;
                # each fill, its work dir and, when it holds little, its /tmp.
                assert (work == tmp) is retired, (work, tmp)
                return
        pytest.fail("no job came soon enough after another to see its scratch retired")


def test_the_folders_of_a_killed_owner_are_reaped(tmp_path) -> None:
    """An owner killed with SIGKILL cannot remove its workers' folders: the next executor
    removes those of owners that are gone, and leaves those of live ones."""
    import os
    import signal
    import subprocess
    import sys

    from codegym.executor.local import ROOT_PREFIX, reap_stale_roots

    script = (
        "import sys\nfrom codegym.executor import Job, Step\nfrom codegym.executor.local import LocalExecutor\n"
        "ex = LocalExecutor(workers=1)\nex.run(Job(steps=(Step(argv=('true',)),)))\nprint('ran', flush=True)\n"
        "sys.stdin.read()\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    owner = subprocess.Popen([sys.executable, "-c", script], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None and owner.stdout.readline() == b"ran\n"
        left = [p.name for p in tmp_path.iterdir() if p.name.startswith(f"{ROOT_PREFIX}{owner.pid}-")]
        assert len(left) == 1
        assert reap_stale_roots(str(tmp_path)) == []  # its owner lives
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    (tmp_path / f"{ROOT_PREFIX}{os.getpid()}-0-mine").mkdir()  # a live owner's (this process)
    assert reap_stale_roots(str(tmp_path)) == [str(tmp_path / left[0])]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(ROOT_PREFIX)) == [
        f"{ROOT_PREFIX}{os.getpid()}-0-mine"
    ]
