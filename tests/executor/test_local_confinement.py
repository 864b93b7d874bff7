"""A step the local backend cannot confine is an infrastructure failure, never a verdict."""

from __future__ import annotations

import pytest

from codegym.error import SandboxError
from codegym.executor import Job, Step
from codegym.executor.local import LocalExecutor

UNUSABLE_UID = (1 << 32) - 1  # (uid_t) -1: setuid and setgid refuse it


@pytest.mark.parametrize("native", [True, False], ids=["c", "python"])
@pytest.mark.parametrize("argv", [("python", "main.py"), ("true",)], ids=["in-process", "exec"])
def test_a_step_that_cannot_be_confined_raises(argv: tuple[str, ...], native: bool) -> None:
    with (
        LocalExecutor(workers=1, retries=0, uid_base=UNUSABLE_UID, native_fork_server=native) as executor,
        pytest.raises(SandboxError, match=r"could not be confined|Invalid argument"),
    ):
        executor.run(Job(steps=(Step(argv=argv),), files={"main.py": b"print('never')\n"}))


def test_workers_run_the_fork_server_loop_asked_for(local_executor, local_python_executor) -> None:
    """The install builds the C loop (`_forkcore.c`): without it, workers would quietly run
    the Python fallback, and the suite would test only that."""
    job = Job(steps=(Step(argv=("true",)),))
    for executor, loop in ((local_executor, "native"), (local_python_executor, "python")):
        assert executor.run(job).ok
        assert {worker.fork_server for worker in executor._pool if worker.process} == {loop}


def _read(executor: LocalExecutor, path: str) -> str:
    source = f"try:\n    print(open({path!r}).read())\nexcept OSError as e:\n    print(type(e).__name__)\n"
    step = executor.run(Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()})).steps[0]
    assert step.exit_code == 0, step
    return step.stdout.decode().strip()


def test_a_toolchain_under_tmp_stays_visible_to_every_job(tmp_path) -> None:
    """Each job gets a fresh /tmp; what the view binds below /tmp (an install in a /tmp
    checkout) must show through it, what it hides must stay hidden, and the second binds
    that make this possible are out of the submission's reach."""
    toolchain, hidden = tmp_path / "toolchain", tmp_path / "hidden"
    for folder, text in ((toolchain, "visible"), (hidden, "secret")):
        folder.mkdir()
        (folder / "data.txt").write_text(text)
        folder.chmod(0o755)
    for parent in tmp_path.parents:
        if str(parent).startswith("/tmp/"):
            parent.chmod(parent.stat().st_mode | 0o005)  # traversable by the submission's uid
    with LocalExecutor(workers=1) as executor:
        executor.view = {
            **executor.view,
            "binds": [*executor.view["binds"], (str(toolchain), str(toolchain)), (str(hidden), str(hidden))],
            "hide": [*executor.view["hide"], str(hidden)],
        }
        for _ in range(2):  # a second job gets the view back on its own fresh /tmp
            assert _read(executor, str(toolchain / "data.txt")) == "visible"
            assert _read(executor, str(hidden / "data.txt")) == "FileNotFoundError"
            assert _read(executor, "/.tmp-view/1/data.txt") == "PermissionError"


def test_pools_of_one_process_get_disjoint_uids() -> None:
    """A uid shared by two workers would share their RLIMIT_NPROC budget."""
    pools = [LocalExecutor(workers=4) for _ in range(8)]
    try:
        uids = [pool.submission_uids() for pool in pools]
        assert len(set().union(*uids)) == sum(len(u) for u in uids) == 32
    finally:
        for pool in pools:
            pool.close()


PROBE = """
import os

warmed = []


def warm_up():
    warmed.append((os.getpid(), os.getuid()))


def main():
    print(warmed, (os.getpid(), os.getuid()))
"""
FAILING = """
def warm_up():
    raise RuntimeError("warm-up failed")


def main():
    print("never")
"""


@pytest.fixture
def probe_package(tmp_path, monkeypatch) -> str:
    """A preloadable module with a ``warm_up()`` that notes where it ran."""
    package = tmp_path / "warm_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "probe.py").write_text(PROBE)
    (package / "failing.py").write_text(FAILING)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "warm_probe"


def test_a_preloaded_warm_up_runs_confined_in_each_steps_own_process(probe_package: str) -> None:
    """Every step's process has run the warm-up once, itself, as the submission's uid."""
    module = f"{probe_package}.probe"
    with LocalExecutor(workers=1, preload=(module,)) as executor:
        for _ in range(2):
            step = executor.run(Job(steps=(Step(argv=("python", "-m", module)),))).steps[0]
            assert step.exit_code == 0, step
            warmed, own = step.stdout.decode().strip().split("] ")
            assert warmed == f"[{own}"
            assert int(own.strip("()").split(", ")[1]) in executor.submission_uids()


def test_a_failing_warm_up_is_an_infrastructure_failure(probe_package: str) -> None:
    module = f"{probe_package}.failing"
    with (
        LocalExecutor(workers=1, retries=0, preload=(module,)) as executor,
        pytest.raises(SandboxError, match="warm-up failed"),
    ):
        executor.run(Job(steps=(Step(argv=("python", "-m", module)),)))


def test_steps_run_in_the_workers_memory_and_pids_cgroups(local_executor) -> None:
    """Cgroup v1 keeps memory and pids in two hierarchies: the worker's fork server, and so
    every step, joins its cgroup in both (else the pids limit holds nothing)."""
    if local_executor.cgroup == "none":
        pytest.skip("no cgroup on this host")
    step = local_executor.run(Job(steps=(Step(argv=("cat", "/proc/self/cgroup")),))).steps[0]
    paths = {
        controllers: path for _, controllers, path in (line.split(":", 2) for line in step.stdout.decode().split())
    }
    if local_executor.cgroup == "v1":
        assert paths["pids"] == paths["memory"] != "/", paths
    else:
        assert paths[""] != "/", paths
