"""An on-disk store of file-system layers: Debian bases, and what commands and copies add to them.

A layer is a directory in overlayfs' upper format; a stack is a tuple of layers, top first (the
order of overlay's ``lowerdir``). The store keeps each layer under ``<root>/layers/<sha256>/``,
named by a hash of everything that made it (the layers below, the command, its environment, the
files copied), so asking twice for the same layer builds it once, and two stacks that start
alike share their first layers. A layer is built in ``<root>/tmp/`` and renamed into place (a
crash leaves no half layer); a lock file per key makes a second process wait for the first's
build instead of repeating it.

Ownership is shifted, as rootless containers store it: inside uid (gid) N is host ``ID_BASE + N``
on disk, for N below ``ID_COUNT``. A sandbox that maps inside 0..65535 onto host
``ID_BASE..`` sees every file with its image's owner, and no file of a layer is owned by a host
user.

Commands run in a build sandbox: a private mount namespace in which real root mounts the
overlay (the stack below, a fresh upper directory above), a minimal ``/dev`` (a tmpfs, not kept)
and the host's ``/etc/resolv.conf`` and ``/etc/hosts`` read-only; then the
command runs chrooted in it, in new user (inside 0..65535 is host ``ID_BASE..``), mount and pid
namespaces, with the host's network (package registries reachable). When it is done (and with
it every process of its pid namespace) the upper directory is the new layer. ``/tmp`` and
``/run`` stay the image's, as in a Docker build: a ``COPY`` to ``/tmp`` that a later ``RUN``
reads is common in Dockerfiles.

Whiteouts, as found on Linux 6.x: a file deleted over a lower layer is a character device 0/0
in the upper directory (owned by host root: the overlay's mounter makes it); a directory
removed and made again is opaque, marked by the ``trusted.overlay.opaque`` xattr when real
root mounted the overlay, but by ``user.overlay.opaque`` when the overlay is mounted inside a
user namespace (the ``userxattr`` option, which ignores ``trusted.*``). The device whiteouts
work in both; so each finished layer's opaque directories carry both xattrs, and the other
``trusted.overlay.*`` xattrs (origin, impure: facts about the mount that made them) are
dropped. ``tests/executor/test_layers.py`` checks a deletion and an opaque directory both ways.

Building needs root (debootstrap, uid maps onto host ids, overlay mounts); using a built store
needs whatever the episode sandbox needs.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import io
import json
import os
import select
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from codegym.error import SandboxError
from codegym.executor.images import debian_mirror

ID_BASE = 1_000_000_000
ID_COUNT = 65536
RECIPE_VERSION = 1  # bump when what a base, run or add layer holds changes for the same key
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LOG_TAIL_BYTES = 64 * 1024
_ADD_POINT = "/dev/.codegym-add"  # in the sandbox's own /dev (a tmpfs): never in a layer
_CA_POINT = "/dev/.codegym-ca.crt"
_CA_VARIABLES = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
                 "NODE_EXTRA_CA_CERTS")  # fmt: skip
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "no_proxy", "all_proxy")
_OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")
_CAPS = "security.capability"
# What the sandbox child runs (python -c): the namespaces and mounts of one build step.
_BOX = "import sys; from codegym.executor.layers import _box_main; _box_main(sys.argv[1])"


class BuildFailed(SandboxError):
    """A build step's command failed: its argv, exit status and the tail of its log."""

    def __init__(self, argv: Sequence[str], status: int, log: str) -> None:
        self.argv = tuple(argv)
        self.status = status
        self.log = log
        what = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        super().__init__(f"build step {list(argv)!r} failed ({what}); its log ends:\n{log[-4000:]}")


@dataclass(frozen=True)
class FileEntry:
    """One file (or, with ``data`` None, directory) that `LayerStore.add` copies."""

    data: bytes | None
    mode: int = 0o644


