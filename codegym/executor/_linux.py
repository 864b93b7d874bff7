"""Linux primitives the local sandbox is built from: namespaces, mounts, seccomp, rlimits.

Thin ctypes wrappers over libc, so that a warm Python worker can isolate a freshly forked
child in well under a millisecond instead of starting a new process per job. Stdlib only:
this module is loaded inside the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import struct

_libc = ctypes.CDLL(None, use_errno=True)

CLONE_VM = 0x00000100
CLONE_PARENT = 0x00008000
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWCGROUP = 0x02000000
NAMESPACE_FLAGS = (
    CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP
)

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24
MNT_DETACH = 2
# A bind's flags that a user namespace locks (it may not loosen them): statvfs bit, mount flag.
_LOCKED_FLAGS = (
    (os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME),
)  # fmt: skip

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
_CAPABILITY_VERSION_3 = 0x20080522
CAP_SYS_ADMIN = 21


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(ctypes.c_int(fd), ctypes.c_int(nstype)), "setns")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {source} on {target}",
    )


def bind(source: str, target: str, *, readonly: bool = True, recursive: bool = True) -> None:
    """Bind ``source`` on ``target``; read-only binds need a second, remounting call, which
    keeps the flags of the source's mount that a user namespace would not let it drop."""
    mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    if readonly:
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | kept_flags(target)
        mount("none", target, None, flags)


def kept_flags(path: str) -> int:
    """The flags of the mount at ``path`` that a remount must repeat: nosuid, nodev, noexec
    and its atime mode (in a user namespace, these are locked as the outer mount has them)."""
    found = os.statvfs(path).f_flag
    flags = 0
    for bit, flag in _LOCKED_FLAGS:
        if found & bit:
            flags |= flag
    return flags if flags & (MS_NOATIME | MS_RELATIME) else flags | MS_STRICTATIME


def tmpfs(target: str, size_bytes: int, *, mode: int = 0o755, flags: int = 0) -> None:
    mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | flags, f"size={size_bytes},mode={mode:o}")


def move(source: str, target: str) -> None:
    """Move the mount at ``source`` (with what is mounted below it) to ``target``."""
    mount(source, target, None, MS_MOVE)


def umount(target: str) -> None:
    _check(_libc.umount2(target.encode(), ctypes.c_int(MNT_DETACH)), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYSCALLS["pivot_root"]
    _check(_libc.syscall(ctypes.c_long(number), new_root.encode(), put_old.encode()), "pivot_root")


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), 0, 0, 0), f"prctl({option})")


def set_name(name: str) -> None:
    """The process name ``ps`` and ``perf`` show (15 bytes at most)."""
    _check(_libc.prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0), "prctl(PR_SET_NAME)")


_KEEPER_STACK = ctypes.create_string_buffer(1 << 14)  # pause() needs a few words of it


def spawn_address_space_keeper() -> int:
    """Start a sibling that shares this process's address space and sleeps in ``pause()``.

    While the keeper lives, this process's exit (or exec) only drops a reference to its
    address space instead of tearing it down, which for a forked interpreter costs tens of
    microseconds per megabyte; the teardown happens when the keeper is killed, off the
    path of whoever waits for this process. ``CLONE_PARENT`` makes the keeper a child of
    our parent, so this process never sees it among its children.

    The keeper sleeps in libc's ``pause`` with every signal blocked, so only SIGKILL ends
    it. It inherits this process's credentials, no_new_privs and seccomp filter (callers
    give it their rlimits too): a submission that rewrites the code it sleeps in, which it
    can since the memory is shared, gains a process no freer than a fork of its own.
    Returns the keeper's pid (in our pid namespace).
    """
    top = (ctypes.addressof(_KEEPER_STACK) + len(_KEEPER_STACK)) & ~0xF
    flags = CLONE_VM | CLONE_PARENT | signal.SIGCHLD
    old = ctypes.c_uint64()
    _sigprocmask(_SIG_SETMASK, ctypes.c_uint64((1 << 64) - 1), old)  # raw: glibc would keep two
    try:
        pid = _libc.clone(_PAUSE, ctypes.c_void_p(top), ctypes.c_int(flags), None)
        errno = ctypes.get_errno()
    finally:
        _sigprocmask(_SIG_SETMASK, old, None)
    if pid < 0:
        raise OSError(errno, f"clone(CLONE_VM): {os.strerror(errno)}")
    return pid


