"""What this machine lets a sandbox do, found by trying it (stdlib only).

`codegym.executor.isolation.probe` runs this as ``python -s -S -B -P _probe.py`` with the
same interpreter and privileges as the local backend's workers, and reads one JSON object
from its stdout: facts (user, capabilities, container, cgroups, sysctls) and, per isolation
tier, whether it works here and why not. Every attempt (namespaces, mounts, maps, seccomp)
happens in a forked child that exits at once, so nothing of it outlives the probe.
"""

from __future__ import annotations

import json
import os
import site
import sys
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cgroup
import _linux as linux
from _view import closed_at

CAPABILITIES = {"chown": 0, "dac_override": 1, "kill": 5, "setgid": 6, "setuid": 7, "sys_admin": 21}
SYSCTLS = (
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def _status() -> dict[str, str]:
    with open("/proc/self/status") as handle:
        return {key: value.strip() for key, _, value in (line.partition(":") for line in handle)}


def capabilities() -> dict[str, bool]:
    """The effective capabilities that the sandbox's tiers need."""
    effective = int(_status()["CapEff"], 16)
    return {name: bool(effective >> bit & 1) for name, bit in CAPABILITIES.items()}


def container() -> str | None:
    """What suggests that this runs in a container, if anything (a hint for the reader: the
    tiers rest on what the probe finds it may do, not on this)."""
    for path, kind in (("/.dockerenv", "docker"), ("/run/.containerenv", "podman")):
        if os.path.exists(path):
            return f"{kind} ({path} exists)"
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes ($KUBERNETES_SERVICE_HOST is set)"
    try:
        with open("/proc/1/cgroup") as handle:
            text = handle.read()
    except OSError:
        return None
    for marker, kind in (("kubepods", "kubernetes"), ("docker", "docker"), ("containerd", "containerd")):
        if marker in text:
            return f"{kind} (/proc/1/cgroup names it)"
    return None


def sysctls() -> dict[str, str]:
    found = {}
    for path in SYSCTLS:
        try:
            with open(path) as handle:
                found[path.removeprefix("/proc/sys/").replace("/", ".")] = handle.read().strip()
        except OSError:
            continue
    return found


def in_child(attempt: Callable[[], str]) -> tuple[bool, str]:
    """Run ``attempt`` in a forked child; (True, what it returned) or (False, its error)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            message, code = "1" + attempt(), 0
        except BaseException as e:
            message, code = "0" + (str(e) or type(e).__name__), 1
        os.write(write, message.encode()[:4000])
        os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    return (text[:1] == "1", text[1:]) if text else (False, "the probe's child died")


def _plain_namespaces() -> str:
    linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS | linux.CLONE_NEWPID)
    linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
    return "namespaces and mounts work"


def _user_namespace() -> str:
    """What the `userns` tier's worker does first, and whether a fresh /proc mounts."""
    uid, gid = os.geteuid(), os.getegid()
    linux.unshare(linux.CLONE_NEWUSER)
    linux.write_id_maps("self", f"0 {uid} 1", f"0 {gid} 1")
    _plain_namespaces()
    linux.tmpfs("/tmp", 1 << 20)
    fresh, why = in_child(_fresh_proc)
    return "fresh" if fresh else f"bound ({why})"


def _fresh_proc() -> str:
    linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    return "mounted"


def _seccomp() -> str:
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.SeccompFilter(linux.seccomp_program()).install()
    return "installed"


def probe() -> dict[str, object]:
    caps = capabilities()
    cgroup_version, cgroup_reason = _cgroup.detect_with_reason()
    plain, plain_why = in_child(_plain_namespaces)
    userns, userns_why = in_child(_user_namespace)
    seccomp, seccomp_why = in_child(_seccomp)
    return {
        "python_prefix": os.path.realpath(sys.base_prefix),
        "python_version": list(sys.version_info[:2]),
        "site_packages": [path for path in site.getsitepackages() if os.path.isdir(path)],
        "python_closed_at": closed_at(sys.base_prefix),
        "euid": os.geteuid(),
        "egid": os.getegid(),
        "capabilities": caps,
        "container": container(),
        "seccomp_mode": int(_status().get("Seccomp", "0")),
        "sysctls": sysctls(),
        "cgroup": {"version": cgroup_version, "reason": cgroup_reason},
        "namespaces": {"ok": plain, "detail": plain_why},
        "user_namespace": {"ok": userns, "detail": userns_why},
        "seccomp": {"ok": seccomp, "detail": seccomp_why},
        "landlock_abi": linux.landlock_abi(),
    }


if __name__ == "__main__":
    json.dump(probe(), sys.stdout)