def default_root() -> str:
    """``$CODEGYM_TERMINAL_STORE`` (a store root filled, which plain users share), else
    ``$CODEGYM_CACHE/terminal``, else ``~/.cache/codegym/terminal``."""
    if os.environ.get("CODEGYM_TERMINAL_STORE"):
        return os.environ["CODEGYM_TERMINAL_STORE"]
    base = os.environ.get("CODEGYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return os.path.join(base, "terminal")


def digest(*parts: object) -> str:
    """The sha256 of ``parts`` as canonical JSON (a layer's key)."""
    return hashlib.sha256(json.dumps([RECIPE_VERSION, *parts], sort_keys=True).encode()).hexdigest()


class LayerStore:
    """Layers on disk under ``root`` (`default_root` when None); see the module docstring.

    Every method returns a layer's path, ``<root>/layers/<key>``; a stack is a tuple of such
    paths, top first. ``builds`` counts the layers this object built (a cached layer is not
    built again).
    """

    def __init__(self, root: str | None = None, *, log: Callable[[str], None] | None = None) -> None:
        self.root = os.path.abspath(root or default_root())
        self.log = log
        self.builds = 0

    def path(self, key: str) -> str:
        return os.path.join(self.root, "layers", key)

    def has(self, key: str) -> bool:
        return os.path.isdir(self.path(key))

    def base(self, suite: str, packages: tuple[str, ...] = ()) -> str:
        """A Debian ``suite`` (bookworm, trixie) bootstrapped (minbase) with ``packages``."""
        key = digest("base", suite, sorted(set(packages)))
        return self._ensure(key, lambda layer: _bootstrap(layer, suite, tuple(sorted(set(packages)))))

    def run(
        self,
        stack: tuple[str, ...],
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        workdir: str = "/",
        user: tuple[int, int] = (0, 0),
        network: bool = True,
        timeout_s: float = 1800.0,
    ) -> str:
        """The layer of what ``argv`` changes over ``stack``, run as inside ``user`` (uid, gid)
        in ``workdir`` with exactly ``env`` (PATH defaulted as Docker does). Raises `BuildFailed`."""
        env = {"PATH": DEFAULT_PATH, **(env or {})}
        key = digest("run", _keys(stack), list(argv), env, workdir, list(user), network)

        def build(layer: str) -> None:
            binds, extra = _host_trust() if network else ({}, {})
            _box(self.root, stack, layer, argv, env={**extra, **env}, workdir=workdir, user=user, network=network,
                 timeout_s=timeout_s, log=self._log_path(key), say=self.log, binds=binds)  # fmt: skip

        return self._ensure(key, build)

    def add(
        self,
        stack: tuple[str, ...],
        files: Mapping[str, FileEntry] | str,
        dest: str,
        *,
        chown: tuple[int, int] | None = None,
        chmod: int | None = None,
        unpack: bool = False,
    ) -> str:
        """A layer holding ``files`` copied into the directory ``dest`` (made when missing).

        ``files``: relative path -> `FileEntry`, or a host folder whose contents are copied.
        ``chown`` (inside uid, gid; default root) and ``chmod`` apply to every entry; with
        ``unpack`` each file that is a tar archive (plain or compressed) is unpacked into
        ``dest`` instead, as Docker's ``ADD`` does with a local archive.
        """
        entries = _read_folder(files) if isinstance(files, str) else dict(files)
        content = sorted(
            (name, entry.mode, None if entry.data is None else hashlib.sha256(entry.data).hexdigest())
            for name, entry in entries.items()
        )
        key = digest("add", _keys(stack), content, dest, chown, chmod, unpack)

        def build(layer: str) -> None:
            stage = os.path.join(os.path.dirname(layer), "stage")
            _stage(stage, entries, chown=chown or (0, 0), chmod=chmod, unpack=unpack)
            script = 'set -e; mkdir -p "$1"; cd "$2"; for f in * .[!.]* ..?*; do '
            script += 'if [ -e "$f" ] || [ -h "$f" ]; then cp -a "$f" "$1"/; fi; done'
            argv = ["/bin/sh", "-c", script, "sh", dest, _ADD_POINT]
            _box(self.root, stack, layer, argv, env={"PATH": DEFAULT_PATH}, workdir="/", user=(0, 0), network=False,
                 timeout_s=600.0, log=self._log_path(key), say=self.log, binds={stage: _ADD_POINT})  # fmt: skip

        return self._ensure(key, build)

    def check(
        self,
        stack: tuple[str, ...],
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        workdir: str = "/",
        user: tuple[int, int] = (0, 0),
        userxattr: bool = False,
        timeout_s: float = 120.0,
    ) -> tuple[int, str]:
        """Run ``argv`` over ``stack`` mounted read-only, without network, keeping nothing: its exit
        status and output. ``userxattr``: mount the overlay inside the user namespace, as a sandbox
        without real root does (the layers must then read the same)."""
        _require_root()
        os.makedirs(os.path.join(self.root, "tmp"), exist_ok=True)
        work = tempfile.mkdtemp(prefix="check-", dir=os.path.join(self.root, "tmp"))
        merged, empty = os.path.join(work, "merged"), os.path.join(work, "empty")
        for path in (work, merged, empty):
            os.makedirs(path, exist_ok=True)
            os.chmod(path, 0o755)
        # A read-only overlay needs two lower layers: an empty one goes below a stack of one.
        lower = [os.path.abspath(s) for s in stack] + ([empty] if len(stack) == 1 else [])
        spec = {
            "lower": lower, "upper": None, "merged": merged, "argv": list(argv),
            "env": {"PATH": DEFAULT_PATH, **(env or {})}, "workdir": workdir, "user": list(user),
            "network": False, "binds": {}, "userxattr": userxattr,
        }  # fmt: skip
        try:
            return run_spec(spec, timeout_s=timeout_s)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _log_path(self, key: str) -> str:
        return os.path.join(self.root, "logs", f"{key}.log")

    def _ensure(self, key: str, build: Callable[[str], None]) -> str:
        final = self.path(key)
        if os.path.isdir(final):
            return final
        _require_root()
        for sub in ("layers", "tmp", "locks", "logs"):
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)
        with _locked(os.path.join(self.root, "locks", f"{key}.lock")):
            if os.path.isdir(final):  # another process built it while we waited
                return final
            for stale in glob.glob(os.path.join(self.root, "tmp", f"{key[:16]}-*")):  # a crashed build's
                shutil.rmtree(stale, ignore_errors=True)
            work = os.path.join(self.root, "tmp", f"{key[:16]}-{uuid.uuid4().hex[:8]}")
            os.makedirs(work)
            try:
                layer = os.path.join(work, "layer")
                build(layer)
                _finish(layer)
                os.rename(layer, final)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        self.builds += 1
        if self.log is not None:
            self.log(f"built layer {key[:12]}")
        return final