_PAUSE = ctypes.cast(_libc.pause, ctypes.c_void_p)
_SIG_SETMASK = 2


def _sigprocmask(how: int, mask: ctypes.c_uint64, old: ctypes.c_uint64 | None) -> None:
    number = _SYSCALLS["rt_sigprocmask"]
    result = _libc.syscall(
        ctypes.c_long(number), ctypes.c_int(how), ctypes.byref(mask), ctypes.byref(old) if old is not None else None, 8
    )
    _check(result, "rt_sigprocmask")


def write_id_maps(pid: int | str, uid_map: str, gid_map: str) -> None:
    """Write the uid and gid maps of ``pid``'s user namespace ("self": our own, which then
    also gives up setgroups, as an unprivileged map requires)."""
    if pid == "self":
        _write_file("/proc/self/setgroups", "deny")
    _write_file(f"/proc/{pid}/uid_map", uid_map)
    _write_file(f"/proc/{pid}/gid_map", gid_map)


def _write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def drop_capabilities(*, keep: int | None = None) -> None:
    """Give up every capability, for good: the bounding set, then the effective, permitted
    and inheritable sets (which clears the ambient one). ``keep``: a capability (a number,
    as `CAP_SYS_ADMIN`) kept effective and permitted, but out of the bounding set."""
    for capability in range(64):
        if _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(capability), 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    clear_capabilities(keep=keep)


def clear_capabilities(*, keep: int | None = None) -> None:
    """Clear the effective, permitted and inheritable sets (and so the ambient one) but
    ``keep``, effective and permitted (needs no capability)."""
    header = struct.pack("=Ii", _CAPABILITY_VERSION_3, 0)
    kept = 0 if keep is None else 1 << keep  # (the capabilities below 32: the first record)
    data = struct.pack("=6I", kept, kept, 0, 0, 0, 0)  # two records of (effective, permitted, inheritable)
    number = _SYSCALLS["capset"]
    _check(_libc.syscall(ctypes.c_long(number), header, data), "capset")


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_libc.sethostname(data, ctypes.c_size_t(len(data))), "sethostname")


# --- Landlock ----------------------------------------------------------------------------

