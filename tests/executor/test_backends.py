"""What is particular to the docker and ray backends, and choosing a backend.

The shared contract (limits, attacks, cleanup, fault retry) is in test_contract.py. Here:
both task families graded through docker and ray exactly as through local, selection by
name / ``codegym.configure`` / ``$CODEGYM_EXECUTOR``, the container's own confinement, image
reuse, the reaper, a dead daemon, Ray's back-pressure and deadlines.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.python_function.tasks import load_humaneval
from codegym.envs.stdio_program.tasks import load_tasks as load_stdio_tasks

import codegym
from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, Step, registry
from codegym.grade import Status

PY_ENV = "codegym/PythonFunction-v0"
STDIO_ENV = "codegym/StdioProgram-v0"
SLEEP = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": b"import time\ntime.sleep(1)\nprint('ok')"})


def humaneval_submissions() -> list[tuple[str, str]]:
    """Six HumanEval tasks: the canonical solution (OK), a wrong one (WA), and a crash."""
    tasks = list(load_humaneval())[:6]
    wrong = [(t.id, f"def {t.metadata['entry_point']}(*args, **kwargs):\n    return None\n") for t in tasks]
    crash = [(t.id, f"def {t.metadata['entry_point']}(*args):\n    raise ValueError('no')\n") for t in tasks[:2]]
    return [(t.id, t.metadata["completion"]) for t in tasks] + wrong + crash


def verdicts(grades: list[codegym.Grade]) -> list[tuple[str, float, int]]:
    return [(g.status.value, g.pass_rate, len(g.tests)) for g in grades]


@pytest.mark.parametrize("remote", [pytest.param("docker_executor", marks=pytest.mark.docker), "ray_executor"])
def test_python_function_family_grades_as_on_local(remote: str, request: pytest.FixtureRequest, local_executor) -> None:
    submissions = humaneval_submissions()
    other: Executor = request.getfixturevalue(remote)
    here = codegym.score(PY_ENV, submissions, tasks="humaneval", executor=local_executor)
    there = codegym.score(PY_ENV, submissions, tasks="humaneval", executor=other)
    assert [g.status for g in there[:6]] == [Status.OK] * 6
    assert {g.status for g in there[6:12]} <= {Status.WA, Status.RE} and not any(g.passed for g in there[6:])
    assert verdicts(there) == verdicts(here)


@pytest.mark.parametrize("remote", [pytest.param("docker_executor", marks=pytest.mark.docker), "ray_executor"])
def test_stdio_program_family_grades_as_on_local(remote: str, request: pytest.FixtureRequest, local_executor) -> None:
    tasks = list(load_stdio_tasks("codegym-stdio"))[:5]
    submissions = [(t.id, t.reference or "") for t in tasks] + [(t.id, "print(42)") for t in tasks]
    submissions.append((tasks[0].id, "def broken(:\n"))
    other: Executor = request.getfixturevalue(remote)
    here = codegym.score(STDIO_ENV, submissions, language="python", executor=local_executor)
    there = codegym.score(STDIO_ENV, submissions, language="python", executor=other)
    assert [g.status for g in there[:5]] == [Status.OK] * 5
    assert not any(g.passed for g in there[5:10]) and there[10].status == Status.CE
    assert verdicts(there) == verdicts(here)


@pytest.mark.docker
def test_gym_make_by_name_and_by_default(docker_daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        env = gym.make(PY_ENV, executor="docker")
        env.reset(seed=0)
        _, reward, _, _, info = env.step(env.unwrapped.task.reference)
        assert info["grade"].status == Status.OK and reward > 0
        assert env.unwrapped.executor is registry.get_executor("docker")
        assert env.unwrapped.executor.name == "docker"
        env.close()

        monkeypatch.setenv("CODEGYM_EXECUTOR", "docker")
        assert registry.default_backend() == "docker"
        env = gym.make(STDIO_ENV, language="python")
        env.reset(seed=0)
        assert env.unwrapped.executor.name == "docker"
        env.close()
        codegym.configure(executor="local")  # the explicit default wins over the variable
        assert registry.get_executor().name == "local"
    finally:
        codegym.configure(None)
        registry.close_shared("docker")
    assert registry.default_backend() == "docker"  # the variable, once configure is reset


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown executor 'dokcer'; choose one of local, docker, ray"):
        registry.get_executor("dokcer")
    with pytest.raises(ValueError, match="CODEGYM_EXECUTOR"):
        codegym.configure(executor="kubernetes")


def test_importing_codegym_imports_neither_docker_nor_ray() -> None:
    code = "import sys, codegym; print(sorted(m for m in ('docker', 'ray') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- docker --------------------------------------------------------------------------


@pytest.mark.docker
def test_containers_are_confined(docker_executor) -> None:
    for future in [docker_executor.submit(SLEEP) for _ in range(docker_executor.workers)]:
        future.result()  # one at a time per worker, so every worker (and its container) is up
    containers = docker_executor.containers()
    assert len(containers) == docker_executor.workers
    for container in containers:
        host = container.attrs["HostConfig"]
        assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
        assert host["CapDrop"] == ["ALL"]
        assert {c.removeprefix("CAP_") for c in host["CapAdd"]} == {
            "SYS_ADMIN", "SETUID", "SETGID", "CHOWN", "KILL", "DAC_OVERRIDE", "FOWNER"
        }  # fmt: skip
        assert "no-new-privileges" in host["SecurityOpt"]
        assert host["PidsLimit"] == docker_executor.processes
        assert host["Memory"] == host["MemorySwap"] > 0  # no swap
        assert host["CgroupnsMode"] == "private"
        assert container.labels["codegym.owner"] == docker_executor.owner


@pytest.mark.docker
def test_workspaces_need_dac_override(docker_daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace's overlay copies the submission's files up with the worker's credentials:
    without DAC_OVERRIDE it cannot write into their folders. With it, a command edits a file
    of the layer (see test_workspace.py)."""
    from codegym.executor import docker as backend
    from codegym.executor.workspace import Layer

    monkeypatch.setattr(backend, "CAPABILITIES", tuple(c for c in backend.CAPABILITIES if c != "DAC_OVERRIDE"))
    edit = Job(steps=(Step(argv=("sh", "-c", "echo more >> sub/f && cat sub/f")),))
    with backend.DockerExecutor(workers=1, retries=0) as ex:
        try:
            with ex.open_workspace(Layer({"sub/f": b"one\n"})) as ws:
                step = ws.run(edit).steps[0]
        except SandboxError:
            return
        assert not (step.ok and step.stdout == b"one\nmore\n"), step


