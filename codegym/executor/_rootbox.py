"""The init of a root-file-system box (stdlib only; see `codegym.executor.rootbox`).

`RootBox` starts this once per process, as real root: ``python -s -S -B _rootbox.py``, its
config (JSON) on stdin (never in an argv, which every process of a box may read). It is the
box server (`serve`): warm, with the box's modules imported, it forks a launcher for each box
the harness asks for, with the box's control socket. The launcher builds the box, whose init
serves the harness's requests:

    launcher (real root, the host's namespaces: writes the child's uid maps, joins it to its
      │       cgroup, waits for it)
      └── init: pid 1 of a new pid namespace, with new mount, ipc, uts and (by default) net
          namespaces. As real root it mounts the overlay (the layers below, the episode's
          upper above), /proc, a small /dev, the binds, brings its loopback up, and
          pivots into the overlay; then it enters a user namespace of its own (inside uids
          0..65535 are the host's ``id_base``..; the layers are stored so shifted) and serves.
             └── one process per command: its own session, the task's user, the capabilities
                 a container's root has (none for another user), no_new_privs, a seccomp
                 deny list, then ``exec`` (or the editor and search tools, preloaded here).

The namespaces other than the user one belong to the host's user namespace, so root inside
holds no power over them: it cannot mount, configure the network or change the hostname;
its capabilities act only on files whose owner is mapped. Background processes live on
between commands (``background="keep"``, a service the tests talk to) or are killed when the
command returns (``"kill"``); the harness kills them all at the end.
"""

from __future__ import annotations

import json
import os
import sys
import types


def _install_stub_packages(packages: dict[str, list[str]]) -> None:
    """Make ``codegym.*`` importable without running package ``__init__`` files."""
    for name in sorted(packages):
        module = types.ModuleType(name)
        module.__path__ = packages[name]
        module.__package__ = name
        sys.modules[name] = module


if __name__ == "__main__":
    _CONFIG = json.loads(sys.stdin.read())
    sys.path[:] = [path for path in sys.path if path != os.path.dirname(os.path.abspath(__file__))]
    _install_stub_packages(_CONFIG["packages"])

import contextlib  # noqa: E402
import ctypes  # noqa: E402
import fcntl  # noqa: E402
import importlib  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import stat  # noqa: E402
import struct  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

from codegym.executor import _linux as linux  # noqa: E402
from codegym.executor._wire import read_frame, write_frame  # noqa: E402

CONTROL_FD = -1  # (the config's ``control_fd``, set in `main`)
CHANNEL_FD = 3  # a command's copy of its verdict channel (the harness's reports), when asked for
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
# A container's root: what Docker leaves it by default (less NET_RAW and MKNOD).
ROOT_CAPABILITIES = (0, 1, 3, 4, 5, 6, 7, 8, 10, 18, 29, 31)  # chown dac_override fowner fsetid kill setgid
# setuid setpcap net_bind_service sys_chroot audit_write setfcap
# Refused with EPERM rather than killed: tools probe for them (unshare(1), a browser's sandbox).
REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "sethostname", "setdomainname")
DENIED = (
    "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
    "open_by_handle_at", "name_to_handle_at", "acct", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "syslog", "iopl", "ioperm", "quotactl", "fanotify_init", "fsopen", "fsmount", "fsconfig",
    "move_mount", "open_tree", "fspick", "mount_setattr", "lookup_dcookie", "vhangup",
)  # fmt: skip
TRACING = ("ptrace", "process_vm_readv", "process_vm_writev")  # (gdb, strace: refused where not allowed)
READ_SIZE = 1 << 16
_libc = ctypes.CDLL(None, use_errno=True)
_IFF_UP = 0x1
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914