def is_empty(layer: str) -> bool:
    """Whether ``layer`` changes nothing (its root holds no entry)."""
    return not os.listdir(layer)


def _keys(stack: tuple[str, ...]) -> list[str]:
    return [os.path.basename(layer.rstrip("/")) for layer in stack]


def _require_root() -> None:
    if os.geteuid() != 0:
        raise SandboxError(
            "building a terminal environment's layers needs root (debootstrap, overlay mounts and uid maps "
            "onto host ids 1000000000..): run the import as root once (e.g. `sudo codegym terminal import "
            "DIR`) with the same CODEGYM_CACHE; the built layers can then be used"
        )


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


# -- bases ---------------------------------------------------------------------------------


def _bootstrap(layer: str, suite: str, packages: tuple[str, ...]) -> None:
    if shutil.which("debootstrap") is None:
        raise SandboxError("building a Debian base needs debootstrap (apt-get install debootstrap)")
    if not os.path.exists(f"/usr/share/debootstrap/scripts/{suite}"):
        raise SandboxError(f"this debootstrap does not know the Debian suite {suite!r}; upgrade debootstrap")
    command = ["debootstrap", "--variant=minbase"]
    if packages:
        command.append(f"--include={','.join(packages)}")
    command += [suite, layer, debian_mirror()]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildFailed(command, done.returncode, done.stdout[-8000:] + done.stderr[-8000:])
    for leftover in ("var/cache/apt/archives", "var/lib/apt/lists", "debootstrap"):
        path = os.path.join(layer, leftover)
        shutil.rmtree(path, ignore_errors=True)
        if leftover != "debootstrap":
            os.makedirs(os.path.join(path, "partial"), exist_ok=True)
    for name in ("etc/resolv.conf", "etc/hosts"):  # mount points for the host's (read-only)
        path = os.path.join(layer, name)
        if os.path.lexists(path):
            os.unlink(path)
        with open(path, "w"):
            pass
    shift_ownership(layer)


def shift_ownership(tree: str) -> None:
    """Shift every entry's owner of ``tree`` from inside ids to host ``ID_BASE + id`` (ids
    already shifted stay), keeping setuid/setgid bits and file capabilities (which chown drops)."""
    _shift(tree)
    for folder, dirs, files in os.walk(tree):
        for name in dirs + files:
            _shift(os.path.join(folder, name))


