"""Isolation tiers: what the probe finds, how a tier is chosen, and how a refusal reads."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

from codegym.cli import main
from codegym.error import SandboxError
from codegym.executor import Job, Step
from codegym.executor.isolation import ENV_VAR, choose, probe, report_from
from codegym.executor.local import LocalExecutor

FACTS: dict[str, Any] = {  # a probe's findings in a default Docker container, as root
    "python_prefix": "/usr",
    "python_version": [3, 11],
    "site_packages": [],
    "python_closed_at": None,
    "euid": 0,
    "egid": 0,
    "capabilities": {
        "chown": True,
        "dac_override": True,
        "kill": True,
        "setgid": True,
        "setuid": True,
        "sys_admin": False,
    },
    "container": "docker (/.dockerenv exists)",
    "seccomp_mode": 2,
    "sysctls": {"user.max_user_namespaces": "15000"},
    "cgroup": {"version": "none", "reason": "/sys/fs/cgroup is not writable by uid 0 (mounted read-only)"},
    "namespaces": {"ok": False, "detail": "[Errno 1] unshare: Operation not permitted"},
    "user_namespace": {"ok": False, "detail": "[Errno 1] unshare: Operation not permitted"},
    "seccomp": {"ok": True, "detail": "installed"},
    "landlock_abi": 6,
}


def test_a_default_container_gets_the_container_tier_and_says_what_the_others_need() -> None:
    report = report_from(FACTS)
    assert report.best == "container" and choose(None, report) == "container"
    text = report.render()
    assert "situation: root without CAP_SYS_ADMIN inside a container whose seccomp profile forbids user" in text
    assert "seccomp=unconfined" in text  # the fix of userns, where a filter refuses namespaces
    with pytest.raises(SandboxError, match=r"isolation 'userns' is not available here: user namespaces are refused"):
        choose("userns", report)


def test_nothing_safe_is_a_refusal_never_a_run_without_limits() -> None:
    facts = {**FACTS, "euid": 1000, "capabilities": dict.fromkeys(FACTS["capabilities"], False)}
    facts["sysctls"] = {"kernel.apparmor_restrict_unprivileged_userns": "1"}
    facts["seccomp_mode"] = 0
    report = report_from(facts)
    assert report.best is None
    situation = r"cannot run here \(a plain user \(uid 1000\) inside a container that forbids user namespaces\)"
    with pytest.raises(SandboxError, match=situation + r"(.|\n)*apparmor_restrict_unprivileged_userns=0"):
        choose("auto", report)


def test_the_environment_names_a_tier_and_a_wrong_name_says_the_choices(monkeypatch) -> None:
    report = probe()
    monkeypatch.setenv(ENV_VAR, "userns")
    assert choose(None, report) == "userns"
    monkeypatch.setenv(ENV_VAR, "chroot")
    with pytest.raises(
        ValueError, match=r"\$CODEGYM_ISOLATION must be one of auto, full, userns, container; got 'chroot'"
    ):
        choose(None, report)


def test_a_plain_user_asking_for_full_is_refused_at_construction(tier_options: Callable[[str], dict[str, Any]]) -> None:
    options = {**tier_options("userns-user"), "isolation": "full"}
    with pytest.raises(SandboxError, match=r"isolation 'full' is not available here: runs as uid \d+, not root"):
        LocalExecutor(workers=1, **options)


@pytest.mark.parametrize("tier", ["full", "userns-root", "userns-user", "container"])
def test_every_result_says_which_tier_ran_it(tier: str, tier_options: Callable[[str], dict[str, Any]]) -> None:
    options = tier_options(tier)
    with LocalExecutor(workers=1, **options) as executor:
        result = executor.run(Job(steps=(Step(argv=("true",)),)))
    assert result.isolation == executor.isolation == options["isolation"]


def test_doctor_reports_the_tier_and_runs_a_program_in_it(capsys) -> None:
    assert main(["doctor", "--isolation", "userns"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("isolation tier: full") and "[x] userns: available" in out
    assert "ran a program in the 'userns' tier" in out and out.rstrip().endswith("ok")


def test_the_container_tier_needs_a_python_other_users_can_reach() -> None:
    report = report_from({**FACTS, "python_prefix": "/root/.pyenv/versions/3.11.7", "python_closed_at": "/root"})
    assert report.best is None
    with pytest.raises(SandboxError, match=r"cannot reach this Python \(/root/.pyenv/versions/3.11.7\): /root lets"):
        choose("container", report)


PROC_PROBE = """
import json
import os
import subprocess
import sys

def attempt(read):
    try:
        read()
        return "read"
    except OSError as e:
        return type(e).__name__

def of(pid):
    reads = {name: (lambda p=f"/proc/{pid}/{name}": open(p, "rb").read(1)) for name in ("cmdline", "environ", "maps", "status")}
    reads["fd"] = lambda: os.listdir(f"/proc/{pid}/fd")
    return {name: attempt(read) for name, read in reads.items()}

targets = [int(p) for p in sys.argv[1:]] + [1, os.getppid()]
child = "\\n".join((
    "try:",
    "    open('/proc/self/maps').read(1)",
    "except OSError as e:",
    "    print(type(e).__name__, open('/proc/meminfo').read(8))",
))
print(json.dumps({
    "listing": attempt(lambda: os.listdir("/proc")),
    "others": {str(pid): of(pid) for pid in targets},
    "own": [attempt(lambda: open("/proc/self/maps").read(1)), attempt(lambda: os.listdir("/proc/self/task"))],
    "shared": attempt(lambda: open("/proc/meminfo").read(1)),
    "child": subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip(),
}))
"""


@pytest.mark.parametrize(
    "kind", ["container", "container-python", pytest.param("docker-default", marks=pytest.mark.docker)]
)
def test_a_container_tier_step_cannot_see_other_processes_in_proc(
    kind: str, tier_options: Callable[[str], dict[str, Any]], tier_executors: Callable[[str], Any]
) -> None:
    """The `container` tier has no pid namespace: /proc is the container's, and lists the
    trainer, the workers and their supervisors with their command lines. A step's own Landlock
    layer leaves it its own /proc/<pid> and files about the machine, nothing of another
    process's, nor a listing (its children get the machine's files only)."""
    if kind == "docker-default":
        executor, targets = tier_executors(kind), [os.getpid()]
    else:
        options = {**tier_options("container"), "native_fork_server": kind == "container"}
        executor = LocalExecutor(workers=2, **options)
        executor.run(Job(steps=(Step(argv=("true",)),)))  # (both workers up)
        executor.run(Job(steps=(Step(argv=("true",)),)))
        targets = [os.getpid(), *executor.worker_pids()]
    try:
        job = Job(steps=(Step(argv=("python", "main.py", *map(str, targets))),), files={"main.py": PROC_PROBE.encode()})
        result = executor.run(job)
    finally:
        if kind != "docker-default":
            executor.close()
    assert result.isolation == "container"
    step = result.steps[0]
    assert step.exit_code == 0, step
    seen = json.loads(step.stdout)
    assert seen["listing"] == "PermissionError"
    assert len(seen["others"]) >= len(targets) + 1
    for pid, files in seen["others"].items():
        assert set(files.values()) <= {"PermissionError", "FileNotFoundError"}, (pid, files)
    assert set(seen["others"]["1"].values()) == {"PermissionError"}  # (pid 1 is there, in a container too)
    assert seen["own"] == ["read", "read"] and seen["shared"] == "read"
    assert seen["child"] == "PermissionError MemTotal"  # a child of the step: its /proc/<pid> is not the step's