_LANDLOCK_CREATE_RULESET = 444  # (the same numbers on x86_64 and aarch64)
_LANDLOCK_ADD_RULE = 445
_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1
# File system rights, by the ABI version that introduced them.
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_RIGHTS = {1: (1 << 13) - 1, 2: 1 << 13, 3: 1 << 14, 5: 1 << 15}  # v1: bits 0-12; REFER, TRUNCATE, IOCTL_DEV
_FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 14, 1 << 15
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)  # abstract unix sockets, signals (ABI 6)


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none)."""
    return max(0, _create_ruleset(None, _LANDLOCK_CREATE_RULESET_VERSION))


def _create_ruleset(attr: bytes | None, flags: int = 0) -> int:
    """landlock_create_ruleset(2): a ruleset's descriptor (or, with the version flag, the
    ABI version); negative where the kernel refuses."""
    size = ctypes.c_size_t(len(attr) if attr else 0)
    return int(_libc.syscall(ctypes.c_long(_LANDLOCK_CREATE_RULESET), attr, size, ctypes.c_uint32(flags)))


def _restrict_self(ruleset: int) -> int:
    return int(_libc.syscall(ctypes.c_long(_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)))


def landlock(readable: list[str], writable: list[str], *, read_only: tuple[str, ...] = ()) -> int:
    """Confine this process (and what it starts) with Landlock: read and execute beneath
    ``readable`` (folders or files; device nodes and /proc may be written too, as the
    kernel's own checks allow, but those in ``read_only``, which may only be read; a folder
    named with a trailing "/" may only be listed, as may the folders beneath it),
    everything beneath ``writable``; no other path, no TCP (ABI 4), and neither signals nor
    abstract unix sockets that reach outside (ABI 6). Needs no_new_privs first. Returns the
    ABI version enforced."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    handled = sum(bits for version, bits in _FS_RIGHTS.items() if version <= abi)
    attr = struct.pack("=QQQ", handled, _NET_TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    attr = attr[: 8 if abi < 4 else 16 if abi < 6 else 24]
    ruleset = _create_ruleset(attr)
    if ruleset < 0:
        _check(-1, "landlock_create_ruleset")
    try:
        for path in readable:
            rights = FS_EXECUTE | FS_READ_FILE | (FS_READ_DIR if os.path.isdir(path) else 0)
            if path.endswith("/"):  # a folder to list, and what is beneath it to list
                rights = FS_READ_DIR
            elif path in read_only:
                rights = FS_READ_FILE
            elif path.startswith("/dev/"):  # a device node: read, write, truncate, ioctl
                rights = (FS_READ_FILE | FS_WRITE_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV) & handled
            elif path == "/proc":  # one's own files there too (oom_score_adj): the kernel's checks rule
                rights |= (FS_WRITE_FILE | _FS_TRUNCATE) & handled
            _landlock_rule(ruleset, path, rights)
        for path in writable:
            _landlock_rule(ruleset, path, handled)
        _check(_restrict_self(ruleset), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


# What of /proc a `container` tier step reads besides its own /proc/<pid>: files about the
# machine, none about another process (see `StepLandlock`).
PROC_SHARED = ("cpuinfo", "meminfo", "stat", "loadavg", "uptime", "version", "filesystems", "sys")
KEEP_OPEN = 1 << 63  # (in a `StepLandlock.rules` entry's rights: its descriptor stays open)


class StepLandlock:
    """The Landlock layer each step of the `container` tier adds to the fork server's (which
    lets the fork server read every process's /proc files, as it must): it restricts only
    reading and listing, to what the fork server's layer lets a step read (``readable``,
    ``writable``, but for /proc), the `PROC_SHARED` files, and the step's own /proc/<pid>
    ("/proc/self", opened by the step, so its real path: the processes a step starts read
    only the shared files), and, from ABI 6, scopes signals and abstract unix sockets: none
    reaches a process outside the step's domain (the fork server's helpers, which take the
    steps' uid to signal them). So no step lists /proc or reads another process's files
    there (the container's other processes: workers, their supervisors, the trainer).

    Made once in the fork server; `rules` and `attr` are what `_forkcore.prepare` takes,
    `restrict_self` is the same in Python."""

    def __init__(self, readable: list[str], writable: list[str]) -> None:
        abi = landlock_abi()
        rights = FS_READ_FILE | FS_READ_DIR
        size = 8 if abi < 4 else 16 if abi < 6 else 24  # (struct landlock_ruleset_attr as the kernel knows it)
        self.attr = struct.pack("=QQQ", rights, 0, _SCOPES if abi >= 6 else 0)[:size]
        entries: list[tuple[str, int]] = []
        for path in [*readable, *writable, *(f"/proc/{name}" for name in PROC_SHARED)]:
            if path == "/proc" or not os.path.exists(path):
                continue
            listed = path.endswith("/") or os.path.isdir(path)
            entries.append((path, FS_READ_DIR if path.endswith("/") else FS_READ_FILE | (FS_READ_DIR if listed else 0)))
        # Kept open (by the step's keeper, which lives as long as the step): the rule holds
        # the inode of its /proc/<pid> entry, which procfs makes anew once its dentry is dropped.
        entries.append(("/proc/self", rights | KEEP_OPEN))
        self.entries = entries
        self.rules = b"".join(struct.pack("=Q", r) + p.encode() + b"\0" for p, r in entries)

    def restrict_self(self) -> None:
        """Add this layer to the calling process (`_forkcore.prepare` does the same)."""
        ruleset = _create_ruleset(self.attr)
        if ruleset < 0:
            _check(-1, "landlock_create_ruleset")
        try:
            for path, rights in self.entries:
                _landlock_rule(ruleset, path, rights & ~KEEP_OPEN, keep_open=bool(rights & KEEP_OPEN))
            _check(_restrict_self(ruleset), "landlock_restrict_self")
        finally:
            os.close(ruleset)


def _landlock_rule(ruleset: int, path: str, rights: int, *, keep_open: bool = False) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = struct.pack("=Qi", rights, fd)  # struct landlock_path_beneath_attr (packed)
        result = _libc.syscall(
            ctypes.c_long(_LANDLOCK_ADD_RULE),
            ctypes.c_int(ruleset),
            ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
            rule,
            ctypes.c_uint32(0),
        )
        _check(0 if result == 0 else -1, f"landlock_add_rule {path}")
    finally:
        if not keep_open:
            os.close(fd)


# --- seccomp -----------------------------------------------------------------------------

# Syscalls a submission never needs and that only serve to escape, spy or disturb the host.
# Calling one kills the process (reported as SEC).
DENIED = (
    "ptrace", "mount", "umount2", "pivot_root", "unshare", "setns", "chroot", "swapon",
    "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "userfaultfd", "process_vm_readv", "process_vm_writev", "open_by_handle_at",
    "name_to_handle_at", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "syslog", "iopl", "ioperm", "quotactl", "fanotify_init", "fsopen", "fsmount", "fsconfig",
    "move_mount", "open_tree", "fspick", "mount_setattr", "lookup_dcookie", "vhangup",
    "sethostname", "setdomainname",
)  # fmt: skip
# Syscalls that runtimes probe and fall back from: fail them quietly with ENOSYS.
UNSUPPORTED = ("io_uring_setup", "io_uring_enter", "io_uring_register", "clone3")
# System V IPC and POSIX message queues: their objects live in the IPC namespace, not in a
# process. Where a worker cannot give each step a namespace of its own (the `container` tier
# shares the container's with every worker), they fail with EPERM.
SYSV_IPC = (
    "shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl", "semtimedop",
    "msgget", "msgsnd", "msgrcv", "msgctl",
)  # fmt: skip
POSIX_MQUEUE = ("mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr")
# Memory that RLIMIT_DATA does not count: shared anonymous mappings, memfds and System V
# segments and messages. Where no cgroup counts it, they fail with EPERM (``mmap`` only with
# MAP_SHARED and MAP_ANONYMOUS: a shared mapping of a file is bounded by the file's size,
# and /dev/zero, whose shared mappings are anonymous ones, is then out of the view).
SHARED_MEMORY = ("memfd_create", "shmget", "msgget", "semget")
MAP_SHARED = 0x01  # (MAP_SHARED_VALIDATE, 0x03, has it too)
MAP_ANONYMOUS = 0x20

_TABLES = {
    "x86_64": {
        "ptrace": 101, "mount": 165, "umount2": 166, "pivot_root": 155, "unshare": 272,
        "setns": 308, "chroot": 161, "swapon": 167, "swapoff": 168, "reboot": 169,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "bpf": 321, "perf_event_open": 298, "keyctl": 250,
        "add_key": 248, "request_key": 249, "userfaultfd": 323, "process_vm_readv": 310,
        "process_vm_writev": 311, "open_by_handle_at": 304, "name_to_handle_at": 303,
        "acct": 163, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305,
        "adjtimex": 159, "syslog": 103, "iopl": 172, "ioperm": 173, "quotactl": 179,
        "fanotify_init": 300, "fsopen": 430, "fsmount": 432, "fsconfig": 431,
        "move_mount": 429, "open_tree": 428, "fspick": 433, "mount_setattr": 442,
        "lookup_dcookie": 212, "vhangup": 153, "sethostname": 170, "setdomainname": 171,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "clone": 56, "clone3": 435, "fork": 57, "vfork": 58, "socket": 41, "connect": 42, "socketpair": 53,
        "rt_sigprocmask": 14, "capset": 126,
        "prlimit64": 302, "setpriority": 141, "sched_setaffinity": 203, "sched_setscheduler": 144,
        "sched_setparam": 142, "sched_setattr": 314, "ioprio_set": 251,
        "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66,
        "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "mq_open": 240,
        "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
        "mq_getsetattr": 245, "mmap": 9, "memfd_create": 319,
    },
    "aarch64": {
        "ptrace": 117, "mount": 40, "umount2": 39, "pivot_root": 41, "unshare": 97,
        "setns": 268, "chroot": 51, "swapon": 224, "swapoff": 225, "reboot": 142,
        "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "bpf": 280, "perf_event_open": 241, "keyctl": 219,
        "add_key": 217, "request_key": 218, "userfaultfd": 282, "process_vm_readv": 270,
        "process_vm_writev": 271, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "acct": 89, "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266,
        "adjtimex": 171, "syslog": 116, "quotactl": 60, "fanotify_init": 262, "fsopen": 430,
        "fsmount": 432, "fsconfig": 431, "move_mount": 429, "open_tree": 428, "fspick": 433,
        "mount_setattr": 442, "lookup_dcookie": 18, "vhangup": 58, "sethostname": 161,
        "setdomainname": 162, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "clone": 220, "clone3": 435, "socket": 198, "connect": 203, "socketpair": 199,
        "rt_sigprocmask": 135,
        "capset": 91, "prlimit64": 261, "setpriority": 140, "sched_setaffinity": 122,
        "sched_setscheduler": 119, "sched_setparam": 118, "sched_setattr": 274, "ioprio_set": 30,
        "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197, "semget": 190, "semop": 193,
        "semctl": 191, "semtimedop": 192, "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187,
        "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184,
        "mq_getsetattr": 185, "mmap": 222, "memfd_create": 279,
    },
}  # fmt: skip
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_MACHINE = platform.machine()
_SYSCALLS = _TABLES.get(_MACHINE, {})

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_ENOSYS = 38
_EACCES = 13
_EPERM = 1
_AF_UNIX = 1
_SOCK_DGRAM = 2
_SOCK_TYPE_MASK = 0xF  # (socket types; the flags SOCK_NONBLOCK and SOCK_CLOEXEC lie above)
_X32_SYSCALL_BIT = 0x40000000

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_ALU_AND_K = 0x54
_RET_K = 0x06
_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0_LOW = 16  # args[0], low 32 bits on a little-endian machine
_OFFSET_ARG1_LOW = 24
_OFFSET_ARG3_LOW = 40
# Calls that act on another process named by pid (args[0]); refused (EPERM) for pid 1, the
# fork server, which in the `userns` tier may share the submission's user: it must not be
# able to lower its limits or its priority, or move it to a busy CPU.
PID_CALLS = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr")
# (which, who) calls: refused for every process of a user (which == for_user), and for pid 1.
WHO_CALLS = {"setpriority": (0, 2), "ioprio_set": (1, 3)}  # name: (which: a process, which: a user)
FORK_SERVER_PID = 1


Ops = list[tuple[int, int, int, int]]  # sock_filter records: code, jt, jf, k


def seccomp_program(*, new_ipc: bool = False, refuse_ipc: bool = False, refuse_shared_memory: bool = False) -> bytes:
    """Assemble the classic-BPF deny-list filter as raw ``sock_filter`` records.

    Denied syscalls kill the process; ``clone`` asking for new namespaces is denied too.
    Sockets are left to `socket_program`, a second filter on top of this one.

    ``new_ipc``: ``unshare(CLONE_NEWIPC)`` alone is let through (each step's process enters
    an IPC namespace of its own before it drops its privileges; the kernel refuses it to a
    process without CAP_SYS_ADMIN, as every submission is). ``refuse_ipc``: `SYSV_IPC` and
    `POSIX_MQUEUE` fail with EPERM. ``refuse_shared_memory``: `SHARED_MEMORY` and ``mmap``
    with MAP_SHARED and MAP_ANONYMOUS fail with EPERM.
    """
    table = _SYSCALLS
    ops = _native_syscall_number()
    if new_ipc:
        ops += [
            (_JEQ_K, 0, 4, table["unshare"]),
            (_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW),
            (_JEQ_K, 0, 1, CLONE_NEWIPC),
            (_RET_K, 0, 0, _RET_ALLOW),
            (_RET_K, 0, 0, _RET_KILL_PROCESS),
        ]
    refused = (*(SYSV_IPC + POSIX_MQUEUE if refuse_ipc else ()), *(SHARED_MEMORY if refuse_shared_memory else ()))
    for name in dict.fromkeys(refused):
        ops += [(_JEQ_K, 0, 1, table[name]), (_RET_K, 0, 0, _RET_ERRNO | _EPERM)]
    if refuse_shared_memory:
        ops += [
            (_JEQ_K, 0, 5, table["mmap"]),
            (_LD_W_ABS, 0, 0, _OFFSET_ARG3_LOW),  # flags
            (_JSET_K, 0, 2, MAP_SHARED),
            (_JSET_K, 0, 1, MAP_ANONYMOUS),
            (_RET_K, 0, 0, _RET_ERRNO | _EPERM),
            (_LD_W_ABS, 0, 0, _OFFSET_NR),
        ]
    for name in DENIED:
        if name in table:
            ops.append((_JEQ_K, 0, 1, table[name]))  # equal: fall through to the kill
            ops.append((_RET_K, 0, 0, _RET_KILL_PROCESS))
    for name in UNSUPPORTED:
        ops.append((_JEQ_K, 0, 1, table[name]))
        ops.append((_RET_K, 0, 0, _RET_ERRNO | _ENOSYS))
    ops += _other_process_rules(table)
    # clone(flags, ...): refuse any namespace flag.
    ops.append((_JEQ_K, 0, 3, table["clone"]))
    ops.append((_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW))
    ops.append((_JSET_K, 0, 1, NAMESPACE_FLAGS))
    ops.append((_RET_K, 0, 0, _RET_KILL_PROCESS))
    ops.append((_RET_K, 0, 0, _RET_ALLOW))
    return _assemble(ops)


def _other_process_rules(table: dict[str, int]) -> Ops:
    """Refuse `PID_CALLS` and `WHO_CALLS` aimed at the fork server or at a whole user.
    Each rule loads arguments, so it ends by loading the syscall number again."""
    deny = (_RET_K, 0, 0, _RET_ERRNO | _EPERM)
    reload = (_LD_W_ABS, 0, 0, _OFFSET_NR)
    ops: Ops = []
    for name in PID_CALLS:
        ops += [
            (_JEQ_K, 0, 4, table[name]),
            (_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW),
            (_JEQ_K, 0, 1, FORK_SERVER_PID),
            deny,
            reload,
        ]
    for name, (a_process, a_user) in WHO_CALLS.items():
        ops += [
            (_JEQ_K, 0, 7, table[name]),
            (_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW),  # which
            (_JEQ_K, 3, 0, a_user),  # to the refusal
            (_JEQ_K, 0, 3, a_process),  # to the reload
            (_LD_W_ABS, 0, 0, _OFFSET_ARG1_LOW),  # who
            (_JEQ_K, 0, 1, FORK_SERVER_PID),
            deny,
            reload,
        ]
    return ops


def socket_program(sockets: str, *, unix: bool = True) -> bytes:
    """The filter of a sockets policy, installed on top of `seccomp_program`'s (the stricter
    answer of the two wins). Sockets other than AF_UNIX kill the process (``"kill"``: a
    network attempt is reported as such) or fail with EACCES (``"errno"``: for runtimes such
    as the JVM that open one at start-up). Either way the network namespace has no
    interface to reach.

    Without ``unix`` (the `container` tier: no network or mount namespace, so the machine's
    unix sockets, by path or abstract name, are the container's), a step reaches no socket
    outside itself: ``connect`` fails with EACCES, and so does making a datagram unix socket
    (``socket`` or ``socketpair``: it could ``sendto`` any path). Stream and seqpacket ones,
    which reach nothing unconnected, stay: runtimes use them among their own processes, and
    Chromium binds one in its profile folder."""
    if sockets not in ("kill", "errno"):
        raise ValueError(f"sockets must be 'kill' or 'errno', got {sockets!r}")
    refuse = (_RET_K, 0, 0, _RET_ERRNO | _EACCES)
    allow = (_RET_K, 0, 0, _RET_ALLOW)
    datagram = [  # (the type in args[1], with SOCK_NONBLOCK and SOCK_CLOEXEC above it)
        (_LD_W_ABS, 0, 0, _OFFSET_ARG1_LOW),
        (_ALU_AND_K, 0, 0, _SOCK_TYPE_MASK),
        (_JEQ_K, 0, 1, _SOCK_DGRAM),
        refuse,
    ]
    ops = _native_syscall_number()
    if not unix:
        ops += [
            (_JEQ_K, 0, 1, _SYSCALLS["connect"]),
            refuse,
            (_JEQ_K, 0, 5, _SYSCALLS["socketpair"]),
            *datagram,
            allow,
        ]
    ops += [
        (_JEQ_K, 0, 3 if unix else 7, _SYSCALLS["socket"]),
        (_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW),
        (_JEQ_K, 1, 0, _AF_UNIX),
        (_RET_K, 0, 0, _RET_KILL_PROCESS if sockets == "kill" else _RET_ERRNO | _EACCES),
        *([] if unix else datagram),  # (AF_UNIX)
        allow,
    ]
    return _assemble(ops)


CLONE_THREAD = 0x00010000


def no_processes_program(*, threads: bool) -> bytes:
    """A filter that kills the process (SIGSYS) at its first try to start another
    (``clone`` without ``CLONE_THREAD``, ``fork``, ``vfork``), or a thread unless ``threads``.
    For a metered run (`codegym.meter`): work done in a process or thread the meter does
    not count must not pass for speed, and a program that ignores a refused ``fork`` (EAGAIN)
    would pass or fail its tests by a race; a kill is the same every run. It binds root as
    well (RLIMIT_NPROC does not)."""
    refuse = (_RET_K, 0, 0, _RET_KILL_PROCESS)
    ops = _native_syscall_number()
    for name in ("fork", "vfork"):
        if name in _SYSCALLS:
            ops += [(_JEQ_K, 0, 1, _SYSCALLS[name]), refuse]
    if threads:
        ops += [
            (_JEQ_K, 0, 3, _SYSCALLS["clone"]),
            (_LD_W_ABS, 0, 0, _OFFSET_ARG0_LOW),
            (_JSET_K, 1, 0, CLONE_THREAD),  # a thread: allowed
            refuse,
        ]
    else:
        ops += [(_JEQ_K, 0, 1, _SYSCALLS["clone"]), refuse]
    ops.append((_RET_K, 0, 0, _RET_ALLOW))
    return _assemble(ops)


def _native_syscall_number() -> Ops:
    """The start of every filter: kill a syscall of another ABI, load the syscall number."""
    if _MACHINE not in _AUDIT_ARCH:
        raise OSError(f"no seccomp syscall table for machine {_MACHINE!r}")
    ops: Ops = [
        (_LD_W_ABS, 0, 0, _OFFSET_ARCH),
        (_JEQ_K, 1, 0, _AUDIT_ARCH[_MACHINE]),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _OFFSET_NR),
    ]
    if _MACHINE == "x86_64":
        ops += [(_JGE_K, 0, 1, _X32_SYSCALL_BIT), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    return ops


def _assemble(ops: Ops) -> bytes:
    return b"".join(struct.pack("=HBBI", *op) for op in ops)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class SeccompFilter:
    """A filter program prepared once (in the worker) and installed per job in microseconds."""

    def __init__(self, program: bytes) -> None:
        self.program = program  # (struct sock_filter records)
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // 8, ctypes.cast(self._buffer, ctypes.c_void_p))

    def install(self) -> None:
        """Load the filter for this process and its descendants (needs no_new_privs first)."""
        result = _libc.prctl(
            ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(self._fprog), 0, 0
        )
        _check(result, "seccomp")