def seccomp_program(*, tracing: bool) -> bytes:
    """The deny list of a box's commands: kernel-wide and namespace calls refused, io_uring
    and clone3 reported missing, ``clone`` with namespace flags refused; ``tracing``: let
    gdb and strace work (the agent's box), else refuse them (the verifier's)."""
    table = linux._SYSCALLS
    eperm = (linux._RET_K, 0, 0, linux._RET_ERRNO | linux._EPERM)
    ops = linux._native_syscall_number()
    for name in (*REFUSED, *(() if tracing else TRACING)):
        ops += [(linux._JEQ_K, 0, 1, table[name]), eperm]
    for name in DENIED:
        if name in table:
            ops += [(linux._JEQ_K, 0, 1, table[name]), (linux._RET_K, 0, 0, linux._RET_ERRNO | linux._EPERM)]
    for name in linux.UNSUPPORTED:
        ops += [(linux._JEQ_K, 0, 1, table[name]), (linux._RET_K, 0, 0, linux._RET_ERRNO | linux._ENOSYS)]
    ops += [
        (linux._JEQ_K, 0, 3, table["clone"]),
        (linux._LD_W_ABS, 0, 0, linux._OFFSET_ARG0_LOW),
        (linux._JSET_K, 0, 1, linux.NAMESPACE_FLAGS),
        eperm,
        (linux._RET_K, 0, 0, linux._RET_ALLOW),
    ]
    return linux._assemble(ops)


# --- building the box (real root) -----------------------------------------------------------------


def launch(config: dict[str, Any]) -> None:
    """The launcher: make the namespaces, start the init, give it its uid maps and cgroup,
    and wait for it (its status is ours)."""
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    # (opened first: once in another user namespace, /proc of the host's processes is not ours to read)
    net = os.open(config["net"], os.O_RDONLY | os.O_CLOEXEC) if config["net"] != "new" else None
    if config.get("user"):  # (`userns`: another box's network is joined from its own user namespace)
        _join(config["user"], linux.CLONE_NEWUSER)
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)
    elif config.get("userns"):
        _enter_identity_namespace()
    _own_upper(config)
    if net is not None:
        linux.setns(net, linux.CLONE_NEWNET)
        os.close(net)
    flags = linux.CLONE_NEWPID | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
    linux.unshare(flags | (linux.CLONE_NEWNET if config["net"] == "new" else 0))
    ask_r, ask_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ask_r)
        os.close(go_w)
        Init(config, ask_w, go_r).start()
    os.close(ask_w)
    os.close(go_r)
    os.close(CONTROL_FD)
    if os.read(ask_r, 1) == b"u":  # the init has entered its user namespace: map it
        base, count = config["id_base"], config["id_count"]
        linux._write_file(f"/proc/{pid}/uid_map", f"0 {base} {count}")
        linux._write_file(f"/proc/{pid}/gid_map", f"0 {base} {count}")
        os.write(go_w, b"g")
    os.close(go_w)
    _, status = os.waitpid(pid, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _join(path: str, kind: int) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        linux.setns(fd, kind)
    finally:
        os.close(fd)


def _enter_identity_namespace() -> None:
    """(`userns` tier.) Enter a user namespace that maps every id ours maps to itself (on the
    host: all of them), in which we hold the capabilities to make the box's mount, pid, net,
    ipc and uts namespaces and mounts. A child still outside writes the maps."""
    maps = {kind: _identity_map(kind) for kind in ("uid", "gid")}

    def write(parent: int) -> None:
        for kind, text in maps.items():
            linux._write_file(f"/proc/{parent}/{kind}_map", text)

    _enter_user_namespace(write, "root with CAP_SETUID is needed")


def _identity_map(kind: str) -> str:
    """Each range of ids our user namespace maps (``kind``: uid or gid), mapped to itself."""
    with open(f"/proc/self/{kind}_map") as handle:
        rows = [line.split() for line in handle if line.strip()]
    return "".join(f"{inside} {inside} {count}\n" for inside, _, count in rows)


def _enter_owner_namespace(base: int, count: int) -> None:
    """(A plain user's box server.) Enter a user namespace in which we are root over our own
    uid and gid (as 0) and over the boxes' ids (``base``.. as themselves, which the machine's
    /etc/subuid and /etc/subgid grant us): Debian's newuidmap and newgidmap, run by a child
    still outside, write the maps."""
    own = {"uid": os.getuid(), "gid": os.getgid()}

    def write(parent: int) -> None:
        for kind, inside in own.items():
            tool = f"new{kind}map"
            argv = [tool, str(parent), "0", str(inside), "1", str(base), str(base), str(count)]
            pid = os.fork()
            if pid == 0:
                try:
                    os.execvp(tool, argv)
                finally:
                    os._exit(127)
            if os.waitpid(pid, 0)[1] != 0:
                raise OSError(f"{' '.join(argv)} failed")

    _enter_user_namespace(write, f"newuidmap, newgidmap and /etc/subuid, /etc/subgid granting {base}:{count}")


def _enter_user_namespace(write_maps: Callable[[int], None], needs: str) -> None:
    """Unshare a user namespace; a child, still outside, maps it (``write_maps(our pid)``);
    then become its root."""
    ask_r, ask_w = os.pipe()
    done_r, done_w = os.pipe()
    parent = os.getpid()
    mapper = os.fork()
    if mapper == 0:
        code = 1
        try:
            os.close(ask_w)
            os.close(done_r)
            if os.read(ask_r, 1) == b"u":
                write_maps(parent)
                os.write(done_w, b"k")
                code = 0
        finally:
            os._exit(code)
    os.close(ask_r)
    os.close(done_w)
    linux.unshare(linux.CLONE_NEWUSER)
    os.write(ask_w, b"u")
    os.close(ask_w)
    mapped = os.read(done_r, 1) == b"k"
    os.close(done_r)
    os.waitpid(mapper, 0)
    if not mapped:
        raise OSError(f"could not map a user namespace ({needs})")
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)


