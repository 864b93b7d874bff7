"""The local backend's `container` tier where researchers meet it: inside a default ``docker
run`` as root (Docker's seccomp profile and capabilities, a 64 MiB noexec /dev/shm, the
trainer as the container's PID 1, which reaps nothing). The image is imported from a tar of
a few folders (no registry, nothing downloaded); this machine's /usr (every toolchain), /etc,
Python and checkout are bound into it read-only. One container runs every scenario once
(every StdioProgram language, every family's first bundled reference in the tier "auto"
picks there, a container service's unix sockets, disk quotas, killed workers); the tests
below check what each found."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.stdio_program.languages import languages

import codegym  # noqa: F401  (registers the envs)

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

# Every family but those that cannot run here: RepoRepair builds its environments from PyPI
# (the container has no network), TritonKernel needs a GPU.
# (Terminal-v0's machines need user namespaces or CAP_SYS_ADMIN, which a default container refuses)
AWAY = ("codegym/RepoRepair-v1", "codegym/TritonKernel-v0", "codegym/Terminal-v0")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _programs() -> dict[str, dict[str, str]]:
    """The stdio family's test programs, every language's (``tests/envs/stdio_program``)."""
    path = os.path.join(REPO, "tests", "envs", "stdio_program", "programs.py")
    spec = importlib.util.spec_from_file_location("stdio_programs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PROGRAMS


SCRIPT = r"""
import json, os, signal, sys, time, traceback
sys.path.insert(0, '/scenario')
import gymnasium as gym
import codegym
from codegym.executor import Job, Limits, Step
from codegym.executor.local import LocalExecutor
from codegym.task import TaskSet
from container_tier import A_PLUS_B, ADD, Service, c_reaching, python_reaching

PRELOAD = ('codegym.envs.python_function.candidate', 'codegym.envs.python_function.harness')
LIMITS = Limits(disk_bytes=16 << 20, file_size_bytes=4 << 20, wall_s=20, cpu_s=10)
found = {}


def job(source):
    return Job(steps=(Step(argv=('python', 'main.py')),), files={'main.py': source.encode()}, limits=LIMITS)


def languages(ex):
    found['languages'] = {}
    for language, source in json.load(open('/scenario/programs.json')).items():
        env = gym.make('codegym/StdioProgram-v0', tasks=TaskSet([A_PLUS_B]), language=language, executor=ex)
        env.reset(seed=0)
        try:
            _, reward, _, _, info = env.step(source)
        except Exception as e:
            found['languages'][language] = ['raised', 0.0, repr(e)[-300:]]
            continue
        found['languages'][language] = [info['status'], reward, info['grade'].message[:300]]


def sockets(ex):
    os.makedirs('/tmp/service', mode=0o755)
    service = Service('/tmp/service')
    try:
        python = gym.make('codegym/PythonFunction-v0', tasks=TaskSet([ADD]), executor=ex)
        python.reset(seed=0)
        c = gym.make('codegym/StdioProgram-v0', tasks=TaskSet([A_PLUS_B]), language='c', executor=ex)
        c.reset(seed=0)
        found['sockets'] = [python.step(python_reaching(service))[4]['status'],
                            c.step(c_reaching(service))[4]['status']]
    finally:
        service.close()
    found['service_reached'] = service.reached


FILL = ("import os\nfor folder in ('.', os.environ['TMPDIR']):\n    for i in range(30):\n"
        "        with open(os.path.join(folder, f'fill{i}'), 'wb') as f:\n            f.write(b'x' * (4 << 20))\n")
HONEST = ("import os, time\nblock = b'y' * (2 << 20)\nfor n in range(20):\n"
          "    for folder in ('.', os.environ['TMPDIR']):\n"
          "        with open(os.path.join(folder, f'h{n % 3}'), 'wb') as f:\n            f.write(block)\n"
          "    time.sleep(0.05)\nprint('ok')\n")


def quota(ex):
    for attempt in range(2):  # (a hog, then an honest job, each on a worker of its own, at once)
        hog, fair = ex.submit(job(FILL)), ex.submit(job(HONEST))
        try:
            hog = hog.result().steps[0].limit
        except Exception as e:
            hog = repr(e)[-300:]
        fair = fair.result().steps[0]
        found.setdefault('quota', []).append([hog, fair.exit_code, fair.stdout.decode(),
                                              f'{fair.limit} {fair.stderr.decode()[-300:]}'])
    later = ex.run(job("print('after')")).steps[0]
    found['after_quota'] = [later.exit_code, later.stdout.decode()]


DAEMON = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n"
          "    os._exit(0)\nprint('left')\n")