@pytest.mark.docker
def test_workspaces_need_fowner(docker_daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chmod of a file in a workspace, the submission's own, reaches the overlay's upper
    layer with the worker's credentials, and the worker owns none of those files: without
    FOWNER it fails (an editor's atomic write sets its new file's mode). With it, it works
    (see test_workspace.py)."""
    from codegym.executor import docker as backend
    from codegym.executor.workspace import Layer

    chmod = Job(steps=(Step(argv=("sh", "-c", "echo new > g && chmod 600 g && chmod 600 sub/f && echo ok")),))
    with backend.DockerExecutor(workers=1, retries=0) as ex, ex.open_workspace(Layer({"sub/f": b"one\n"})) as ws:
        assert ws.run(chmod).steps[0].stdout == b"ok\n"
    monkeypatch.setattr(backend, "CAPABILITIES", tuple(c for c in backend.CAPABILITIES if c != "FOWNER"))
    with backend.DockerExecutor(workers=1, retries=0) as ex, ex.open_workspace(Layer({"sub/f": b"one\n"})) as ws:
        assert ws.run(chmod).steps[0].stdout != b"ok\n"


@pytest.mark.docker
@pytest.mark.parametrize("capability", ["SYS_ADMIN", "SETUID", "SETGID", "CHOWN", "KILL"])
def test_each_added_capability_is_needed(docker_daemon, monkeypatch: pytest.MonkeyPatch, capability: str) -> None:
    """Without any one of the five, the per-job sandbox cannot be built or cleaned: no
    namespaces (SYS_ADMIN: at best the weaker `container` tier), no drop to the job's uid (SETUID, SETGID), no handing it its
    files (CHOWN), no killing what it leaves behind (KILL: the worker then waits for it
    before its next job, and misses that job's deadline). Every other capability stays
    dropped."""
    from codegym.executor import docker as backend

    monkeypatch.setattr(backend, "CAPABILITIES", tuple(c for c in backend.CAPABILITIES if c != capability))
    daemon = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\nprint('parent done')"
    job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": daemon.encode()}, limits=Limits(wall_s=1))
    with backend.DockerExecutor(workers=1, retries=0) as ex:
        try:
            results = [ex.run(job) for _ in range(2)]
        except SandboxError:
            return
        steps = [result.steps[0] for result in results]
        full = all(result.isolation == "full" for result in results)
        assert not (full and all(step.ok and step.stdout == b"parent done\n" for step in steps)), steps


@pytest.mark.docker
def test_image_is_reused_and_tagged_by_its_recipe(docker_daemon) -> None:
    from codegym.executor import images

    spec = images.recipe("python")
    before = docker_daemon.images.get(spec.tag).id
    assert images.ensure(docker_daemon, spec, build=False) == spec.tag
    assert docker_daemon.images.get(spec.tag).id == before
    changed = images.Recipe("python", ("python3", "gcc"))
    assert changed.tag != spec.tag and changed.tag.startswith("codegym/python:")
    with pytest.raises(SandboxError, match=r"build_images\.sh"):
        images.ensure(docker_daemon, changed, build=False)


@pytest.mark.docker
def test_close_removes_containers_and_the_reaper_removes_orphans(docker_daemon) -> None:
    from codegym.executor.docker import OWNER_LABEL, DockerExecutor, codegym_containers

    ex = DockerExecutor(workers=1)
    assert ex.run(SLEEP).steps[0].stdout == b"ok\n"
    assert len(ex.containers()) == 1
    ex.close()
    assert ex.containers() == []
    # An orphan: a container whose owner process is dead (a crash, kill -9 of the trainer).
    dead = subprocess.Popen(["true"])
    dead.wait()
    label = f"{os.uname().nodename}/{dead.pid}/1"
    orphan = docker_daemon.containers.create(ex.image, ["true"], labels={OWNER_LABEL: label}, network_mode="none")
    with DockerExecutor(workers=1) as second:  # every new executor reaps first
        assert orphan.id not in {c.id for c in codegym_containers(docker_daemon)}
        assert second.run(SLEEP).steps[0].ok


@pytest.mark.docker
def test_interpreter_exit_removes_containers(docker_daemon) -> None:
    from codegym.executor.docker import OWNER_LABEL, codegym_containers

    script = (
        "from codegym.executor.docker import DockerExecutor\nfrom codegym.executor import Job, Step\n"
        "ex = DockerExecutor(workers=1)\nex.run(Job(steps=(Step(argv=('true',)),)))\n"
        "print(ex.owner, len(ex.containers()), flush=True)\n"  # and exit without close()
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    owner, running = done.stdout.split()
    assert running == "1"
    assert [c for c in codegym_containers(docker_daemon) if c.labels[OWNER_LABEL] == owner] == []


@pytest.mark.docker
def test_a_crashed_owner_leaves_no_container(docker_daemon) -> None:
    from codegym.executor.docker import OWNER_LABEL, DockerExecutor, codegym_containers

    script = (
        "import os, sys\nfrom codegym.executor.docker import DockerExecutor\nfrom codegym.executor import Job, Step\n"
        "ex = DockerExecutor(workers=1)\nex.run(Job(steps=(Step(argv=('true',)),)))\n"
        "print(ex.owner, flush=True)\nos.kill(os.getpid(), 9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr
    owner = done.stdout.strip()
    assert owner
    # Its worker saw the socket close and exited; the reaper of the next executor removes it.
    with DockerExecutor(workers=1, build=False):
        assert [c for c in codegym_containers(docker_daemon) if c.labels[OWNER_LABEL] == owner] == []


@pytest.mark.docker
def test_a_dead_daemon_is_a_sandbox_error() -> None:
    from codegym.executor.docker import DockerExecutor

    with pytest.raises(SandboxError, match="cannot reach the Docker daemon"):
        DockerExecutor(workers=1, base_url="unix:///nonexistent/docker.sock")


def test_pid_files_of_a_killed_daemon_whose_pids_were_reused_are_removed(tmp_path) -> None:
    """A SIGKILLed dockerd leaves its pid files; once another program holds the pid, dockerd
    would wait for a containerd that is not one and give up ("timeout waiting for containerd
    to start"). Those files go, as do garbled ones; one naming the program it should (dockerd
    adopts a containerd that outlived it) stays."""
    from codegym.executor.docker import clear_stale_pid_files

    sleeper = subprocess.Popen(["sleep", "30"])
    comm = Path(f"/proc/{sleeper.pid}/comm")
    for _ in range(500):  # (until it has exec'd: before, it is a copy of this interpreter)
        if comm.read_text().strip() == "sleep":
            break
        time.sleep(0.01)
    try:
        files = {name: tmp_path / f"{name}.pid" for name in ("reused", "gone", "garbled", "adopted")}
        files["reused"].write_text(str(sleeper.pid))
        files["gone"].write_text("2147483646")
        files["garbled"].write_text("not a pid")
        files["adopted"].write_text(str(sleeper.pid))
        expected = {str(files[name]): "containerd" for name in ("reused", "gone", "garbled")}
        removed = clear_stale_pid_files({**expected, str(files["adopted"]): "sleep"})
    finally:
        sleeper.kill()
        sleeper.wait()
    assert sorted(removed) == sorted(expected)
    assert [path.name for path in tmp_path.iterdir()] == ["adopted.pid"]


@pytest.mark.docker
def test_start_daemon_uses_the_daemon_that_answers(docker_daemon, tmp_path) -> None:
    """``start_daemon=True`` (and the CLI's ``--executor docker``) start dockerd only when none
    answers: here one does, so none is started and the jobs run on it."""
    from codegym.cli import main
    from codegym.executor.docker import DockerExecutor

    with DockerExecutor(workers=1, start_daemon=True) as ex:
        assert ex.daemon is None
        result = ex.run(Job(steps=(Step(argv=("python", "-c", "print(6 * 7)")),)))
        assert result.steps[0].stdout == b"42\n" and result.backend == "docker"
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}) + "\n")
    try:
        assert main(["score", str(samples), "--executor", "docker", "-k", "1"]) == 0
    finally:
        registry.close_shared("docker")
    assert json.loads((tmp_path / "samples_results.jsonl").read_text())["status"] == "OK"


@pytest.mark.docker
def test_a_daemon_lost_mid_session_is_a_sandbox_error(docker_daemon) -> None:
    """The daemon goes away under a running executor and takes its containers along (what
    stopping dockerd does): the job is retried on fresh containers, none can be started, and
    the env raises SandboxError instead of scoring the submission."""
    import docker

    from codegym.executor.docker import DockerExecutor

    with DockerExecutor(workers=1, retries=1, preload=("codegym.envs.python_function.harness",)) as ex:
        env = gym.make(PY_ENV, executor=ex)
        env.reset(seed=0)
        _, _, _, _, info = env.step(env.unwrapped.task.reference)
        assert info["grade"].status == Status.OK
        ex.client = docker.DockerClient(base_url="unix:///nonexistent/docker.sock", version="1.41")  # gone
        for container in docker_daemon.containers.list(filters={"label": f"codegym.owner={ex.owner}"}):
            container.kill()
        env.reset(seed=0)
        with pytest.raises(SandboxError, match="attempts"):
            env.step(env.unwrapped.task.reference)
        ex.client = docker_daemon  # so that close can remove what is left


# --- ray -----------------------------------------------------------------------------


def test_ray_bounds_jobs_in_flight(ray_executor) -> None:
    from codegym.executor.ray import RayExecutor

    with RayExecutor(nodes=1, cpus_per_node=0, max_in_flight=2) as ex:
        first = [ex.submit(SLEEP), ex.submit(SLEEP)]
        submitted = threading.Event()
        seen: list[bool] = []

        def third() -> None:
            future = ex.submit(SLEEP)  # waits while two jobs are in flight
            seen.append(any(f.done() for f in first))
            submitted.set()
            future.result()

        thread = threading.Thread(target=third)
        thread.start()
        assert not submitted.wait(0.5)  # each job sleeps a second: the first two are running
        assert [f.result().steps[0].stdout for f in first] == [b"ok\n", b"ok\n"]
        thread.join(30)
        assert submitted.is_set() and seen == [True]


def test_ray_job_past_its_deadline_is_retried_on_a_restarted_actor(ray_executor) -> None:
    from codegym.executor.ray import RayExecutor

    with RayExecutor(nodes=1, cpus_per_node=0, deadline_margin_s=3.0) as ex:
        assert ex.run(SLEEP).steps[0].ok
        (actor,) = ex.actor_pids()
        threading.Timer(0.3, os.kill, (actor, signal.SIGSTOP)).start()  # a hung node
        result = ex.run(Job(steps=(Step(argv=("python", "main.py"), limits=Limits(wall_s=2)),), files=SLEEP.files))
        assert result.steps[0].stdout == b"ok\n" and result.attempts == 2
        assert ex.actor_pids() != [actor] and ex.stats["retries"] == 1


NODE_LOSS = """
import sys, threading
import ray
from ray.cluster_utils import Cluster
from codegym.executor import Job, Limits, Step
from codegym.executor.ray import RayExecutor

small = {"object_store_memory": 80 << 20}
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False, "temp_dir": sys.argv[1], **small})
doomed = cluster.add_node(num_cpus=1, **small)
cluster.wait_for_nodes()
ray.init(address=cluster.address, log_to_driver=False)
executor = RayExecutor(nodes=2)
print("RESULT", len({facts["node"] for facts in executor.describe()}), flush=True)
job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": b"import time\\ntime.sleep(2)\\nprint('done')"},
          limits=Limits(wall_s=10))