def _own_upper(config: dict[str, Any]) -> None:
    """Give the episode's upper layer the owner and mode of the bottom layer's root (in the
    namespace that holds both: a plain user's harness cannot)."""
    uid, gid, mode = config["upper_owner"]
    os.chown(config["upper"], uid, gid)
    os.chmod(config["upper"], mode)


def join_cgroup(config: dict[str, Any]) -> None:
    for path in config.get("cgroup_procs", ()):
        linux._write_file(path, "0")  # "0": the writer itself


class Init:
    """pid 1 of the box: builds its root, then serves requests on the control socket."""

    def __init__(self, config: dict[str, Any], ask_w: int, go_r: int) -> None:
        self.config = config
        self.ask_w = ask_w
        self.go_r = go_r
        self.children: dict[int, int] = {}  # wait statuses of reaped children not yet asked for
        self.users: dict[str, tuple[int, int, list[int], str]] = {}

    def start(self) -> None:
        try:
            linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
            marks = [("start", time.monotonic())]
            join_cgroup(self.config)
            marks.append(("cgroup", time.monotonic()))
            self.build_root()
            marks.append(("root", time.monotonic()))
            self.enter_user_namespace()
            marks.append(("userns", time.monotonic()))
            linux.prctl(linux.PR_SET_DUMPABLE, 0)  # nothing inside may trace us or read our memory
            self.filters = {tracing: linux.SeccompFilter(seccomp_program(tracing=tracing)) for tracing in (False, True)}
            write_frame(CONTROL_FD, ("ready", {"pid": os.getpid(), "marks": marks}))
        except BaseException:
            with contextlib.suppress(OSError):
                write_frame(CONTROL_FD, ("crash", traceback.format_exc()))
            os._exit(1)
        self.serve()

    def build_root(self) -> None:
        config = self.config
        linux.unshare(linux.CLONE_NEWNS)  # (ours alone: pivot_root moves every process of its namespace)
        linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
        merged = config["merged"]
        lower = ":".join(config["layers"])
        options = f"lowerdir={lower},upperdir={config['upper']},workdir={config['work']}"
        if config.get("userns"):  # (inside a user namespace overlayfs keeps its marks in user.* xattrs)
            options += ",userxattr"
        linux.mount("overlay", merged, "overlay", 0, options)
        for module in config["modules"]:  # (before the host's files leave the view)
            importlib.import_module(module)
        self.mount_system(merged)
        for source, target, readonly in config["binds"]:
            path = _make_target(merged, target, directory=os.path.isdir(source))
            linux.bind(source, path, readonly=readonly)
        for target in config.get("readonly", ()):
            path = merged + target
            if os.path.isdir(path) and not os.path.islink(path):
                linux.bind(path, path, readonly=True)
        if config["net"] == "new":
            _loopback_up()
            _write_sysctl("net/ipv4/ip_unprivileged_port_start", "0")  # root inside binds port 80
        with contextlib.suppress(OSError):
            _write_sysctl("net/ipv4/ping_group_range", "0 65535")
        linux.sethostname(config["hostname"])
        os.chdir(merged)
        linux.pivot_root(".", ".")
        linux.umount(".")
        os.chdir("/")

    def mount_system(self, merged: str) -> None:
        """/proc of the box's pid namespace, a /dev of the harmless devices, /dev/pts, /dev/shm."""
        proc = _make_target(merged, "/proc", directory=True)
        try:
            linux.mount("proc", proc, "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        except PermissionError as e:  # (the kernel shows a user namespace no more of /proc than it sees)
            raise PermissionError(
                f"{e}: the kernel refuses the box a /proc of its own where parts of this machine's /proc are "
                "masked, as Docker masks them in a container: run it with `--security-opt systempaths=unconfined` "
                "as well as `--security-opt seccomp=unconfined` (or `--privileged`)"
            ) from e
        dev = _make_target(merged, "/dev", directory=True)
        linux.tmpfs(dev, 1 << 20, mode=0o755, flags=linux.MS_NOEXEC)
        linux.mount("none", dev, None, linux.MS_REMOUNT | linux.MS_NOSUID | linux.MS_NOEXEC, "size=1048576,mode=755")
        base = self.config["id_base"]
        os.chown(dev, base, base)
        for name in DEVICES:
            path = f"{dev}/{name}"
            with open(path, "w"):
                pass
            linux.bind(f"/dev/{name}", path, readonly=False, recursive=False)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2"), ("ptmx", "pts/ptmx")):  # fmt: skip
            os.symlink(target, f"{dev}/{name}")
        for name in ("pts", "shm", "mqueue"):
            os.mkdir(f"{dev}/{name}", 0o755)
        linux.mount("devpts", f"{dev}/pts", "devpts", linux.MS_NOSUID | linux.MS_NOEXEC,
                    "newinstance,ptmxmode=0666,mode=0620")  # fmt: skip
        linux.tmpfs(f"{dev}/shm", self.config["shm_bytes"], mode=0o1777)
        os.chown(f"{dev}/shm", base, base)
        linux.mount("mqueue", f"{dev}/mqueue", "mqueue", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)

    def enter_user_namespace(self) -> None:
        linux.unshare(linux.CLONE_NEWUSER)
        os.write(self.ask_w, b"u")
        if os.read(self.go_r, 1) != b"g":
            raise OSError("the launcher did not map the box's user namespace")
        os.close(self.ask_w)
        os.close(self.go_r)
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)

    # --- requests -------------------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            if not select.select([CONTROL_FD], [], [], 1.0)[0]:
                self.reap()
                continue
            try:
                request = read_frame(CONTROL_FD)
            except (EOFError, OSError):
                os._exit(0)  # the harness is gone: so is the box (we are its pid 1)
            kind, body = request
            try:
                reply = self.handle(kind, body)
            except BaseException:
                reply = ("error", traceback.format_exc())
            write_frame(CONTROL_FD, reply)

    def handle(self, kind: str, body: Any) -> tuple[str, Any]:
        if kind == "run":
            return ("done", self.run(body))
        if kind == "kill":
            self.kill_all()
            return ("done", {})
        if kind in ("stop", "continue"):  # (every process but us: a snapshot while nothing moves)
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGSTOP if kind == "stop" else signal.SIGCONT)
            return ("done", {})
        if kind == "processes":
            return ("done", {"pids": sorted(_processes())})
        if kind == "write":
            for path, content in body.items():
                _write_file(path, content)
            return ("done", {})
        if kind == "exit":
            self.kill_all()
            os._exit(0)
        raise ValueError(f"unknown request {kind!r}")

    def run(self, body: dict[str, Any]) -> dict[str, Any]:
        """One command: fork, confine, exec; read its output (capped) until it exits or its
        time is up, then kill its process group (on time-out) or every process (``kill``)."""
        out_r, out_w = os.pipe()
        channel = os.pipe() if body.get("channel") else None
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.close(out_r)
            if channel:
                os.close(channel[0])
            self.command(body, out_w, channel[1] if channel else None)
        os.close(out_w)
        if channel:
            os.close(channel[1])
        reader = _Reader(
            out_r, body["output_bytes"], channel[0] if channel else None, body.get("channel_bytes", 1 << 20)
        )
        status, timed_out = self.wait(pid, reader, started + body["timeout_s"])
        if timed_out:
            _kill_group(pid)
        left = 0
        if body.get("background") == "kill":
            left = self.stop_all(spared=pid if timed_out else None)
            self.kill_all()
        reader.drain()
        reader.close()
        exit_code = os.waitstatus_to_exitcode(status) if status is not None else None
        collected = _collect(body["collect"], body["collect_bytes"]) if body.get("collect") else None
        return {
            "collected": collected,
            "head": reader.head,
            "tail": bytes(reader.tail),
            "total": reader.total,
            "exit": None if exit_code is None or exit_code < 0 else exit_code,
            "signal": -exit_code if exit_code is not None and exit_code < 0 else None,
            "timed_out": timed_out,
            "background_killed": left,
            "elapsed_s": time.monotonic() - started,
            "channel": bytes(reader.channel),
            "channel_overflow": reader.channel_overflow,
        }

    def wait(self, pid: int, reader: _Reader, deadline: float) -> tuple[int | None, bool]:
        """Pump the output until ``pid`` exits (its status) or the deadline passes."""
        pidfd = os.pidfd_open(pid)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, True
                ready = select.select([pidfd, *reader.fds], [], [], left)[0]
                for fd in ready:
                    if fd != pidfd:
                        reader.read(fd)
                if pidfd in ready:
                    return self.reap(pid), False
        finally:
            os.close(pidfd)

    def reap(self, pid: int | None = None) -> int | None:
        """Reap every exited child (orphans among them); ``pid``'s status once it is reaped."""
        while True:
            try:
                reaped, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if reaped == 0:
                break
            self.children[reaped] = status
        if pid is None:
            self.children.clear()
            return None
        status = self.children.pop(pid, None)
        if status is None:  # (not yet: a child exits before its pidfd says so only in theory)
            _, status = os.waitpid(pid, 0)
        return status

    def stop_all(self, spared: int | None) -> int:
        """SIGSTOP every process of the box but us (so that none forks meanwhile), and count
        those still running: not zombies, nor of the process group ``spared`` (a command's
        that its time-out killed)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGSTOP)
        return sum(1 for pid in _processes() if _running(pid, spared))

    def kill_all(self) -> None:
        """SIGKILL every process of the box but us (as pid 1, kill(-1) spares only us), and reap."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        self.children.clear()

    def command(self, body: dict[str, Any], out_w: int, channel_w: int | None) -> None:
        """In the forked child: confine, then run the command (never returns)."""
        try:
            os.setsid()
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            null = os.open("/dev/null", os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            if channel_w is not None:
                os.dup2(channel_w, CHANNEL_FD)
            keep = 4 if channel_w is not None else 3
            os.closerange(keep, 1 << 16)
            for which, value in body.get("rlimits", ()):
                resource.setrlimit(which, (value, value))
            self.become(body.get("user") or "root")
            os.chdir(body.get("cwd") or "/")
            linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
            self.filters[bool(body.get("tracing"))].install()
            env = dict(body["env"])
            if "argv" in body:
                argv = body["argv"]
                os.execvpe(argv[0], argv, env)
            os.environ.clear()
            os.environ.update(env)
            module = sys.modules[body["module"]]
            output, code = module.run(body["args"], "/")
            sys.stdout.write(output)
            sys.stdout.flush()
            os._exit(code)
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.write(2, f"codegym: cannot start the command: {e}\n".encode())
            os._exit(126 if not isinstance(e, FileNotFoundError) else 127)

    def become(self, user: str) -> None:
        """Take ``user``'s uid, gid and groups (from the box's /etc/passwd and /etc/group) and
        the capabilities a container's process of that user has."""
        uid, gid, groups, _ = self.lookup(user)
        os.setgroups(groups)
        os.setresgid(gid, gid, gid)
        if uid == 0:
            _keep_capabilities(ROOT_CAPABILITIES)
        else:
            os.setresuid(uid, uid, uid)  # (which clears every capability)
            _keep_capabilities(())

    def lookup(self, user: str) -> tuple[int, int, list[int], str]:
        name, _, group = user.partition(":")
        passwd = _table("/etc/passwd")
        entry = next((row for row in passwd if row[0] == name or (name.isdigit() and row[2] == name)), None)
        if entry is None:
            if not name.isdigit():
                raise KeyError(f"no user {name!r} in the box's /etc/passwd")
            uid, gid, home, login = int(name), int(name), "/", name
        else:
            uid, gid, home, login = int(entry[2]), int(entry[3]), entry[5], entry[0]
        rows = _table("/etc/group")
        if group:
            found = next((row for row in rows if row[0] == group or row[2] == group), None)
            gid = int(found[2]) if found else int(group)
        groups = sorted({int(row[2]) for row in rows if login in row[3].split(",")} | {gid})
        return uid, gid, groups, home


class _Reader:
    """A command's output, capped: the first half of the bytes shown, and the last."""

    def __init__(self, fd: int, limit: int, channel: int | None, channel_limit: int) -> None:
        self.out = fd
        self.limit = limit
        self.head = b""
        self.tail = bytearray()
        self.total = 0
        self.channel_fd = channel
        self.channel = bytearray()
        self.channel_limit = channel_limit
        self.channel_overflow = False
        for descriptor in self.fds:
            fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_NONBLOCK)

    @property
    def fds(self) -> list[int]:
        return [fd for fd in (self.out, self.channel_fd) if fd is not None and fd >= 0]

    def read(self, fd: int) -> bool:
        """Read what is there; False once the pipe is closed or empty."""
        try:
            data = os.read(fd, READ_SIZE)
        except BlockingIOError:
            return False
        if not data:
            if fd == self.out:
                self.out = -1
            else:
                self.channel_fd = -1
            os.close(fd)
            return False
        if fd == self.channel_fd:
            if len(self.channel) + len(data) > self.channel_limit:
                self.channel_overflow = True
            else:
                self.channel += data
            return True
        self.total += len(data)
        half = self.limit // 2
        if len(self.head) < half:
            take = half - len(self.head)
            self.head += data[:take]
            data = data[take:]
        self.tail += data
        if len(self.tail) > self.limit - half:
            del self.tail[: len(self.tail) - (self.limit - half)]
        return True

    def drain(self) -> None:
        """Read what the pipes hold now (a background process may keep them open)."""
        for fd in self.fds:
            for _ in range(1024):
                if not self.read(fd):
                    break

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