def _shift(path: str) -> None:
    info = os.lstat(path)
    if info.st_uid >= ID_COUNT and info.st_gid >= ID_COUNT:
        return
    uid = info.st_uid + ID_BASE if info.st_uid < ID_COUNT else info.st_uid
    gid = info.st_gid + ID_BASE if info.st_gid < ID_COUNT else info.st_gid
    regular = stat.S_ISREG(info.st_mode)
    caps = _getxattr(path, _CAPS) if regular else None
    os.lchown(path, uid, gid)
    if not stat.S_ISLNK(info.st_mode) and info.st_mode & (stat.S_ISUID | stat.S_ISGID):
        os.chmod(path, stat.S_IMODE(info.st_mode))
    if caps is not None:
        os.setxattr(path, _CAPS, _caps_v3(caps))


def _caps_v3(value: bytes) -> bytes:
    """A file capability as a user namespace rooted at ``ID_BASE`` honours it (v3, with rootid)."""
    magic = int.from_bytes(value[:4], "little")
    if magic >> 24 == 3:
        return value
    body = value[4:20] if len(value) >= 20 else value[4:].ljust(16, b"\0")
    return ((3 << 24) | (magic & 0xFFFFFF)).to_bytes(4, "little") + body + ID_BASE.to_bytes(4, "little")


def _getxattr(path: str, name: str) -> bytes | None:
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError:
        return None


def _finish(layer: str) -> None:
    """Make an upper directory a layer that works under both mounts (see the module docstring)."""
    for folder, dirs, files in os.walk(layer):
        for name in [".", *dirs, *files]:
            path = os.path.normpath(os.path.join(folder, name))
            names = [] if os.path.islink(path) else os.listxattr(path, follow_symlinks=False)
            if any(n in _OPAQUE for n in names):
                for attribute in _OPAQUE:
                    os.setxattr(path, attribute, b"y", follow_symlinks=False)
            for attribute in names:
                if attribute.startswith("trusted.overlay.") and attribute not in _OPAQUE:
                    os.removexattr(path, attribute, follow_symlinks=False)


# -- add -------------------------------------------------------------------------------------


def _read_folder(folder: str) -> dict[str, FileEntry]:
    if not os.path.isdir(folder):
        raise SandboxError(f"files to add: {folder!r} is not a folder")
    entries: dict[str, FileEntry] = {}
    for current, dirs, files in os.walk(folder):
        for name in dirs:
            path = os.path.join(current, name)
            entries[os.path.relpath(path, folder)] = FileEntry(None, stat.S_IMODE(os.stat(path).st_mode))
        for name in files:
            path = os.path.join(current, name)
            with open(path, "rb") as handle:
                entries[os.path.relpath(path, folder)] = FileEntry(handle.read(), stat.S_IMODE(os.stat(path).st_mode))
    return entries


def _stage(
    stage: str, entries: Mapping[str, FileEntry], *, chown: tuple[int, int], chmod: int | None, unpack: bool
) -> None:
    os.makedirs(stage)
    for name, entry in sorted(entries.items()):
        target = os.path.normpath(os.path.join(stage, name.lstrip("/")))
        if not target.startswith(stage + os.sep):
            raise SandboxError(f"file to add {name!r} is outside its destination")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if entry.data is None:
            os.makedirs(target, exist_ok=True)
            os.chmod(target, chmod if chmod is not None else entry.mode)
        elif unpack and _is_archive(target, entry.data):
            continue
        else:
            with open(target, "wb") as handle:
                handle.write(entry.data)
            os.chmod(target, chmod if chmod is not None else entry.mode)
    os.chmod(stage, 0o755)
    for current, dirs, files in os.walk(stage):
        for name in dirs + files:
            os.lchown(os.path.join(current, name), ID_BASE + chown[0], ID_BASE + chown[1])
    os.lchown(stage, ID_BASE, ID_BASE)


def _is_archive(target: str, data: bytes) -> bool:
    """Unpack ``data`` into ``target``'s folder when it is a tar archive (compressed or not)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(os.path.dirname(target), filter="data")
    except tarfile.TarError:
        return False
    return True


# -- the build sandbox -----------------------------------------------------------------------


def _host_trust() -> tuple[dict[str, str], dict[str, str]]:
    """What a build step with the network gets of the host's way out: its CA bundle (a host that
    reaches the registries through a TLS-inspecting proxy trusts that proxy's CA; the image does
    not), bound at `_CA_POINT` and named by the variables pip, requests, curl, git and node read,
    and its proxy variables. Neither is in the layer's key, nor in the layer."""
    env = {name: value for name, value in os.environ.items() if name.lower() in _PROXY_VARIABLES}
    bundle = os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt"
    if not os.path.isfile(bundle):
        return {}, env
    env.update({name: _CA_POINT for name in _CA_VARIABLES})
    return {bundle: _CA_POINT}, env