def families(ex):
    from codegym.executor.isolation import probe
    found['auto_tier'] = probe().best
    found['families'] = {}
    for env_id in json.load(open('/scenario/families.json')):
        env = gym.make(env_id)  # (its family's own executor, in the tier "auto" picks)
        task = next(task for task in env.unwrapped.tasks if task.reference)
        env.reset(seed=0, options={'task_id': task.id})
        _, reward, _, _, info = env.step(task.reference)
        found['families'][env_id] = [info['status'], reward, info['grade'].message[:300]]
        env.close()


def zombies():
    seen = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                stat = open(f'/proc/{name}/stat').read()
            except OSError:
                continue
            if stat.rsplit(')', 1)[1].split()[0] == 'Z':
                seen.append(stat.split(' (')[1].split(')')[0])
    return seen


def killed_workers(ex):
    ex.run(job(DAEMON))
    for pid in ex.worker_pids():
        os.kill(pid, signal.SIGKILL)
    found['after_kill'] = [ex.run(job("print(1)")).steps[0].stdout.decode() for _ in range(4)]
    deadline = time.monotonic() + 5
    while zombies() and time.monotonic() < deadline:
        time.sleep(0.1)
    found['zombies'] = zombies()


with LocalExecutor(workers=2, isolation='container', preload=PRELOAD) as ex:
    found['isolation'] = ex.isolation
    found['dev_shm_noexec'] = bool(os.statvfs('/dev/shm').f_flag & os.ST_NOEXEC)
    for scenario in (languages, sockets, quota, killed_workers, families):
        try:
            scenario(ex)
        except Exception:
            found[f'{scenario.__name__} raised'] = traceback.format_exc()[-1500:]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def found(docker_daemon: Any, bare_image: str) -> Iterator[dict[str, Any]]:
    """What the scenarios found inside one default ``docker run``."""
    image = bare_image
    scenario = tempfile.mkdtemp(prefix="codegym-scenario-")
    os.chmod(scenario, 0o755)
    with open(os.path.join(scenario, "programs.json"), "w") as handle:
        json.dump({language: programs["ok"] for language, programs in sorted(_programs().items())}, handle)
    with open(os.path.join(scenario, "families.json"), "w") as handle:
        json.dump([name for name in sorted(gym.registry) if name.startswith("codegym/") and name not in AWAY], handle)
    shutil.copy(os.path.join(os.path.dirname(__file__), "test_container_tier.py"), f"{scenario}/container_tier.py")
    prefix = sys.base_prefix  # (the venv's interpreter lives there)
    volumes = {path: {"bind": path, "mode": "ro"} for path in ("/usr", "/etc", prefix, REPO)}
    volumes[scenario] = {"bind": "/scenario", "mode": "ro"}
    container = docker_daemon.containers.run(
        image, [os.path.join(REPO, ".venv/bin/python"), "-c", SCRIPT], volumes=volumes, detach=True,
        network_mode="none", environment={"PYTHONDONTWRITEBYTECODE": "1"}, working_dir="/",
    )  # fmt: skip
    try:
        status = container.wait(timeout=480)
        logs = container.logs().decode(errors="replace")
    finally:
        container.remove(force=True)
        shutil.rmtree(scenario)
    assert status["StatusCode"] == 0, logs[-4000:]
    yield json.loads(logs.strip().splitlines()[-1])


def test_the_container_is_a_default_one(found: dict[str, Any]) -> None:
    assert found["isolation"] == "container" and found["dev_shm_noexec"]


def test_every_language_runs_a_correct_program(found: dict[str, Any]) -> None:
    assert "languages raised" not in found, found["languages raised"]
    assert set(found["languages"]) == set(languages())
    wrong = {language: got for language, got in found["languages"].items() if got[:2] != ["OK", 1.0]}
    assert wrong == {}


def test_no_unix_socket_of_the_container_is_reached(found: dict[str, Any]) -> None:
    assert "sockets raised" not in found, found["sockets raised"]
    assert found["sockets"] == ["WA", "WA"] and found["service_reached"] == []


def test_a_job_that_fills_its_quota_costs_only_itself(found: dict[str, Any]) -> None:
    assert "quota raised" not in found, found["quota raised"]
    for hog_limit, fair_exit, fair_stdout, fair_stderr in found["quota"]:
        assert hog_limit == "disk"
        assert (fair_exit, fair_stdout) == (0, "ok\n"), fair_stderr
    assert found["after_quota"] == [0, "after\n"]


def test_killed_workers_leave_no_zombie(found: dict[str, Any]) -> None:
    assert "killed_workers raised" not in found, found["killed_workers raised"]
    assert found["after_kill"] == ["1\n"] * 4
    assert found["zombies"] == []


def test_every_family_grades_a_reference_in_the_tier_auto_picks(found: dict[str, Any]) -> None:
    assert "families raised" not in found, found["families raised"]
    assert found["auto_tier"] == "container"
    assert len(found["families"]) >= 11
    wrong = {name: got for name, got in found["families"].items() if got[:2] != ["OK", 1.0]}
    assert wrong == {}