def _collect(path: str, limit: int) -> bytes | None:
    """The regular file at ``path``, removed once read (a command's report, read after its
    processes are gone); None where there is none, it is no regular file (a link, a pipe that
    would block us), or it holds more than ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(READ_SIZE, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(path)
    return b"".join(chunks) if size <= limit else None


def _write_file(path: str, content: bytes) -> None:
    """Write ``content`` to ``path`` as root's file (mode 644), its missing folders made (755)."""
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, mode=0o755, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, 0o644)
    finally:
        os.close(fd)


def _table(path: str) -> list[list[str]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [line.rstrip("\n").split(":") for line in handle if line.count(":") >= 3]
    except OSError:
        return []


def _keep_capabilities(keep: tuple[int, ...]) -> None:
    """Bounding set, then effective, permitted and inheritable sets: ``keep`` alone."""
    for capability in range(64):
        if capability in keep:
            continue
        dropped = _libc.prctl(ctypes.c_int(linux.PR_CAPBSET_DROP), ctypes.c_ulong(capability), 0, 0, 0) == 0
        if not dropped and ctypes.get_errno() == 22:  # EINVAL: past the last capability this kernel knows
            break
    mask = 0
    for capability in keep:
        mask |= 1 << capability
    low, high = mask & 0xFFFFFFFF, mask >> 32
    header = struct.pack("=Ii", linux._CAPABILITY_VERSION_3, 0)
    data = struct.pack("=6I", low, low, 0, high, high, 0)
    number = linux._SYSCALLS["capset"]
    linux._check(_libc.syscall(ctypes.c_long(number), header, data), "capset")


def _make_target(merged: str, target: str, *, directory: bool) -> str:
    """``merged + target``, made (as an empty folder or file) where missing."""
    path = merged + target
    for depth in range(target.count("/")):  # (a link on the way would lead the mount off the box's tree)
        on_the_way = merged + "/".join(target.split("/")[: depth + 2])
        if os.path.islink(on_the_way):
            raise OSError(f"{target}: {on_the_way[len(merged) :]} is a symbolic link in the box's tree")
    if not os.path.lexists(path):
        if directory:
            os.makedirs(path, 0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
            with open(path, "w"):
                pass
    return path


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock.fileno(), _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | _IFF_UP))


