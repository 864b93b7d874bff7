"""Snapshot, restore, fork and release of terminal episodes (`codegym.episodes` over
`MachineEpisode`), on a bundled task: a snapshot copies the machine's changes, a restore or a
fork starts a box over the copy, a fork is judged on its own, and copies go when nothing uses them."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codegym.episodes import fork, release, restore, snapshot
from codegym.executor.rootbox import available, is_opaque, is_whiteout, remove_tree, run_root
from codegym.machine_episode import copy_changes, earlier_changes

from ..machine_snapshots import SUBMIT, bash, machine_of, output, wait_until  # noqa: TID252

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

TASK = Path(__file__).resolve().parents[3] / "envs" / "terminal" / "data" / "tasks" / "awk-busiest-hour"
RIGHT = (TASK / "tests" / "expected.txt").read_text()


@pytest.fixture
def env() -> Iterator[Any]:
    from codegym.envs.terminal.env import TerminalEnv

    made = TerminalEnv(str(TASK), mode="agent")
    made.reset(options={"task_id": "awk-busiest-hour"})
    yield made
    made.close()


def test_restore_gives_the_files_back_but_not_the_processes(env: Any) -> None:
    env.step(bash("echo base > /app/notes.txt; rm /app/logs/access.log; (sleep 1000 &)"))
    handle = snapshot(env)
    machine = machine_of(handle)
    assert machine.processes == 1 and Path(machine.layer).parent.parent == Path(run_root()).parent
    env.step(bash("echo changed > /app/notes.txt; touch /app/extra; pkill sleep"))
    restore(env, handle)
    assert env.unwrapped._episode.calls == 1
    seen = output(env, "cat /app/notes.txt; ls /app /app/logs; pgrep -c sleep")
    assert seen == "base\n/app:\nlogs\nnotes.txt\n\n/app/logs:\n0"  # (the log's deletion kept; no sleep)
    with pytest.raises(NotImplementedError, match="cannot be dumped"):
        env.unwrapped.dump_state(handle.core)
    _, _, terminated, _, _ = env.step([SUBMIT])
    assert terminated  # (its machine is closed: a restore forks one from the snapshot)
    restore(env, handle)
    assert output(env, "cat /app/notes.txt") == "base" and env.unwrapped._episode.env is env.unwrapped
    release(env, handle)
    with pytest.raises(ValueError, match="was released"):
        restore(env, handle)


def test_forks_are_independent_and_each_is_judged_on_its_own(env: Any) -> None:
    env.step(bash(f"printf '{RIGHT}' > /app/report.txt; echo parent > /app/notes.txt"))
    spare = env.unwrapped._spare
    left, right = fork(env, 2)
    assert env.unwrapped._spare is spare and left.unwrapped._spare is None  # (the parent's next reset keeps it)
    right.step(bash("echo right > /app/notes.txt; echo busiest_hour=never > /app/report.txt"))
    assert output(left, "cat /app/notes.txt") == "parent"
    env.step(bash("echo changed > /app/notes.txt"))
    assert output(left, "cat /app/notes.txt") == "parent" and output(right, "cat /app/notes.txt") == "right"
    # (left's report is only in the copy its box stands on: the verifier must see it)
    _, reward, terminated, _, info = left.step([SUBMIT])
    assert terminated and reward == 1.0, info["grade"]
    _, reward, terminated, _, info = right.step([SUBMIT])
    assert terminated and reward == 0.0 and info["grade"].status.value == "WA"
    for branch in (left, right):
        branch.close()


def test_a_copy_goes_once_its_handle_and_its_boxes_are_gone(env: Any) -> None:
    env.step(bash("echo base > /app/notes.txt"))
    handle = snapshot(env)
    layer = machine_of(handle).layer
    branches = fork(env, 2, snapshot=handle)
    boxes = [branch.unwrapped._episode.box for branch in branches]
    release(env, handle)
    time.sleep(0.5)
    assert os.path.isdir(layer)  # (two boxes stand on it)
    branches[0].close()
    time.sleep(0.5)
    assert os.path.isdir(layer) and output(branches[1], "cat /app/notes.txt") == "base"
    branches[1].close()
    assert wait_until(lambda: not os.path.exists(layer))
    assert all(not os.path.exists(box.folder) for box in boxes)
    with open("/proc/self/mountinfo") as mounts:
        assert not any(layer in line or box.folder in line for line in mounts for box in boxes)


def test_a_snapshot_of_a_restored_machine_holds_the_layers_below(env: Any) -> None:
    env.step(bash(f"printf '{RIGHT}' > /app/report.txt; echo one > /app/one.txt; echo two > /app/two.txt"))
    first = snapshot(env)
    restore(env, first)
    env.step(bash("rm /app/one.txt; rm -r /app/logs; mkdir /app/logs; echo new > /app/logs/other.log"))
    second = snapshot(env)
    restore(env, second)
    env.step(bash("echo three > /app/three.txt"))
    third = snapshot(env)
    layers = machine_of(third).spec.layers
    assert layers[:3] == (machine_of(third).layer, machine_of(second).layer, machine_of(first).layer)
    release(env, first)
    release(env, second)  # (the third holds both copies below its own)
    (branch,) = fork(env, 1, snapshot=third)
    release(env, third)
    listing = output(branch, "ls /app /app/logs; cat /app/two.txt /app/three.txt")
    assert listing == "/app:\nlogs\nreport.txt\nthree.txt\ntwo.txt\n\n/app/logs:\nother.log\ntwo\nthree"
    # (the judge's copy: the box's changes over its copies, as one upper layer)
    box = branch.unwrapped._episode.box
    flat = Path(run_root()) / f"flat-{os.getpid()}"
    flat.mkdir()
    try:
        assert earlier_changes(box) == layers[:3]
        copy_changes(box, str(flat))
        assert (flat / "app" / "report.txt").read_text() == RIGHT
        assert is_whiteout(str(flat / "app" / "one.txt")) and is_opaque(str(flat / "app" / "logs"))
        assert os.listdir(flat / "app" / "logs") == ["other.log"]
    finally:
        remove_tree(str(flat))
    _, reward, terminated, _, info = branch.step([SUBMIT])
    assert terminated and reward == 1.0, info["grade"]
    branch.close()
    copies = [machine_of(handle).layer for handle in (first, second, third)]
    env.close()
    assert wait_until(lambda: not any(os.path.exists(copy) for copy in copies))
