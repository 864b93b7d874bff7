"""Isolation tiers of the local backend: which one this machine allows, and why not the others.

Researchers train as root on hosts, as plain users on shared clusters and as root in
unprivileged containers; the local sandbox runs in each, as strongly as the machine allows,
and says how strongly (`LocalExecutor.isolation`, `RunResult.isolation`, ``codegym doctor``):

- ``full``: root with CAP_SYS_ADMIN and a writable cgroup. The worker builds its namespaces
  and view directly; submissions run as an unprivileged uid of their own; memory and
  processes are limited per tree by the cgroup.
- ``userns``: an unprivileged user namespace first, then the same namespaces and view.
  Submissions never run as uid 0 of their namespace: as root (without CAP_SYS_ADMIN) the
  namespace maps every uid to itself and each worker's submissions get a uid of their own; as
  a plain user they run in a nested namespace as uid 1000, mapped to the user (so they share
  the user's uid on the host, with no capability and nothing of the user's in view). Limits
  come from a writable cgroup if there is one, else from rlimits and tmpfs sizes.
- ``container``: root in a container whose seccomp profile forbids namespaces. Submissions
  run as an unprivileged uid with seccomp, rlimits and Landlock, without namespaces.

Where none is possible the executor refuses to start, naming what is missing and what would
enable it; it never runs submissions without limits.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codegym.error import SandboxError

Tier = Literal["full", "userns", "container"]
TIERS: tuple[Tier, ...] = ("full", "userns", "container")
CHOICES = ("auto", *TIERS)
ENV_VAR = "CODEGYM_ISOLATION"
PROBE_SCRIPT = str(Path(__file__).with_name("_probe.py"))
PROBE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class TierCheck:
    """Whether one tier works here; if not, why (``reason``) and what would enable it (``fix``)."""

    tier: Tier
    available: bool
    reason: str = ""
    fix: str = ""


@dataclass(frozen=True)
class IsolationReport:
    """What a probe of this machine found (see ``_probe.py``), tier by tier.

    Attributes:
        checks: One `TierCheck` per tier, strongest first.
        facts: The probe's raw findings: user, capabilities, container, cgroup, sysctls.
    """

    checks: tuple[TierCheck, ...]
    facts: Mapping[str, Any] = field(default_factory=dict)

    def check(self, tier: str) -> TierCheck:
        return next(check for check in self.checks if check.tier == tier)

    @property
    def best(self) -> Tier | None:
        """The strongest tier available here, or None."""
        return next((check.tier for check in self.checks if check.available), None)

    @property
    def cgroup(self) -> str:
        """The cgroup version a worker may write ("v1", "v2" or "none")."""
        return str(self.facts["cgroup"]["version"])

    @property
    def user_map(self) -> Literal["identity", "single"]:
        """How the `userns` tier maps uids: every uid to itself (root may), or the caller's
        uid alone (a plain user; submissions then run in a nested namespace)."""
        caps = self.facts["capabilities"]
        return "identity" if self.facts["euid"] == 0 and caps["setuid"] and caps["setgid"] else "single"

    @property
    def fresh_proc(self) -> bool:
        """Whether a user namespace may mount a fresh /proc (not where /proc is masked, as
        in a container); if not, the worker binds the existing one."""
        return self.facts["user_namespace"]["detail"] == "fresh"

    @property
    def situation(self) -> str:
        """Where this runs, in a phrase, as far as the probe can tell."""
        facts = self.facts
        who = "root" if facts["euid"] == 0 else f"a plain user (uid {facts['euid']})"
        if facts["euid"] == 0 and not facts["capabilities"]["sys_admin"]:
            who = "root without CAP_SYS_ADMIN"
        where = "inside a container" if facts["container"] else "on a host"
        if not facts["user_namespace"]["ok"] and facts["seccomp_mode"] == 2:
            where += " whose seccomp profile forbids user namespaces"
        elif not facts["user_namespace"]["ok"]:
            where += " that forbids user namespaces"
        return f"{who} {where}"

    def render(self) -> str:
        """The report as ``codegym doctor`` prints it."""
        facts = self.facts
        caps = ", ".join(name for name, held in facts["capabilities"].items() if held) or "none"
        lines = [
            f"isolation tier: {self.best or 'none (the sandbox cannot run here)'}",
            f"situation: {self.situation}",
            "",
            f"user: uid {facts['euid']}; capabilities held: {caps}",
            f"container: {facts['container'] or 'none detected'}; seccomp mode of this process: "
            f"{facts['seccomp_mode']} ({'filtered' if facts['seccomp_mode'] == 2 else 'none'})",
            f"cgroup: {self.cgroup}" + (f" ({facts['cgroup']['reason']})" if facts["cgroup"]["reason"] else ""),
            f"landlock ABI: {facts['landlock_abi'] or 'not available'}",
        ]
        for name, value in facts["sysctls"].items():
            lines.append(f"sysctl {name} = {value}")
        lines.append("")
        for check in self.checks:
            if check.available:
                lines.append(f"[x] {check.tier}: available" + (f" ({check.reason})" if check.reason else ""))
            else:
                lines.append(f"[ ] {check.tier}: {check.reason}")
                if check.fix:
                    lines.append(f"      to enable: {check.fix}")
        return "\n".join(lines)


def _full(facts: Mapping[str, Any]) -> TierCheck:
    if facts["euid"] != 0:
        return TierCheck("full", False, f"runs as uid {facts['euid']}, not root", "run as root on the host")
    if not facts["capabilities"]["sys_admin"]:
        return TierCheck(
            "full", False, "root without CAP_SYS_ADMIN (a container's default capabilities, or a dropped bounding set)",
            "a container needs --cap-add SYS_ADMIN, --security-opt seccomp=unconfined and a writable cgroup "
            "(--cgroupns=private with /sys/fs/cgroup mounted read-write)",
        )  # fmt: skip
    if not facts["namespaces"]["ok"]:
        return TierCheck(
            "full", False, f"namespaces are refused: {facts['namespaces']['detail']}",
            "a seccomp profile that allows unshare and mount (docker run --security-opt seccomp=unconfined)",
        )  # fmt: skip
    if facts["cgroup"]["version"] == "none":
        return TierCheck(
            "full", False, f"no writable cgroup: {facts['cgroup']['reason']}",
            "mount the cgroup hierarchy read-write (docker run --cgroupns=private -v /sys/fs/cgroup:/sys/fs/cgroup:rw)",
        )  # fmt: skip
    return TierCheck("full", True, f"cgroup {facts['cgroup']['version']}")


def _userns(facts: Mapping[str, Any]) -> TierCheck:
    probe = facts["user_namespace"]
    if not probe["ok"]:
        return TierCheck("userns", False, f"user namespaces are refused: {probe['detail']}", _userns_fix(facts))
    limits = f"cgroup {facts['cgroup']['version']}" if facts["cgroup"]["version"] != "none" else "rlimits"
    proc = "fresh /proc" if probe["detail"] == "fresh" else "the existing /proc bound (a fresh one is refused)"
    return TierCheck("userns", True, f"limits by {limits}; {proc}")


def _userns_fix(facts: Mapping[str, Any]) -> str:
    sysctls = facts["sysctls"]
    if sysctls.get("user.max_user_namespaces") == "0":
        return "sysctl -w user.max_user_namespaces=15000 (as root on the host)"
    if sysctls.get("kernel.unprivileged_userns_clone") == "0":
        return "sysctl -w kernel.unprivileged_userns_clone=1 (as root on the host)"
    if sysctls.get("kernel.apparmor_restrict_unprivileged_userns") == "1":
        return (
            "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile "
            "granting 'userns' to this Python (as root on the host)"
        )
    if facts["seccomp_mode"] == 2:
        return (
            "a seccomp filter on this process refuses them (Docker's default profile, Kubernetes' "
            "RuntimeDefault): docker run --security-opt seccomp=unconfined, or a pod with "
            "securityContext.seccompProfile.type: Unconfined"
        )
    return "a kernel built with user namespaces (CONFIG_USER_NS)"


def _container(facts: Mapping[str, Any]) -> TierCheck:
    caps = facts["capabilities"]
    needed = ("setuid", "setgid", "chown", "dac_override")
    if facts["euid"] != 0 or not all(caps[name] for name in needed):
        return TierCheck(
            "container", False, "needs root with CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_DAC_OVERRIDE (a "
            "container's default root), to run submissions as another uid and clean up after them",
            "run as root in the container (the default user of most images)",
        )  # fmt: skip
    if not facts["seccomp"]["ok"]:
        return TierCheck("container", False, f"seccomp is unavailable: {facts['seccomp']['detail']}", "")
    if facts.get("python_closed_at"):
        return TierCheck(
            "container", False, f"submissions run as another uid, which cannot reach this Python "
            f"({facts['python_prefix']}): {facts['python_closed_at']} lets no other user through",
            "use an interpreter other users can read (LocalExecutor(python=...), such as /usr/bin/python3 "
            f"with codegym installed for it), or chmod o+x {facts['python_closed_at']}",
        )  # fmt: skip
    if not facts["landlock_abi"]:
        return TierCheck(
            "container", False, "Landlock is not enabled in this kernel",
            "boot the host with Landlock among its LSMs (lsm=landlock,...; Linux 5.13 or later)",
        )  # fmt: skip
    return TierCheck("container", True, f"Landlock ABI {facts['landlock_abi']}")


def report_from(facts: Mapping[str, Any]) -> IsolationReport:
    """The tiers `facts` (a probe's findings) allow."""
    return IsolationReport((_full(facts), _userns(facts), _container(facts)), facts)


@functools.lru_cache(maxsize=8)
def probe(python: str | None = None, launcher: tuple[str, ...] = ()) -> IsolationReport:
    """Probe what a worker started as ``launcher + [python, ...]`` may do here (by default:
    this interpreter, with this process's privileges). Cached per arguments."""
    argv = [*launcher, python or sys.executable, "-s", "-S", "-B", "-P", PROBE_SCRIPT]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    try:
        done = subprocess.run(argv, capture_output=True, env=env, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandboxError(f"could not probe this machine's isolation ({' '.join(argv)}): {e}") from e
    if done.returncode != 0:
        raise SandboxError(
            f"the isolation probe failed (exit {done.returncode}):\n{done.stderr.decode(errors='replace')}"
        )
    return report_from(json.loads(done.stdout))


def choose(requested: str | None, report: IsolationReport) -> Tier:
    """The tier to run: ``requested`` (else ``$CODEGYM_ISOLATION``, else "auto": the
    strongest available). A named tier that is not available, or no tier at all, raises
    `SandboxError` with the report."""
    wanted = requested or os.environ.get(ENV_VAR) or "auto"
    if wanted not in CHOICES:
        source = "isolation" if requested else f"${ENV_VAR}"
        raise ValueError(f"{source} must be one of {', '.join(CHOICES)}; got {wanted!r}")
    if wanted == "auto":
        if report.best is None:
            raise SandboxError(
                f"the local sandbox cannot run here ({report.situation}): no isolation tier is available.\n\n"
                f"{report.render()}"
            )
        return report.best
    check = report.check(wanted)
    if not check.available:
        fix = f"\nTo enable it: {check.fix}" if check.fix else ""
        raise SandboxError(
            f"isolation {wanted!r} is not available here: {check.reason}.{fix}\n"
            f"Available: {', '.join(c.tier for c in report.checks if c.available) or 'none'} "
            f"(isolation='auto' picks the strongest).\n\n{report.render()}"
        )
    return wanted  # type: ignore[return-value]
