"""Workspace snapshots, for every backend and tier (see conftest.py): a snapshot freezes the
tree, a restore puts it back, a fork starts an independent workspace from it, and nothing a
branch writes reaches another branch or what it was taken from.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

import pytest

from codegym.executor import Executor, Job, Limits, Step
from codegym.executor.workspace import Changes, Layer, Workspace, WorkspaceLost

from .test_workspace import FAST, LAYER, PRUNED, out, sh


@pytest.fixture
def workspace(executor: Executor) -> Iterator[Workspace]:
    with executor.open_workspace(LAYER, disk_bytes=4 << 20) as ws:
        yield ws


def tree(workspace: Workspace) -> str:
    """Every file of the tree with its mode and content, sorted."""
    return out(workspace, "find . -type f -printf '%p %m ' -exec md5sum {} \\; | sort")


def test_restore_puts_back_the_tree_of_the_snapshot(workspace: Workspace) -> None:
    out(workspace, "echo one > notes && rm README.md && chmod +x src/app.py")
    before = tree(workspace)
    snapshot = workspace.snapshot()
    out(workspace, "echo two >> notes && echo back > README.md && mkdir -p new/dir && echo x > new/dir/f && rm -r src")
    assert tree(workspace) != before
    workspace.restore(snapshot)
    assert tree(workspace) == before
    out(workspace, "echo three > notes")  # (the restored tree goes on, and the snapshot stays as it was)
    workspace.restore(snapshot)
    assert out(workspace, "cat notes") == "one\n"
    workspace.release(snapshot)


def test_forks_are_independent_of_each_other_and_of_their_parent(workspace: Workspace) -> None:
    out(workspace, "echo base > shared && rm run_tests")
    snapshot = workspace.snapshot()
    children = [workspace.fork(snapshot) for _ in range(3)]
    workspace.release(snapshot)  # (the forks keep their files)
    try:
        for n, child in enumerate(children):
            out(child, f"echo {n} > mine && echo {n} >> shared")
        out(workspace, "echo parent > mine && rm shared")
        for n, child in enumerate(children):
            assert out(child, "cat mine shared; ls") == f"{n}\nbase\n{n}\nREADME.md\nmine\nshared\nsrc\n"
        assert out(workspace, "cat mine; ls") == "parent\nREADME.md\nmine\nsrc\n"
    finally:
        for child in children:
            child.close()


def test_a_fork_without_a_snapshot_starts_from_the_tree_now(workspace: Workspace) -> None:
    out(workspace, "echo now > state")
    with workspace.fork() as child:
        out(workspace, "echo later > state")
        assert out(child, "cat state; pwd -P") == f"now\n{child.workdir}\n" and child.workdir == workspace.workdir


def test_a_probe_in_one_branch_finds_no_file_of_a_sibling_or_the_parent(executor: Executor) -> None:
    with executor.open_workspace(LAYER, disk_bytes=4 << 20) as parent:
        snapshot = parent.snapshot()
        with parent.fork(snapshot) as left, parent.fork(snapshot) as right:
            parent.release(snapshot)
            out(parent, "echo parent-later-7f3a > secret-parent")
            out(left, "echo left-later-7f3a > secret-left")
            probe = (f"find / {PRUNED} -type f -print 2>/dev/null | xargs grep -l later-7f3a 2>/dev/null; "
                     "cat ../secret-* /proc/*/cwd/secret-* 2>/dev/null; true")  # fmt: skip
            assert "later-7f3a" not in out(right, probe)
            assert out(right, "ls") == "README.md\nrun_tests\nsrc\n"


def test_a_released_snapshot_cannot_be_restored(workspace: Workspace) -> None:
    snapshot = workspace.snapshot()
    workspace.release(snapshot)
    workspace.release(snapshot)  # (idempotent)
    with pytest.raises(WorkspaceLost, match="no snapshot"):
        workspace.restore(snapshot)
    assert out(workspace, "cat README.md") == "the task\n"  # (the workspace itself goes on)


def test_deep_chains_of_snapshots_keep_every_state(workspace: Workspace) -> None:
    """Past the depth where snapshots are squashed into one, each still restores exactly."""
    snapshots = []
    for n in range(40):
        out(workspace, f"echo {n} >> log && echo {n} > step-{n % 3}")
        snapshots.append(workspace.snapshot())
    for n in (0, 17, 31, 32, 39):
        workspace.restore(snapshots[n])
        assert out(workspace, "wc -l < log; cat step-0") == f"{n + 1}\n{n - n % 3 if n % 3 == 0 else 3 * (n // 3)}\n"
    for snapshot in snapshots:
        workspace.release(snapshot)


def test_the_quota_counts_what_every_snapshot_below_holds(executor: Executor) -> None:
    limits = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=128 << 20, processes=16, output_bytes=64 << 10,
                    file_size_bytes=8 << 20)  # fmt: skip
    with executor.open_workspace(LAYER, disk_bytes=4 << 20) as ws:
        out(ws, "head -c 3000000 /dev/zero > a", limits)
        ws.release(ws.snapshot())
        failed = sh(ws, "head -c 3000000 /dev/zero > b", limits)
        assert failed.steps[0].exit_code != 0 or ws.over_quota


def test_changes_carry_a_snapshot_to_another_workspace(executor: Executor, workspace: Workspace) -> None:
    out(workspace, "echo new > added && rm README.md && echo changed > src/app.py && chmod +x added")
    snapshot = workspace.snapshot()
    changes = workspace.changes(snapshot)
    workspace.release(snapshot)
    assert changes == Changes({"added": b"new\n", "README.md": None, "src/app.py": b"changed\n"}, ("added",))
    assert changes.bytes_written == 12
    moved = LAYER.with_changes(changes)
    assert moved == Layer({"added": b"new\n", "src/app.py": b"changed\n", "run_tests": LAYER.files["run_tests"]},
                          ("added", "run_tests"))  # fmt: skip
    with executor.open_workspace(moved) as elsewhere:
        assert tree(elsewhere) == tree(workspace)


def test_a_snapshot_of_another_worker_is_refused_with_what_to_do(fresh_pair: tuple[Workspace, Workspace]) -> None:
    one, other = fresh_pair
    snapshot = one.snapshot()
    with pytest.raises(ValueError, match="with_changes"):
        other.restore(snapshot)
    one.release(snapshot)


@pytest.fixture
def fresh_pair(executor: Executor) -> Iterator[tuple[Workspace, Workspace]]:
    """Two workspaces on different workers (executors with one worker each)."""
    with contextlib.ExitStack() as stack:
        one = stack.enter_context(executor.open_workspace(LAYER))
        others = [stack.enter_context(executor.open_workspace(LAYER)) for _ in range(4)]
        apart = [ws for ws in others if getattr(ws, "worker", None) is not getattr(one, "worker", object())]
        if not apart:
            pytest.skip("this executor placed every workspace on one worker")
        yield one, apart[0]


def test_limits_still_hold_in_a_fork(workspace: Workspace) -> None:
    with workspace.fork() as child:
        result = sh(child, "while :; do :; done", Limits(cpu_s=0.5, wall_s=2.0, processes=4,
                                                         memory_bytes=64 << 20))  # fmt: skip
        assert result.steps[0].limit is not None
        assert out(child, "cat README.md", FAST) == "the task\n"


def test_a_tree_of_1111_branches_is_isolated_and_leaves_nothing_behind(
    processes_left_by: Callable[[Executor], list[int]],
) -> None:
    """Branching 10, depth 3: each node appends its name to ``marks`` and checks that it sees
    exactly its ancestors' names (no sibling's, no later write of its parent's), forks its
    children, then writes once more. Afterwards the worker holds as many mounts as before, no
    process of the tree is left, and the memory the tree took grew with the bytes written,
    not with the number of branches times the tree's size."""
    from codegym.executor.local import LocalExecutor

    big = Layer({**LAYER.files, "data.bin": b"x" * (1 << 20)}, LAYER.executables)  # (1 MiB a copy would cost)
    with LocalExecutor(workers=1) as ex:
        with ex.open_workspace(big, disk_bytes=4 << 20) as warm:
            out(warm, "true")
        [worker] = ex.worker_pids()
        out_of(ex)
        time.sleep(0.5)
        mounts, shmem = _mounts(worker), _shmem()
        nodes = 0
        with ex.open_workspace(big, disk_bytes=4 << 20) as root:
            frontier = [(root, "r")]
            for _ in range(3):
                following = []
                for node, name in frontier:
                    snapshot = node.snapshot()
                    children = [(node.fork(snapshot), f"{name}.{i}") for i in range(10)]
                    node.release(snapshot)
                    out(node, "echo later >> marks")  # (the parent's write after the fork)
                    for child, child_name in children:
                        seen = out(child, f"echo {child_name} >> marks && cat marks")
                        parts = child_name.split(".")
                        assert seen.split() == [".".join(parts[:i]) for i in range(2, len(parts) + 1)], seen
                        following.append((child, child_name))
                    if node is not root:
                        node.close()
                    nodes += 1
                frontier = following
            grown = _shmem() - shmem
            for leaf, _ in frontier:
                leaf.close()
            nodes += len(frontier)
        assert nodes == 1111
        assert grown < 300 << 20, f"the tree took {grown >> 20} MiB: copies, not shared layers"
        deadline = time.monotonic() + 20
        while _mounts(worker) > mounts and time.monotonic() < deadline:
            out_of(ex)
            time.sleep(0.2)
        assert _mounts(worker) == mounts
        assert _shmem() - shmem < 32 << 20
        assert processes_left_by(ex) == []


def _mounts(pid: int) -> int:
    with open(f"/proc/{pid}/mountinfo") as mounts:
        return sum(1 for _ in mounts)


def _shmem() -> int:
    """Bytes in tmpfs and shared memory, machine-wide (/proc/meminfo's Shmem)."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no Shmem line in /proc/meminfo")


def out_of(ex: Executor) -> None:
    """Give the worker a job and then idle time (it unmounts what was retired while idle)."""
    ex.run(Job(steps=(Step(argv=("true",)),), limits=FAST))
