"""The workspace contract, for every backend and tier (see conftest.py): what one agent
episode's tree keeps, what it never sees, and what never outlives a command.

Every attack is bounded (small limits, a pid namespace, a cgroup) so the machine is never at
risk.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable

import pytest

from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.executor.workspace import Layer, Workspace, WorkspaceLost

FAST = Limits(cpu_s=2.0, wall_s=5.0, memory_bytes=128 << 20, processes=16, output_bytes=64 << 10,
              file_size_bytes=4 << 20, disk_bytes=8 << 20)  # fmt: skip
LAYER = Layer(
    {"README.md": b"the task\n", "src/app.py": b"print('app')\n", "run_tests": b"#!/bin/sh\necho ran\n"},
    executables=("run_tests",),
)
# What `find /` need not walk to look for another episode's files: the toolchain, /proc, and in
# the `container` tier (whose / is the host's) the host's big trees (walking them takes seconds
# when the page cache is cold).
PRUNED = " ".join(
    f"-path /{top} -prune -o"
    for top in (
        "usr",
        "proc",
        "sys",
        "lib",
        "lib64",
        "bin",
        "sbin",
        "etc",
        "root",
        "work",
        "var",
        "opt",
        "home",
        "boot",
    )
)
NET = (
    "import socket\n"
    "for family, address in ((socket.AF_INET, ('127.0.0.1', 9)), (socket.AF_INET, ('1.1.1.1', 53))):\n"
    "    try:\n"
    "        socket.socket(family, socket.SOCK_STREAM).connect(address)\n"
    "        print('connected', address)\n"
    "    except OSError as e:\n"
    "        print('refused', e.errno)\n"
)


def sh(workspace: Workspace, script: str, limits: Limits = FAST, collect: tuple[str, ...] = ()) -> RunResult:
    return workspace.run(Job(steps=(Step(argv=("sh", "-c", script)),), limits=limits, collect=collect))


def out(workspace: Workspace, script: str, limits: Limits = FAST) -> str:
    step = sh(workspace, script, limits).steps[0]
    assert step.exit_code == 0, step
    return step.stdout.decode()


@pytest.fixture
def workspace(executor: Executor) -> Workspace:
    with executor.open_workspace(LAYER, disk_bytes=4 << 20) as ws:
        yield ws  # type: ignore[misc]


def test_a_command_sees_the_layer_in_its_work_dir_as_its_own(workspace: Workspace) -> None:
    text = out(workspace, "cat README.md; ./run_tests; id -u; stat -c %u . src/app.py; touch src/new; pwd -P")
    lines = text.splitlines()
    assert lines[:2] == ["the task", "ran"]
    assert lines[2] == lines[3] == lines[4] != "0"  # the tree is the submission uid's, never root's
    assert lines[5] == workspace.workdir  # (where its commands find it, as its worker says)


def test_state_persists_within_an_episode_and_not_across_episodes(executor: Executor, workspace: Workspace) -> None:
    out(workspace, "echo edited >> README.md; mkdir -p build && echo 1 > build/out; rm src/app.py")
    assert out(workspace, "cat README.md build/out; ls src") == "the task\nedited\n1\n"
    assert workspace.used_bytes > 0
    with executor.open_workspace(LAYER) as other:  # another episode of the same task
        assert out(other, "cat README.md; ls src; ls build 2>&1 || true").splitlines()[:2] == ["the task", "app.py"]
    workspace.reset()
    assert out(workspace, "cat README.md; ls; ls src") == "the task\nREADME.md\nrun_tests\nsrc\napp.py\n"


def test_tmp_and_processes_do_not_persist_between_commands(workspace: Workspace) -> None:
    out(workspace, "echo x > /tmp/left; export LEFT=1")
    assert out(workspace, "ls /tmp; echo ${LEFT:-unset}") == "unset\n"


@pytest.mark.parametrize(
    "launch",
    [
        "sleep 987 &",
        "nohup sleep 987 >/dev/null 2>&1 &",
        "setsid sleep 987 &",
        "( ( sleep 987 & ) & )",
        "sleep 987 </dev/null >/dev/null 2>&1 & disown",
    ],
    ids=["background", "nohup", "setsid", "double-fork", "disown"],
)
def test_nothing_started_in_the_background_outlives_its_command(
    executor: Executor, workspace: Workspace, launch: str, processes_left_by: Callable[[Executor], list[int]]
) -> None:
    step = sh(workspace, f"{launch}\n(sleep 0.4; echo late > late.txt) &\necho started").steps[0]
    assert step.stdout == b"started\n" and step.wall_s < 3  # the command returns: nothing waited for
    time.sleep(0.8)
    assert out(workspace, "ls") == "README.md\nrun_tests\nsrc\n"  # the late writer died first
    deadline = time.monotonic() + 5
    while processes_left_by(executor) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_left_by(executor) == []


def test_concurrent_episodes_never_see_each_other(executor: Executor) -> None:
    spaces = [executor.open_workspace(LAYER) for _ in range(4)]
    try:
        for index, ws in enumerate(spaces):
            out(ws, f"echo secret > marker-{index}-{ws.id}")
        found: dict[str, str] = {}

        def look(ws: Workspace) -> None:
            found[ws.id] = out(ws, f"find / . {PRUNED} -name 'marker-*' -print 2>/dev/null; ls -a /.ws 2>&1 | head -3")

        threads = [threading.Thread(target=look, args=(ws,)) for ws in spaces]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for ws in spaces:  # its own (through "." at least), and no other's
            assert ws.id in found[ws.id]
            assert not [other.id for other in spaces if other is not ws and other.id in found[ws.id]], found[ws.id]
        for index, ws in enumerate(spaces):
            assert out(ws, "ls marker-*") == f"marker-{index}-{ws.id}\n"
    finally:
        for ws in spaces:
            ws.close()


def test_writing_outside_the_workspace_fails(workspace: Workspace) -> None:
    text = out(
        workspace,
        "for f in /etc/x /x /usr/x /bin/x /.ws/x /proc/x ../x /dev/x; do "
        "(echo x > $f) 2>/dev/null && echo wrote $f; done; echo end",
    )
    assert text == "end\n"


def test_network_is_unreachable(executor: Executor) -> None:
    with executor.open_workspace(Layer({"net.py": NET.encode()})) as ws:
        step = ws.run(Job(steps=(Step(argv=("python", "net.py"), sockets="errno"),), limits=FAST)).steps[0]
    assert b"connected" not in step.stdout and step.stdout.count(b"refused") == 2, step


def test_links_lead_nowhere_outside(workspace: Workspace) -> None:
    """Links to the host's files read the sandbox's view of them, and files a command links
    to anywhere never come back through ``collect``, nor through a linked folder."""
    result = sh(
        workspace,
        "ln -s /etc/passwd passwd; ln -s /etc etc; ln -s / root; ln -s ../../../../.. up; "
        "cat passwd; ls root/.ws up/.ws 2>&1 | grep -c . ; echo ok > real",
        collect=("passwd", "etc/hostname", "root/etc/passwd", "real"),
    )
    # The sandbox's own /etc/passwd, or none (the `container` tier's Landlock denies the host's).
    assert b"daemon:" not in result.steps[0].stdout and b"sandbox" not in result.steps[0].stderr
    assert result.files == {"real": b"ok\n"}


def test_the_quota_holds(workspace: Workspace) -> None:
    step = sh(workspace, "for f in a b c; do head -c 2000000 /dev/zero > $f || exit 1; done").steps[0]
    if workspace.over_quota:  # the `container` tier (no mounts) measures the tree after a command
        assert step.ok and workspace.used_bytes > workspace.disk_bytes
    else:  # elsewhere, a tmpfs of the quota refuses the writes
        assert step.exit_code != 0 and b"No space left" in step.stderr, step
        assert workspace.used_bytes <= workspace.disk_bytes
    workspace.reset()
    assert workspace.used_bytes == 0 and not workspace.over_quota
    assert out(workspace, "ls") == "README.md\nrun_tests\nsrc\n"


def test_command_limits_hold_and_the_episode_goes_on(workspace: Workspace) -> None:
    tight = Limits(cpu_s=1, wall_s=1, memory_bytes=64 << 20, processes=8, output_bytes=4096, disk_bytes=1 << 20)
    assert sh(workspace, "echo kept > kept; sleep 5", tight).steps[0].limit == "wall"
    assert sh(workspace, "while :; do :; done", tight).steps[0].limit in ("cpu", "wall")
    assert sh(workspace, "yes", tight).steps[0].limit == "output"
    assert out(workspace, "cat kept") == "kept\n"


def test_a_killed_worker_mid_command_raises_workspace_lost(
    fresh: Callable[..., Executor], processes_left_by: Callable[[Executor], list[int]]
) -> None:
    with fresh() as ex:
        ws = ex.open_workspace(LAYER)
        out(ws, "echo 1 > state")
        victim = _victims(ex)[0]
        threading.Timer(0.5, os.kill, (victim, signal.SIGKILL)).start()
        with pytest.raises(WorkspaceLost, match="lost"):
            sh(ws, "sleep 987 & sleep 3")  # never retried: the tree is gone with its worker
        with pytest.raises(WorkspaceLost):
            sh(ws, "true")
        ws.close()  # (quietly)
        with ex.open_workspace(LAYER) as again:  # the executor itself carries on
            assert out(again, "ls state 2>/dev/null || echo fresh") == "fresh\n"
        deadline = time.monotonic() + 10
        while processes_left_by(ex) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_left_by(ex) == []


def test_a_workspace_opened_while_its_actor_restarts_waits_for_it(request: pytest.FixtureRequest) -> None:
    """Ray restarts a lost actor; a workspace opened meanwhile waits for it rather than
    failing (an infrastructure fault the executor can ride out)."""
    from codegym.executor.ray import RayExecutor

    request.getfixturevalue("ray_executor")  # the session's cluster; this one joins it
    with RayExecutor(nodes=1, cpus_per_node=0) as ex:
        [victim] = ex.actor_pids()
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(victim) and time.monotonic() < deadline:
            time.sleep(0.05)
        with ex.open_workspace(LAYER) as ws:  # (at once: the actor is still coming back)
            assert out(ws, "cat README.md") == "the task\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_workspace_opened_from_a_thread_that_ends_lives_on(fresh: Callable[..., Executor]) -> None:
    """Workers ask to die with their parent, which to the kernel is the thread that started
    them: one started for a short-lived thread (``asyncio.to_thread``) must outlive it."""
    with fresh() as ex:
        opened: list[Workspace] = []
        thread = threading.Thread(target=lambda: opened.append(ex.open_workspace(LAYER)))
        thread.start()
        thread.join()
        time.sleep(0.5)
        assert out(opened[0], "cat README.md") == "the task\n"


def test_idle_workspaces_expire(executor: Executor) -> None:
    ws = executor.open_workspace(LAYER, idle_timeout_s=0.3)
    out(ws, "true")
    time.sleep(1.5)
    executor.run(Job(steps=(Step(argv=("true",)),)))  # (the worker was idle meanwhile)
    with pytest.raises(WorkspaceLost, match=r"expired|restarted|no open workspace"):
        out(ws, "true")
    ws.close()


def test_commands_are_checked(workspace: Workspace) -> None:
    with pytest.raises(ValueError, match=r"cannot carry Job\.files"):
        workspace.run(Job(steps=(Step(argv=("true",)),), files={"x": b""}))
    with pytest.raises(ValueError, match="open_workspace"):
        workspace.run(Job(steps=(Step(argv=("true",)),), preload=("codegym.not_loaded",)))


def _victims(executor: Executor) -> list[int]:
    if executor.name == "ray":
        return executor.actor_pids(timeout_s=1.0)  # type: ignore[attr-defined]
    return executor.worker_pids()  # type: ignore[attr-defined]


def test_layers_are_checked_and_keyed_by_content() -> None:
    assert Layer({"a": b"1"}).key == Layer({"a": b"1"}).key != Layer({"a": b"2"}).key
    assert Layer({"a": b"1"}).key != Layer({"a": b"1"}, executables=("a",)).key
    for bad in ("/abs", "../up", "a/../b", "a//b", "./a"):
        with pytest.raises(ValueError, match="relative, normalised"):
            Layer({bad: b""})
    with pytest.raises(ValueError, match="not among its files"):
        Layer({"a": b""}, executables=("b",))


OWNER = textwrap.dedent(
    """
    import os, sys
    from codegym.executor.local import LocalExecutor
    from codegym.executor.workspace import Layer
    from codegym.executor import Job, Step
    ex = LocalExecutor(workers=1, isolation="full")
    ws = ex.open_workspace(Layer({"a": b"1"}))
    ws.run(Job(steps=(Step(argv=("sh", "-c", "echo x > b")),)))
    print(" ".join(map(str, ex.worker_pids())), flush=True)
    os.kill(os.getpid(), 9)
    """
)


def test_an_owner_that_crashes_leaves_no_worker_behind() -> None:
    if os.geteuid() != 0:
        pytest.skip("the owner makes a full-tier executor")
    done = subprocess.run([sys.executable, "-c", OWNER], capture_output=True, timeout=120, check=False)
    pids = [int(pid) for pid in done.stdout.split()]
    assert done.returncode == -signal.SIGKILL and pids, done.stderr
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)


def test_closed_executors_lose_their_workspaces(fresh: Callable[..., Executor]) -> None:
    ex = fresh()
    ws = ex.open_workspace(LAYER)
    ex.close()
    with pytest.raises(SandboxError):
        out(ws, "true")