def _write_sysctl(name: str, value: str) -> None:
    with open(f"/proc/sys/{name}", "w") as handle:
        handle.write(value)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _processes() -> set[int]:
    return {int(name) for name in os.listdir("/proc") if name.isdigit()} - {os.getpid()}


def _running(pid: int, spared: int | None) -> bool:
    """Whether process ``pid`` is there and not a zombie, nor of the process group ``spared``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state, _, group = f.read().rsplit(b")", 1)[1].split()[:3]
    except (OSError, ValueError):
        return False
    return state not in (b"Z", b"X") and int(group) != spared


def serve(sock: socket.socket, config: dict[str, Any]) -> None:
    """The box server: import the box's modules once, then, for each request (a box's config
    and its control socket), fork a launcher and answer with its pidfd. A box then costs a
    fork of this warm process, not an interpreter's start. A plain user's server first enters
    a user namespace of its own in which it holds the boxes' ids (`_enter_owner_namespace`);
    it also runs the harness's work on the boxes' files there (`_call`)."""
    global CONTROL_FD
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.geteuid() != 0:
        _enter_owner_namespace(config["id_base"], config["id_count"])
    # A box's init outlives its launcher by a moment: as its subreaper we take it in, and with
    # SIGCHLD ignored the kernel reaps it (and every launcher) at once: no zombie is left.
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    for module in config["modules"]:
        importlib.import_module(module)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 1)
        except OSError:
            os._exit(0)
        if not data or not fds:
            os._exit(0)  # the harness is gone
        request = json.loads(data)
        if "call" in request:  # (imported here, once: later calls fork with it warm)
            _install_stub_packages({k: v for k, v in request["packages"].items() if k not in sys.modules})
            importlib.import_module(request["call"][0])
        pid = os.fork()
        if pid == 0:
            sock.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            CONTROL_FD = fds[0]
            if "call" in request:
                _call(request["call"], CONTROL_FD)
            request["control_fd"] = CONTROL_FD
            _launch_or_report(request)
        os.close(fds[0])
        pidfd = os.pidfd_open(pid)
        socket.send_fds(sock, [b"p"], [pidfd])
        os.close(pidfd)


def _call(target: list[str], fd: int) -> None:
    """Run the harness's ``module.function(*args)`` (the arguments come on ``fd``, where the
    result or the traceback goes back) and exit."""
    try:
        module, name = target
        args = read_frame(fd)
        write_frame(fd, ("ok", getattr(importlib.import_module(module), name)(*args)))
    except BaseException:
        with contextlib.suppress(OSError):
            write_frame(fd, ("error", traceback.format_exc()))
    os._exit(0)


def _launch_or_report(config: dict[str, Any]) -> None:
    try:
        launch(config)
    except BaseException:
        with contextlib.suppress(OSError):
            write_frame(CONTROL_FD, ("crash", traceback.format_exc()))
        traceback.print_exc()  # (the launcher has closed the socket: the harness reads stderr)
    os._exit(1)


def main() -> None:
    config = _CONFIG
    sock = socket.socket(fileno=config["server_fd"])
    serve(sock, config)


if __name__ == "__main__":
    main()
