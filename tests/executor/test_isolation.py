"""Isolation tiers: what the probe finds, how a tier is chosen, and how a refusal reads."""

from __future__ import annotations

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
