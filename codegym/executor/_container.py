"""The entry point of a docker backend container (stdlib only; runs inside the container).

`DockerExecutor` starts each warm container as ``python3 -I -S -B _container.py CONFIG``
with codegym's source directories bound read-only at their host paths. This script connects
to the executor's unix socket (a host directory bound into the container), gives the local
backend's worker a cgroup of its own (a private cgroup namespace makes the container's cgroup
the root of what it mounts), describes the image's file system as the worker's view, and
then ``exec``s the local worker (``_worker.py``) on the connected socket. From there on, the
container runs exactly what the local backend runs on the host, inside the container's
limits: no network, a read-only root, a pids and a memory limit, capabilities cut down to
what building the per-job sandbox needs.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import traceback
import types

CGROUP_MOUNTS = "/run/codegym-cg"


def _install_stub_packages(packages: dict[str, list[str]]) -> None:
    # The same as _worker's: nothing of codegym can be imported before the stubs exist.
    for name in sorted(packages):
        module = types.ModuleType(name)
        module.__path__ = packages[name]
        module.__package__ = name
        sys.modules[name] = module


def _own_cgroup_is_root(controller: str) -> bool:
    """True when this process sits at the root of its cgroup namespace for ``controller``
    (v2: the unified entry), so a mounted hierarchy shows the container's cgroup only."""
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            names = controllers.split(",") if controllers else [""]
            if controller in names:
                return path == "/"
    return False


def _cgroup_v1(linux: types.ModuleType) -> dict[str, str]:
    paths = {}
    for controller in ("memory", "pids"):
        if not _own_cgroup_is_root(controller):
            raise OSError(f"the container's {controller} cgroup is not private")
        mount_point = f"{CGROUP_MOUNTS}/{controller}"
        os.makedirs(mount_point, exist_ok=True)
        linux.mount("cgroup", mount_point, "cgroup", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC, controller)
        paths[controller] = f"{mount_point}/codegym"
        os.makedirs(paths[controller], exist_ok=True)
    return paths


def _cgroup_v2(linux: types.ModuleType) -> dict[str, str]:
    if not _own_cgroup_is_root(""):
        raise OSError("the container's cgroup is not private")
    mount_point = f"{CGROUP_MOUNTS}/unified"
    os.makedirs(mount_point, exist_ok=True)
    linux.mount("cgroup2", mount_point, "cgroup2", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    os.makedirs(f"{mount_point}/init", exist_ok=True)  # no processes in inner nodes (v2)
    with open(f"{mount_point}/init/cgroup.procs", "w") as handle:
        handle.write(str(os.getpid()))
    with open(f"{mount_point}/cgroup.subtree_control", "w") as handle:
        handle.write("+memory +pids")
    os.makedirs(f"{mount_point}/codegym", exist_ok=True)
    return {"unified": f"{mount_point}/codegym"}


def setup_cgroup(linux: types.ModuleType) -> dict[str, object]:
    """The worker's job cgroup inside the container's own, or "none" where it cannot be had."""
    try:
        if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            return {"version": "v2", "paths": _cgroup_v2(linux)}
        return {"version": "v1", "paths": _cgroup_v1(linux)}
    except OSError as e:
        return {"version": "none", "paths": {}, "reason": str(e)}


def choose_tier(cgroup: dict[str, object]) -> tuple[str, str]:
    """The strongest sandbox tier this container allows (see `codegym.executor.isolation`),
    and the user namespace's uid map: `full` where the executor granted what it takes (and
    the job cgroup could be had), else what a probe of the container finds."""
    from codegym.executor import _probe
    from codegym.executor.isolation import report_from

    report = report_from(
        {**_probe.probe(), "cgroup": {"version": cgroup["version"], "reason": cgroup.get("reason", "")}}
    )
    if report.best is None:
        raise OSError(f"no sandbox tier can run in this container:\n{report.render()}")
    return report.best, report.user_map


def describe_view(config: dict[str, object]) -> dict[str, object]:
    """The image's toolchain as the worker's read-only view (what ``local._view`` does on
    the host), plus codegym's source directories, hidden again after the preload."""
    from codegym.executor import _view

    symlinks, binds = _view.toolchain(config["etc_allowlist"])  # type: ignore[arg-type]
    package_dirs = list(config["package_dirs"])  # type: ignore[call-overload]
    binds += [(d, d) for d in package_dirs]
    binds += [(d, d) for d in config.get("view_binds", ()) if os.path.isdir(d)]  # type: ignore[attr-defined]
    return {"symlinks": symlinks, "binds": binds, "masks": [], "hide": package_dirs}


def main() -> None:
    config = json.loads(sys.argv[1])
    _install_stub_packages(config["packages"])
    from codegym.executor._wire import write_frame

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(config["socket"])
    except PermissionError as e:  # the executor opens the socket to this uid: a security module's denial?
        raise SystemExit(
            f"cannot connect to the executor's socket {config['socket']}: {e}. Connecting takes search permission "
            f"on its directory and write permission on it for uid {os.getuid()} here, which has no CAP_DAC_OVERRIDE"
        ) from e
    fd = connection.detach()
    try:
        from codegym.executor import _linux as linux

        cgroup = setup_cgroup(linux)
        tier, user_map = choose_tier(cgroup)
        write_frame(fd, ("cgroup", cgroup))
        results = os.dup(fd)  # the worker closes its two ends separately
        from codegym.executor._view import worker_config

        worker = worker_config(
            {**describe_view(config), "packages": config["packages"]},
            index=config["index"],
            preload=config["preload"],
            ctl_fd=fd,
            res_fd=results,
            root=config["root"],
            uid=config["uid"],
            etc=config["etc"],
            cgroup=cgroup,
            isolation=tier,
            user_map=user_map,
        )
        os.set_inheritable(fd, True)
        os.set_inheritable(results, True)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
        python = sys.executable or "/usr/bin/python3"
        safe_path = ["-P"] if sys.version_info >= (3, 11) else []  # (an image's python3 may be older)
        flags = ["-s", "-S", "-B", *safe_path]
        os.execve(python, [python, *flags, config["worker_script"], json.dumps(worker)], env)
    except BaseException:
        write_frame(fd, ("crash", traceback.format_exc()))
        sys.exit(1)


if __name__ == "__main__":
    main()