threading.Timer(0.8, cluster.remove_node, (doomed, False)).start()  # mid-job
futures = [executor.submit(job), executor.submit(job)]
print("RESULT", sorted((f.result().steps[0].stdout.decode().strip(), f.result().attempts) for f in futures), flush=True)
print("RESULT", len(executor.describe()), executor.stats["retries"], flush=True)
executor.close()
ray.shutdown()
cluster.shutdown()
"""


def test_ray_node_lost_mid_job_means_a_retry(ray_leftovers) -> None:
    """A two-node cluster on this machine (Ray's own Cluster utility: a second raylet),
    one actor per node, one job on each; the second node goes away mid-job. Its job is
    retried on a live actor and both come back right; its actor restarts on the head node."""
    temp = tempfile.mkdtemp(prefix="cgn")  # short: Ray's socket paths live under it
    os.makedirs(os.path.join(temp, "ray"))  # Ray's Cluster notes its address in $RAY_TMPDIR/ray
    done = subprocess.run(
        [sys.executable, "-c", NODE_LOSS, temp],
        env={**os.environ, "RAY_TMPDIR": temp},
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.removeprefix("RESULT ") for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    spread, results, after = lines
    assert spread == "2"  # the actors were on different nodes
    assert results == "[('done', 1), ('done', 2)]"
    assert after == "2 1"
    assert ray_leftovers(temp) == []
    shutil.rmtree(temp, ignore_errors=True)


def test_ray_results_match_local(ray_executor, local_executor) -> None:
    jobs = [
        Job(steps=(Step(argv=("python", "main.py"), stdin=b"3\n"),), files={"main.py": b"print(int(input()) * 2)"}),
        Job(steps=(Step(argv=("sh", "-c", "echo out; echo err >&2; exit 4")),)),
        Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": b"while True: pass"}, limits=Limits(cpu_s=1)),
    ]
    for job in jobs:
        here, there = local_executor.run(job).steps[0], ray_executor.run(job).steps[0]
        assert (there.stdout, there.stderr, there.exit_code, there.signal, there.limit) == (
            here.stdout, here.stderr, here.exit_code, here.signal, here.limit,
        )  # fmt: skip


def test_ray_describes_its_nodes(ray_executor) -> None:
    facts = ray_executor.describe()
    assert len(facts) == ray_executor.nodes and all(f["cgroup"] == ray_executor.cgroup for f in facts)
    assert json.loads(json.dumps(facts)) == facts
