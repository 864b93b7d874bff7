"""The verifier: a task's tests run on a frozen copy of the agent's files, out of the agent's reach.

At ``submit`` (or when the agent's time is up) the episode's files are copied out of its box
(its upper layer: exactly what the agent changed). `sanitize` takes back from that copy what
would let it judge itself, so the pristine environment shows through:

- the verifier's toolchain: any change under the interpreters' library folders
  (``/usr/lib/python3*``, ``/usr/local/lib/python3*``, ``~/.local/lib/python3*``), and any
  change to a file the pristine image has under ``/usr/bin``, ``/usr/sbin``, ``/usr/lib``,
  ``/usr/local/bin`` ... (a replaced ``python3``, ``pytest``, ``bash``, C library), and a new
  command that would shadow a pristine one on the ``PATH``;
- ``/etc/ld.so.preload`` and the loader's configuration, ``sitecustomize``/``usercustomize``
  modules and ``.pth`` files anywhere, ``conftest.py`` outside the tests' folder, pytest
  configuration at the root;
- ``/logs`` (a ``reward.txt`` written ahead), the tests' folder, codegym's tool state;
- any change to the image's files only the tests use (hidden fixtures: expected answers the
  agent could otherwise write its own of), and to a folder above one that would hide it.

Then `run_verifier` makes a fresh box over (codegym's verdict plugin, the sanitized copy,
the environment's layers), with the tests bound read-only at the task's tests folder (they
never were in the agent's view), ``/usr`` read-only, an empty read-only
``/etc/ld.so.preload``, no ptrace, a clean environment, and the task's test command with a
verdict channel the init reads. The agent's processes are dead by then, or, for a task whose
tests talk to a service the agent left running, live on in their own box: the verifier's box
shares only its network namespace (loopback), never its files or processes.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegym.envs.terminal import verdict

from codegym.executor.rootbox import (
    ID_BASE,
    BoxSpec,
    CommandResult,
    Isolation,
    RootBox,
    as_owner,
    is_opaque,
    is_whiteout,
    make_folders,
    remove_tree,
    run_root,
)  # fmt: skip

PLUGIN_FOLDER = "/.codegym-verifier"
PLUGIN_MODULE = "codegym_verdict"
REWARD_FILES = ("reward.txt", "reward.json")
# Changes to these (and below them) are dropped whatever they are: the interpreters' libraries.
DROPPED = ("usr/lib/python3*", "usr/local/lib/python3*", "root/.local/lib/python3*", "home/*/.local/lib/python3*",
           "etc/ld.so.preload", "etc/ld.so.conf", "etc/ld.so.conf.d", "etc/ld.so.cache", "logs", ".codegym",
           "codegym-verifier", ".codegym-verifier", "proc", "dev", "sys", "solution")  # fmt: skip
# Under these, a change to a file the pristine environment has is dropped (new files stay).
RESTORED = ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "usr/libexec", "usr/local/bin", "usr/local/sbin",
            "usr/local/lib", "bin", "sbin", "lib", "lib64")  # fmt: skip
PATH_FOLDERS = ("usr/local/sbin", "usr/local/bin", "usr/sbin", "usr/bin", "sbin", "bin")
DROPPED_NAMES = ("sitecustomize.py", "usercustomize.py", "*.pth", "sitecustomize.*.so", "usercustomize.*.so")
ROOT_CONFIG = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "conftest.py")
VERIFIER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class VerifierRun:
    """What one run of a task's tests gave.

    Attributes:
        result: The test command's run (its output is the harness's to show or not).
        channel: The verdict plugin's lines (see `codegym.envs.terminal.verdict`).
        reward_file: What the command left in ``/logs/verifier/reward.txt`` (or ``.json``),
            if anything: read only for a task whose tests are not pytest's.
        removed: What `sanitize` took back from the agent's files (box paths).
    """

    result: CommandResult
    channel: bytes
    reward_file: str | None
    removed: tuple[str, ...] = ()


def plugin_layer(root: str | None = None) -> str:
    """The layer holding the verdict plugin (made once, by content hash)."""
    source = Path(verdict.__file__).read_bytes()
    key = hashlib.sha256(b"codegym-verdict-layer/1\0" + source).hexdigest()
    base = Path(root or os.path.join(os.path.dirname(run_root()), "harness"))
    layer = base / key
    if layer.is_dir():
        return str(layer)
    base.mkdir(parents=True, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    as_owner(_write_plugin, partial, source)
    try:
        os.rename(partial, layer)
    except OSError:  # made meanwhile by another process
        remove_tree(partial)
    return str(layer)


def _write_plugin(partial: str, source: bytes) -> None:
    folder = Path(partial) / PLUGIN_FOLDER.lstrip("/")
    folder.mkdir()
    (folder / f"{PLUGIN_MODULE}.py").write_bytes(source)
    for path in (Path(partial), folder, folder / f"{PLUGIN_MODULE}.py"):
        os.chown(path, ID_BASE, ID_BASE)
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


# --- the agent's files, taken back where they would judge themselves ------------------------------


def sanitize(snapshot: str, layers: Sequence[str], tests_dir: str, fixtures: Sequence[str] = ()) -> tuple[str, ...]:
    """Remove from ``snapshot`` (an upper layer: the agent's changes) what the verifier must
    not see (see the module docstring) and any change to the tests' ``fixtures`` (files of
    the image only the tests use: the agent may not write its own expected answers there);
    returns the removed box paths, sorted."""
    removed: list[str] = []
    tests = tests_dir.strip("/")
    kept = tuple(path.strip("/") for path in fixtures)
    for relative, is_dir in list(_walk(snapshot)):
        path = os.path.join(snapshot, relative)
        if not os.path.lexists(path):
            continue  # (under a folder removed already)
        if _should_drop(relative, is_dir, path, layers, tests) or _touches(relative, is_dir, path, kept):
            _remove(path)
            removed.append("/" + relative)
    return tuple(sorted(removed))


def _walk(top: str) -> Iterator[tuple[str, bool]]:
    """``(relative path, is a real folder)`` of everything under ``top``, parents first."""
    for folder, names, files in os.walk(top):
        relative_folder = os.path.relpath(folder, top)
        for name in names + files:
            relative = name if relative_folder == "." else f"{relative_folder}/{name}"
            full = os.path.join(folder, name)
            yield relative, os.path.isdir(full) and not os.path.islink(full)


def _should_drop(relative: str, is_dir: bool, path: str, layers: Sequence[str], tests: str) -> bool:
    name = os.path.basename(relative)
    if relative == tests or relative.startswith(tests + "/"):
        return True
    if any(fnmatch.fnmatch(relative, pattern) for pattern in DROPPED):
        return True
    if not is_dir and any(fnmatch.fnmatch(name, pattern) for pattern in DROPPED_NAMES):
        return True
    if name == "conftest.py" or ("/" not in relative and name in ROOT_CONFIG):
        return True
    if is_whiteout(path) or not is_dir or is_opaque(path):
        if _under(relative, RESTORED) and _in_pristine(relative, layers):
            return True
        if _shadows_a_command(relative, layers):
            return True
        if _above_protected(relative):  # (a folder of the toolchain replaced or removed whole)
            return True
    return False


def _touches(relative: str, is_dir: bool, path: str, fixtures: Sequence[str]) -> bool:
    """Whether an entry changes a fixture: at or under one, or a folder above one replaced
    or removed (which would hide it)."""
    if _under(relative, fixtures):
        return True
    above = any(f.startswith(relative + "/") for f in fixtures)
    return above and (not is_dir or is_whiteout(path) or is_opaque(path))


def _under(relative: str, folders: Sequence[str]) -> bool:
    return any(relative == f or relative.startswith(f + "/") for f in folders)


def _above_protected(relative: str) -> bool:
    protected = (*RESTORED, "usr", "usr/local", "etc")
    return any(f == relative or f.startswith(relative + "/") for f in protected)


def _in_pristine(relative: str, layers: Sequence[str]) -> bool:
    for layer in layers:
        path = os.path.join(layer, relative)
        if os.path.lexists(path):
            return not is_whiteout(path)
    return False


def _shadows_a_command(relative: str, layers: Sequence[str]) -> bool:
    folder, name = os.path.split(relative)
    if folder not in PATH_FOLDERS:
        return False
    return any(_in_pristine(f"{other}/{name}", layers) for other in PATH_FOLDERS if other != folder)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


# --- the run ------------------------------------------------------------------------------------


def run_verifier(
    layers: Sequence[str],
    tests: Mapping[str, bytes],
    command: Sequence[str],
    *,
    tests_dir: str = "/tests",
    workdir: str = "/",
    env: Mapping[str, str] | None = None,
    snapshot: str | None = None,
    net_of: RootBox | None = None,
    timeout_s: float = 600.0,
    executables: Sequence[str] = (),
    memory_bytes: int | None = None,
    toolchain: Sequence[str] = (),
    fixtures: Sequence[str] = (),
    isolation: Isolation | None = None,
    launcher: tuple[str, ...] = (),
) -> VerifierRun:
    """Run ``command`` (the task's test command) over ``snapshot`` (the agent's files, an
    upper layer; None: the pristine environment) on ``layers``, with ``tests`` at
    ``tests_dir`` and the verifier's own ``toolchain`` layers (uv and the tests' wheels, where
    a task's tests install them) over the agent's files; ``fixtures``: the image's files only
    the tests use, restored as they were; see the module docstring."""
    with _scratch() as scratch:
        removed: tuple[str, ...] = ()
        if snapshot is not None:
            removed = as_owner(sanitize, snapshot, tuple(layers), tests_dir, tuple(fixtures))
        as_owner(_lay_out, str(scratch), dict(tests), tuple(executables))
        logs = scratch / "logs"
        stack = (plugin_layer(), *toolchain, *((snapshot,) if snapshot else ()), *layers)
        binds = ((str(scratch / "tests"), tests_dir, True), (str(logs), "/logs/verifier", False),
                 (str(scratch / "ld.so.preload"), "/etc/ld.so.preload", True))  # fmt: skip
        spec = BoxSpec(layers=stack, binds=binds, readonly=("/usr",), hostname="codegym-verifier",
                       **({"memory_bytes": memory_bytes} if memory_bytes else {}))  # fmt: skip
        environment = {**(env or {}), **verifier_env()}
        with RootBox(spec, net_of=net_of, isolation=isolation, launcher=launcher) as box:
            result = box.run(command, cwd=workdir, env=environment, timeout_s=timeout_s, output_bytes=64_000,
                             background="kill", channel=True, tracing=False)  # fmt: skip
        return VerifierRun(result, result.channel, as_owner(_reward_file, str(logs)), removed)


def verifier_env() -> dict[str, str]:
    """The verifier's own variables (over the task's ``ENV``): the plugin loaded by every
    pytest, nothing of the agent's (``PYTHONPATH``, ``LD_PRELOAD`` ... are the harness's)."""
    return {
        "PATH": VERIFIER_PATH,
        "HOME": "/root",
        "PYTHONPATH": PLUGIN_FOLDER,
        "PYTEST_ADDOPTS": f"-p {PLUGIN_MODULE} -p no:cacheprovider",
        verdict.FD_ENV: "3",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "LD_PRELOAD": "",
        "TEST_DIR": "/tests",
        "DEBIAN_FRONTEND": "noninteractive",
    }


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    base = Path(run_root())
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="verify-", dir=base))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        remove_tree(str(folder))


def _lay_out(scratch: str, tests: Mapping[str, bytes], executables: Sequence[str]) -> None:
    """The verifier's folders in ``scratch``: its tests, its logs (``/logs/verifier``, root's
    inside) and an empty ``ld.so.preload``."""
    write_files(os.path.join(scratch, "tests"), tests, executables)
    logs = os.path.join(scratch, "logs")
    os.mkdir(logs)
    os.chown(logs, ID_BASE, ID_BASE)
    Path(scratch, "ld.so.preload").write_bytes(b"")


def write_files(folder: str, tests: Mapping[str, bytes], executables: Sequence[str]) -> str:
    """Write ``tests`` (relative path -> content) into the new ``folder``, owned by root inside
    (run it through `as_owner`)."""
    os.mkdir(folder, 0o755)
    os.chown(folder, ID_BASE, ID_BASE)
    for relative, content in tests.items():
        path = Path(folder, relative)
        make_folders(path.parent)
        path.write_bytes(content)
        os.chown(path, ID_BASE, ID_BASE)
        os.chmod(path, 0o755 if relative in executables or relative.endswith(".sh") else 0o644)
    return folder


def _reward_file(logs: str) -> str | None:
    for name in REWARD_FILES:
        path = Path(logs, name)
        if path.is_file() and not path.is_symlink():
            with contextlib.suppress(OSError):
                return path.read_bytes()[:4096].decode(errors="replace")
    return None