def _box(
    root: str,
    stack: tuple[str, ...],
    layer: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    workdir: str,
    user: tuple[int, int],
    network: bool,
    timeout_s: float,
    log: str,
    say: Callable[[str], None] | None,
    binds: Mapping[str, str] | None = None,
) -> None:
    """Run ``argv`` over ``stack`` with ``layer`` as the overlay's upper directory."""
    if not stack:
        raise SandboxError("a build step needs a stack with a base layer below it")
    work = os.path.join(os.path.dirname(layer), "work")
    merged = os.path.join(os.path.dirname(layer), "merged")
    for path in (layer, work, merged):
        os.makedirs(path, exist_ok=True)
    for path in (layer, work):
        os.chown(path, ID_BASE, ID_BASE)
    os.chmod(layer, 0o755)
    spec = {
        "lower": [os.path.abspath(s) for s in stack], "upper": layer, "work": work, "merged": merged,
        "argv": list(argv), "env": dict(env), "workdir": workdir, "user": list(user), "network": network,
        "binds": dict(binds or {}), "userxattr": False,
    }  # fmt: skip
    status, tail = run_spec(spec, timeout_s=timeout_s, log=log)
    if say is not None:
        say(f"ran {list(argv)!r}: status {status}")
    if status != 0:
        raise BuildFailed(argv, status, tail)


def run_spec(spec: Mapping[str, object], *, timeout_s: float, log: str | None = None) -> tuple[int, str]:
    """Run one sandboxed command described by ``spec`` (see `_box_main`); its exit status (minus
    the signal that killed it) and the last `LOG_TAIL_BYTES` of its output (the whole log in ``log``)."""
    command = [sys.executable, "-c", _BOX, json.dumps(spec)]
    environment = {"PATH": DEFAULT_PATH, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=environment, start_new_session=True)  # fmt: skip
    tail = bytearray()
    deadline = time.monotonic() + timeout_s
    sink = open(log, "wb") if log else None  # noqa: SIM115
    assert process.stdout is not None
    try:
        os.set_blocking(process.stdout.fileno(), False)
        while True:
            chunk = _read_some(process.stdout.fileno(), deadline)
            if chunk is None:
                os.killpg(process.pid, 9)
                process.wait()
                return -9, tail.decode(errors="replace") + f"\n[timed out after {timeout_s:.0f} s]"
            if not chunk:
                break
            tail += chunk
            del tail[:-LOG_TAIL_BYTES]
            if sink is not None and sink.tell() < 64 * LOG_TAIL_BYTES:
                sink.write(chunk)
        return process.wait(), tail.decode(errors="replace")
    finally:
        process.stdout.close()
        if sink is not None:
            sink.close()
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait()


def _read_some(fd: int, deadline: float) -> bytes | None:
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            try:
                return os.read(fd, 65536)
            except BlockingIOError:
                continue


