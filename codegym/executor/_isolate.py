"""The worker's one-time isolation (stdlib only; see ``_worker.py``): the user namespace of
the `userns` tier, the file system view the worker pivots into, and, in the `container` tier,
which has neither, the folders its steps work in and the paths Landlock lets them read."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
from typing import Any

from codegym.executor import _linux as linux
from codegym.executor._forkserver import WORK, Paths
from codegym.executor._workspace import STORE

# What the view would show under /tmp (a checkout there, a venv or a toolchain installed
# there), it shows at the same path below FROM_TMP: each job's /tmp is its own, and empty.
FROM_TMP = "/.from-tmp"
# Past jobs' scratch file systems, moved out of the view to be unmounted together (root only;
# see `_worker.Supervisor`).
RETIRED = "/.retired"
# In the `userns` tier: the host's /proc, bound (under a root-only folder) until the fork server
# has mounted its own, which a user namespace may do only while a whole /proc is in view.
HOST_PROC = "/.host-proc/proc"


def enter_user_namespace(user_map: str) -> None:
    """The `userns` tier's first step: become root of a new user namespace, then pid 1 of a
    new pid namespace it owns (so that, later, the supervisor may return to that one after
    making the fork server's). The process that called this stays behind as the parent of
    the rest, closes everything and only waits to pass on its exit.

    ``user_map``: "identity" (we are root: every uid maps to itself, written by a helper
    child still outside, since a map of more than our own uid takes CAP_SETUID out there) or
    "single" (a plain user: our uid alone, as root of the namespace).
    """
    uid, gid = os.geteuid(), os.getegid()
    if user_map == "identity":
        helper = _map_writer(os.getpid())
        linux.unshare(linux.CLONE_NEWUSER)
        os.write(helper[1], b"go")
        os.close(helper[1])
        _, status = os.waitpid(helper[0], 0)
        if status != 0:
            raise OSError(f"could not write the identity uid and gid maps (wait status {status})")
    else:
        linux.unshare(linux.CLONE_NEWUSER)
        linux.write_id_maps("self", f"0 {uid} 1", f"0 {gid} 1")
    linux.unshare(linux.CLONE_NEWPID)
    child = os.fork()
    if child:
        os.closerange(3, 1 << 16)
        linux.set_name("codegym-userns")
        status = os.waitpid(child, 0)[1]
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)


def become_reaper(uid: int | None, keep_closed: tuple[int, ...]) -> None:
    """A worker's first step. What a crashed or killed worker leaves (its fork server, which
    its death kills, and in the `container` tier, which has no pid namespace to end with it,
    its steps) would fall to the machine's PID 1 as zombies, which a container's PID 1 (a
    trainer started by ``docker run``) may never reap. So the process the executor started
    stays behind as their subreaper and forks the worker, which returns from here in a
    process group of its own. SIGTERM (the executor's way to stop it) kills that group; once
    the worker is gone, every process of the steps' ``uid`` (if given: the `container` tier)
    is killed, everything reaped, and the worker's exit status passed on.
    ``keep_closed``: the worker's pipes to the executor, which only the worker holds."""
    worker = [0]
    signal.signal(signal.SIGTERM, lambda *_: worker[0] and _kill_group(worker[0]))
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # (the worker asks the same of us)
    worker[0] = os.fork()
    if worker[0] == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setpgid(0, 0)
        return
    for fd in keep_closed:
        os.close(fd)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    linux.set_name("codegym-reaper")
    status = 1 << 8
    while True:
        try:
            pid, reaped = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        if pid == worker[0]:
            status, worker[0] = reaped, 0
            _kill_group(pid)  # (its fork server, were it still alive)
            if uid is not None:
                _kill_every_process_of(uid)


def _kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


def _kill_every_process_of(uid: int) -> None:
    """SIGKILL every process of ``uid`` (but the helper that takes that uid to do it)."""
    helper = os.fork()
    if helper == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    while True:
        try:
            if os.waitpid(helper, 0)[0] == helper:
                return
        except ChildProcessError:
            return


def container_paths(config: dict[str, Any]) -> Paths:
    """The `container` tier has no namespace, so no view of its own: a step works in folders
    of the worker's own (``work``, and ``tmp`` for its TMPDIR: both under ``config["root"]``,
    emptied between jobs, never removed, for Landlock's rules hold on to them), and may read
    and execute what the view would have shown, but codegym's own folders and the runtime's
    site-packages."""
    root = config["root"]
    work, tmp = f"{root}/work", f"{root}/tmp"
    for folder in (work, tmp):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        empty(folder)  # (what a worker that died before us left)
        if config["uid"] is not None:
            os.chown(folder, config["uid"], config["uid"])
    hidden = set(config["hide"])
    readable = [source for source, target in config["binds"] if target not in hidden]
    readable = [path for source in readable for path in _without(source, config["masks"])]
    devices = ("null", "zero", "full", "random", "urandom", *config.get("devices", ()))
    read_only = ("/dev/zero",) if config.get("refuse_shared_memory") else ()  # (see `bind_devices`)
    return Paths(work, tmp, [*readable, *(f"/dev/{device}" for device in devices), "/proc"], read_only)


def bind_devices(config: dict[str, Any], root: str) -> None:
    """Bind the device nodes of a step's view (the executor's extra ones, a GPU's, among them).

    Where shared memory is refused (``config["refuse_shared_memory"]``: no cgroup counts
    it), /dev/zero is the host's /dev/full: it reads as zeros too, but cannot be mapped (a
    shared mapping of /dev/zero is anonymous shared memory, which RLIMIT_DATA does not
    count, and a seccomp filter cannot tell it from a file's) and refuses writes (ENOSPC).
    The `container` tier, with no view, lets a step open /dev/zero for reading only
    (Landlock), and a read-only shared mapping of it takes no memory."""
    zero = "/dev/full" if config.get("refuse_shared_memory") else "/dev/zero"
    for device in ("null", "zero", "full", "random", "urandom", *config.get("devices", ())):
        source = zero if device == "zero" else f"/dev/{device}"
        _bind_into(root, source, f"/dev/{device}", readonly=False)


def _without(folder: str, masked: list[str]) -> list[str]:
    """``folder``, or, where a masked path lies inside it, every entry of it but that one
    (descending as far as needed), and the folders descended through, to be listed only
    (marked by a trailing "/"): Landlock grants whole hierarchies."""
    inside = [path for path in masked if path.startswith(folder + "/")]
    if folder in masked:
        return []
    if not inside or not os.path.isdir(folder):
        return [folder]
    entries = sorted(os.listdir(folder))
    return [f"{folder}/", *(path for entry in entries for path in _without(f"{folder}/{entry}", inside))]


def in_initial_user_namespace() -> bool:
    """Whether this process is in the host's user namespace (whose map is the whole range)."""
    with open("/proc/self/uid_map") as handle:
        return handle.read().split() == ["0", "0", "4294967295"]


def _map_writer(target: int) -> tuple[int, int]:
    """A child that, told to, writes identity uid and gid maps for ``target``'s new user
    namespace. Returns its pid and the descriptor to tell it on."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(write)
            if os.read(read, 2) == b"go":
                whole = "0 0 4294967295"
                linux.write_id_maps(target, whole, whole)
                code = 0
        finally:
            os._exit(code)
    os.close(read)
    return pid, write


def out_of_tmp(path: str) -> str:
    """Where the view shows ``path``: below `FROM_TMP` if it lies under /tmp, else at itself."""
    return FROM_TMP + path if path == "/tmp" or path.startswith("/tmp/") else path


def build_view(config: dict[str, Any]) -> None:
    """Enter fresh namespaces and pivot into a root built from an empty tmpfs (what lies
    under /tmp bound at `out_of_tmp` of its path; see `follow_out_of_tmp`)."""
    linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
    linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
    root = config["root"]
    linux.tmpfs(root, 16 << 20)
    for name in ("etc", "proc", "dev", "tmp", WORK[1:], ".cg", RETIRED[1:], STORE[1:]):
        os.mkdir(f"{root}/{name}")
    for name in (".cg", RETIRED[1:], STORE[1:]):
        os.chmod(f"{root}/{name}", 0o700)
    os.chmod(f"{root}/tmp", 0o1777)
    if config["keep_host_proc"]:
        os.makedirs(f"{root}{HOST_PROC}")
        os.chmod(f"{root}{os.path.dirname(HOST_PROC)}", 0o700)
        try:  # (a whole /proc: it lets the fork server mount its own)
            linux.bind("/proc", f"{root}{HOST_PROC}", readonly=False, recursive=False)
        except OSError:  # parts of it are masked (a container): bind them with it
            linux.bind("/proc", f"{root}{HOST_PROC}", readonly=False)
    for name, target in config["symlinks"]:
        os.symlink(target, f"{root}/{name}")
    binds = [(source, out_of_tmp(target)) for source, target in config["binds"]]
    for source, target in binds:
        _bind_into(root, source, target, readonly=True)
    bind_devices(config, root)
    for index, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{index}", f"{root}/dev/{name}")
    os.symlink("/proc/self/fd", f"{root}/dev/fd")
    for name, text in config["etc"].items():
        with open(f"{root}/etc/{name}", "w") as handle:
            handle.write(text)
    for masked in config["masks"]:
        if masked not in config.get("python_path", ()):  # (what the worker is told to import from)
            path = out_of_tmp(masked)
            inside = [(s, t) for s, t in binds if t.startswith(path + "/")]
            mask(f"{root}{path}", keep=inside, root=root)
    for controller, source in config["cgroup"]["paths"].items():
        _bind_into(root, source, f"/.cg/{controller}", readonly=False)
    os.chdir(root)
    linux.pivot_root(".", ".")
    linux.umount(".")  # the old root, stacked under the new one by pivot_root(".", ".")
    os.chdir("/")
    linux.mount("none", "/", None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    linux.sethostname("codegym")


def follow_out_of_tmp(config: dict[str, Any]) -> None:
    """After `build_view`: point what the worker imports from (its packages, ``sys.path``,
    the view's ``python_path``), what it hides and its interpreter's paths at where the view
    shows them, for what lay under /tmp (a checkout and its venv there) is below `FROM_TMP`."""
    for key in ("python_path", "hide"):
        config[key] = [out_of_tmp(path) for path in config.get(key, ())]
    sys.path[:] = [out_of_tmp(path) for path in sys.path]
    for name in config["packages"]:
        package = sys.modules.get(name)
        if package is not None and hasattr(package, "__path__"):
            package.__path__ = [out_of_tmp(path) for path in package.__path__]
    for name in ("executable", "_base_executable", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix"):
        if isinstance(getattr(sys, name, None), str):
            setattr(sys, name, out_of_tmp(getattr(sys, name)))
    sys.path_importer_cache.clear()


def mask(mount_point: str, *, keep: tuple[tuple[str, str], ...] | list[tuple[str, str]] = (), root: str = "") -> None:
    """Cover ``mount_point`` with an empty read-only tmpfs. The binds in ``keep``, which lie
    inside it (codegym installed into the site-packages it masks), are made again on top
    (``root``: where the view is built), for the worker to import from until it hides them."""
    linux.tmpfs(mount_point, 1 << 20 if keep else 4096, flags=0 if keep else linux.MS_RDONLY)
    for source, target in keep:
        _bind_into(root, source, target, readonly=True)
    if keep:
        linux.mount("none", mount_point, None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)


def _bind_into(root: str, source: str, target: str, *, readonly: bool) -> None:
    path = f"{root}{target}"
    if os.path.isdir(source):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    linux.bind(source, path, readonly=readonly)


def empty(folder: str) -> None:
    """Remove what is in ``folder`` (never through a link: rmtree works by descriptors)."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