def _box_main(encoded: str) -> None:
    """The sandbox process (real root): see the module docstring. Exits with the command's status."""
    from codegym.executor import _linux

    spec = json.loads(encoded)
    # Paths relative to one folder, the working directory: the overlay's options stay short, and
    # a mount made inside the user namespace reaches the layers even below a folder (``/root``)
    # that host ID_BASE may not search.
    named = [*spec["lower"], spec["merged"], *([spec["upper"], spec["work"]] if spec.get("upper") else [])]
    here = os.path.commonpath(named)
    os.chdir(here)
    for name in ("upper", "work", "merged"):
        if spec.get(name):
            spec[name] = os.path.relpath(spec[name], here)
    spec["lower"] = [os.path.relpath(path, here) for path in spec["lower"]]
    _linux.unshare(_linux.CLONE_NEWNS)
    _linux.mount("none", "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
    if not spec["userxattr"]:
        _prepare_root(spec)
    ready_r, ready_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(ready_r)
        os.close(mapped_w)
        _linux.prctl(_linux.PR_SET_PDEATHSIG, 9)
        _linux.unshare(_linux.CLONE_NEWUSER)
        os.write(ready_w, b"1")
        os.read(mapped_r, 1)
        _enter(spec)
    os.close(ready_w)
    os.close(mapped_r)
    os.read(ready_r, 1)
    ids = f"0 {ID_BASE} {ID_COUNT}\n"
    _linux.write_id_maps(child, ids, ids)
    os.write(mapped_w, b"1")
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _enter(spec: dict) -> None:  # type: ignore[type-arg]
    """In the new user namespace: new mount and pid namespaces, then the command as pid 1's child."""
    from codegym.executor import _linux

    try:
        os.setgid(0)
        os.setuid(0)
        flags = _linux.CLONE_NEWNS | _linux.CLONE_NEWPID | (0 if spec["network"] else _linux.CLONE_NEWNET)
        _linux.unshare(flags)
        if spec["userxattr"]:
            _linux.mount("none", "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
            _prepare_root(spec)
        pid = os.fork()
        if pid == 0:
            _exec(spec)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    except BaseException as e:  # report, then exit: this is a forked child
        os.write(2, f"codegym build sandbox: {e}\n".encode())
        os._exit(125)


def _exec(spec: dict) -> None:  # type: ignore[type-arg]
    from codegym.executor import _linux

    try:
        # the working directory is the root to be (`_prepare_root`): no host folder is looked up
        _linux.mount("proc", "proc", "proc", _linux.MS_NOSUID | _linux.MS_NODEV | _linux.MS_NOEXEC)
        os.chroot(".")
        os.chdir(spec["workdir"])
        uid, gid = spec["user"]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        _linux.prctl(_linux.PR_SET_PDEATHSIG, 9)
        os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
    except BaseException as e:  # likewise
        os.write(2, f"codegym build sandbox: cannot run {spec['argv']!r}: {e}\n".encode())
        os._exit(126 if not isinstance(e, FileNotFoundError) else 127)


def _prepare_root(spec: dict) -> None:  # type: ignore[type-arg]
    """Mount the overlay at ``merged`` with /dev, DNS and the extra binds; enter it (the working directory)."""
    from codegym.executor import _linux

    merged = spec["merged"]
    options = "lowerdir=" + ":".join(spec["lower"])
    if spec.get("upper"):
        options += f",upperdir={spec['upper']},workdir={spec['work']}"
    if spec["userxattr"]:
        options += ",userxattr"
    _linux.mount("overlay", merged, "overlay", 0 if spec.get("upper") else _linux.MS_RDONLY, options)
    dev = os.path.join(merged, "dev")
    # tmpfs owners are read in the mounter's user namespace: inside root is host ID_BASE from outside.
    owner = 0 if spec["userxattr"] else ID_BASE
    _linux.mount("tmpfs", dev, "tmpfs", _linux.MS_NOSUID, f"size=1m,mode=755,uid={owner},gid={owner}")
    for name in ("null", "zero", "full", "random", "urandom", "tty"):
        with open(os.path.join(dev, name), "w"):
            pass
        _linux.bind(f"/dev/{name}", os.path.join(dev, name), readonly=False, recursive=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2"), ("ptmx", "pts/ptmx")):  # fmt: skip
        os.symlink(target, os.path.join(dev, name))
    for name in ("shm", "pts"):
        os.mkdir(os.path.join(dev, name))
    flags = _linux.MS_NOSUID | _linux.MS_NODEV
    _linux.mount("tmpfs", os.path.join(dev, "shm"), "tmpfs", flags, f"size=64m,mode=1777,uid={owner},gid={owner}")
    for name in ("etc/resolv.conf", "etc/hosts"):
        path = os.path.join(merged, name)
        if os.path.isfile(path) and not os.path.islink(path) and os.path.exists(f"/{name}"):
            _linux.bind(f"/{name}", path, readonly=True, recursive=False)
    for source, point in spec["binds"].items():
        target = os.path.join(merged, point.lstrip("/"))
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        else:
            with open(target, "w"):
                pass
        _linux.bind(source, target, readonly=True, recursive=os.path.isdir(source))
    os.chdir(merged)


def main(argv: list[str] | None = None) -> None:
    """``python -m codegym.executor.layers base SUITE [PACKAGE ...]``: build (once) a Debian base
    in the default store (``$CODEGYM_CACHE/terminal``) and print its path."""
    parser = argparse.ArgumentParser(prog="python -m codegym.executor.layers")
    parser.add_argument("command", choices=("base",))
    parser.add_argument("suite", help="bookworm or trixie")
    parser.add_argument("packages", nargs="*", help="Debian packages to include")
    parser.add_argument("--root", default=None, help="the store (default: $CODEGYM_CACHE/terminal)")
    args = parser.parse_args(argv)
    print(LayerStore(args.root).base(args.suite, tuple(args.packages)))


if __name__ == "__main__":
    main()
