"""A task's Dockerfile built offline into layers of the store: the `Environment` an episode runs in.

``FROM`` becomes a debootstrap base (`dockerfile.map_base`: Debian bookworm or trixie, the
python images' Python from Debian); ``RUN`` runs in the store's build sandbox (package
registries reachable); ``COPY``/``ADD`` copy files of the build context (``ADD`` unpacks a local
tar archive); ``WORKDIR`` makes its folder; ``ENV``, ``ARG``, ``USER`` and ``SHELL`` set what the
next steps run with. Each ``RUN``, ``COPY`` and ``ADD`` is one layer keyed by a hash of the
layers below and of what it runs or copies, so a second import of a task builds nothing and two
tasks whose Dockerfiles begin alike share their first layers. Run-time instructions (``CMD``,
``ENTRYPOINT``, ``EXPOSE``, ...) change nothing here.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from codegym.envs.terminal import dockerfile, offline
from codegym.envs.terminal.dockerfile import Instruction
from codegym.envs.terminal.formats import TerminalTask

from codegym.error import InvalidTask
from codegym.executor.layers import FileEntry, LayerStore, digest, is_empty

DEFAULT_SHELL = ("/bin/sh", "-c")
BUILD_TIMEOUT_S = 1800.0
# A name a test and the instruction share only by chance is no evidence: short or plain words.
_MIN_NAME = 5


@dataclass(frozen=True)
class Environment:
    """A built environment: a stack of layers and how the image runs commands.

    Attributes:
        layers: the layer folders, top first (overlay's ``lowerdir`` order).
        workdir: the working directory (the last ``WORKDIR``, or the task's ``workdir``).
        user: the user commands run as, as the Dockerfile names it (``"root"`` by default).
        env: the image's environment (the mapped base's, then each ``ENV``), in order.
        shell: the shell of shell-form commands (``SHELL``; ``("/bin/sh", "-c")`` by default).
        key: a hash of all of the above: equal keys, equal environments.
        hidden: files of the image that only the tests use (`hidden_fixtures`).
        notes: how the build differs from Docker's (a mapped base image, an ignored flag).
    """

    layers: tuple[str, ...]
    workdir: str = "/"
    user: str = "root"
    env: tuple[tuple[str, str], ...] = ()
    shell: tuple[str, ...] = DEFAULT_SHELL
    key: str = ""
    hidden: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass
class _State:
    """What the instructions read so far leave (the builder's own, mutable, state)."""

    stack: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    args: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    user: str = "root"
    shell: tuple[str, ...] = DEFAULT_SHELL
    notes: list[str] = field(default_factory=list)


def build_environment(
    task_or_dockerfile: TerminalTask | str,
    context: Mapping[str, bytes] | None = None,
    store: LayerStore | None = None,
    *,
    executables: Collection[str] = (),
    log: Callable[[str], None] | None = None,
    timeout_s: float | None = None,
) -> Environment:
    """Builds a Dockerfile's image as layers of ``store`` (the default store when None).

    Args:
        task_or_dockerfile: a `TerminalTask` (its Dockerfile, build context, executables,
            ``workdir`` and tests), or a Dockerfile's text.
        context: the build context's files by relative path (for a Dockerfile's text).
        store: where the layers go.
        executables: context paths (as ``context/<path>`` or ``<path>``) copied with mode 755.
        log: called with a line per step.
        timeout_s: seconds the whole build may take (the task's ``build_timeout_s``).

    Returns:
        The `Environment`.

    Raises:
        InvalidTask: an instruction this builder cannot follow (a multi-stage ``COPY --from``,
            a ``COPY`` of a file the context lacks, an unknown user).
        codegym.executor.layers.BuildFailed: a ``RUN`` failed (its log's tail in the message).
    """
    task = task_or_dockerfile if isinstance(task_or_dockerfile, TerminalTask) else None
    text = task.dockerfile if task is not None else str(task_or_dockerfile)
    files = dict(task.context if task is not None else context or {})
    modes = {name.removeprefix("context/") for name in (task.executables if task is not None else executables)}
    store = store or LayerStore(log=log)
    instructions = dockerfile.parse(text)
    budget = _Budget(timeout_s or (task.build_timeout_s if task is not None else BUILD_TIMEOUT_S))
    state = _State()
    for instruction in _final_stage(instructions):
        if log is not None:
            log(f"line {instruction.line}: {instruction.keyword} {instruction.raw[:100]}")
        _step(state, instruction, store, files, modes, budget)
    if not state.stack:
        raise InvalidTask("the Dockerfile has no FROM instruction: there is no base to build on")
    if task is not None and task.workdir:
        _workdir(state, task.workdir, store)
    hidden = hidden_fixtures(task, instructions) if task is not None else ()
    return _environment(state, hidden)


def _environment(state: _State, hidden: tuple[str, ...]) -> Environment:
    layers = tuple(state.stack)
    env = tuple(state.env.items())
    key = digest("environment", [os.path.basename(layer) for layer in layers], state.workdir, state.user, env,
                 list(state.shell))  # fmt: skip
    return Environment(layers, state.workdir, state.user, env, state.shell, key, hidden, tuple(state.notes))


class _Budget:
    def __init__(self, seconds: float) -> None:
        self._clock = time.monotonic
        self._deadline = self._clock() + seconds

    def left(self) -> float:
        return max(1.0, self._deadline - self._clock())


def _final_stage(instructions: Sequence[Instruction]) -> list[Instruction]:
    last = max((instruction.stage for instruction in instructions), default=-1)
    for instruction in instructions:
        if instruction.keyword in ("COPY", "ADD") and instruction.flag("from") is not None:
            raise InvalidTask(
                f"line {instruction.line}: COPY --from (a multi-stage build) is not supported here; "
                "build the artifact in the final stage instead"
            )
    return [instruction for instruction in instructions if instruction.stage == last]


def _step(
    state: _State,
    instruction: Instruction,
    store: LayerStore,
    files: Mapping[str, bytes],
    executables: Collection[str],
    budget: _Budget,
) -> None:
    keyword = instruction.keyword
    if keyword == "FROM":
        _from(state, instruction, store)
    elif keyword == "RUN":
        _run(state, instruction, store, budget)
    elif keyword in ("COPY", "ADD"):
        _copy(state, instruction, store, files, executables)
    elif keyword == "WORKDIR":
        _workdir(state, instruction.argument.strip(), store)
    elif keyword == "ENV":
        for name, value in dockerfile._assignments(instruction.argument, allow_bare=False):
            state.env[name] = value or ""
    elif keyword == "ARG":
        for name, value in dockerfile._assignments(instruction.argument, allow_bare=True):
            state.args.setdefault(name, value or "")
    elif keyword == "USER":
        state.user = instruction.argument.strip()
        resolve_user(tuple(state.stack), state.user)  # an unknown user fails here, at its line
    elif keyword == "SHELL":
        if not instruction.exec_form or not instruction.args:
            raise InvalidTask(f'line {instruction.line}: SHELL takes a JSON array, e.g. SHELL ["/bin/bash", "-c"]')
        state.shell = tuple(instruction.args)


def _from(state: _State, instruction: Instruction, store: LayerStore) -> None:
    image = instruction.args[0] if instruction.args else ""
    base = dockerfile.map_base(image)
    state.stack = [store.base(base.suite, base.packages)]
    state.env = dict(base.env)
    state.notes.extend(base.notes)


def _run(state: _State, instruction: Instruction, store: LayerStore, budget: _Budget) -> None:
    script = instruction.argument
    if not instruction.exec_form:
        script = _serve_uv(state, instruction, store)
    argv = list(instruction.args) if instruction.exec_form else [*state.shell, script]
    network = instruction.flag("network") != "none"
    for name, _value in instruction.flags:
        if name not in ("network",):
            state.notes.append(f"line {instruction.line}: RUN --{name} is ignored (no build cache mounts here)")
    stack = tuple(state.stack)
    uid, gid, home = resolve_user(stack, state.user)
    env = {"HOME": home, **state.args, **state.env}
    layer = store.run(stack, argv, env=env, workdir=state.workdir, user=(uid, gid), network=network,
                      timeout_s=budget.left())  # fmt: skip
    _push(state, layer)


def _serve_uv(state: _State, instruction: Instruction, store: LayerStore) -> str:
    """The ``RUN`` script with uv's installer (``curl .../install.sh | sh``) replaced by uv from its
    PyPI wheel, put in place first (see `offline`)."""
    script, version, found = offline.rewrite_installer(instruction.argument)
    if found:
        _uid, _gid, home = resolve_user(tuple(state.stack), state.user)
        homes = tuple(dict.fromkeys((home, "/root")))
        for layer in reversed(offline.uv_layers(store, tuple(state.stack), version, homes)):
            _push(state, layer)
        state.notes.append(
            f"line {instruction.line}: uv's installer served offline (uv {version or 'newest'} from PyPI)"
        )
    return script


def _push(state: _State, layer: str) -> None:
    if not is_empty(layer):
        state.stack.insert(0, layer)


def _workdir(state: _State, path: str, store: LayerStore) -> None:
    state.workdir = posixpath.normpath(posixpath.join(state.workdir, path))
    uid, gid, _home = resolve_user(tuple(state.stack), state.user)
    script = 'if [ ! -d "$1" ]; then mkdir -p "$1" && chown "$2" "$1"; fi'
    layer = store.run(tuple(state.stack), ["/bin/sh", "-c", script, "sh", state.workdir, f"{uid}:{gid}"])
    _push(state, layer)


def _copy(
    state: _State,
    instruction: Instruction,
    store: LayerStore,
    files: Mapping[str, bytes],
    executables: Collection[str],
) -> None:
    if len(instruction.args) < 2:
        raise InvalidTask(f"line {instruction.line}: {instruction.keyword} needs a source and a destination")
    *sources, dest = instruction.args
    dest = posixpath.join(state.workdir, dest)
    into_folder = dest.endswith("/") or len(sources) > 1 or _is_folder(tuple(state.stack), dest)
    entries: dict[str, FileEntry] = {}
    for source in sources:
        if "://" in source:
            raise InvalidTask(f"line {instruction.line}: ADD of a URL ({source}) fetches from the network; not here")
        matched = _sources(source, files)
        if not matched:
            raise InvalidTask(
                f"line {instruction.line}: {instruction.keyword} source {source!r} is not in the build context"
            )
        into_folder = into_folder or len(matched) > 1 or any(name != _clean(source) for name in matched)
        for name, relative in matched.items():
            mode = 0o755 if name in executables else 0o644
            entries[relative] = FileEntry(files[name], mode)
    folder = dest if into_folder else posixpath.dirname(dest.rstrip("/")) or "/"
    if not into_folder:
        (only,) = entries.values()
        entries = {posixpath.basename(dest): only}
    chown = instruction.flag("chown")
    chmod = instruction.flag("chmod")
    owner = None if chown is None else _owner(tuple(state.stack), chown)
    if chmod and not re.fullmatch(r"[0-7]{3,4}", chmod):
        raise InvalidTask(f"line {instruction.line}: --chmod={chmod}: only octal modes (--chmod=755) are supported")
    layer = store.add(tuple(state.stack), entries, posixpath.normpath(folder), chown=owner,
                      chmod=int(chmod, 8) if chmod else None, unpack=instruction.keyword == "ADD")  # fmt: skip
    _push(state, layer)


def _clean(source: str) -> str:
    return posixpath.normpath(source.lstrip("/")).removeprefix("./") if source not in (".", "./", "/") else ""


def _sources(source: str, files: Mapping[str, bytes]) -> dict[str, str]:
    """Context files a ``COPY`` source names: context path -> its path below the destination (a
    file by its name, a folder's files by their path inside it; ``*``, ``?`` and ``[]`` as Docker
    reads them, one path component each)."""
    pattern = _clean(source)
    if pattern in files:
        return {pattern: posixpath.basename(pattern)}
    found: dict[str, str] = {}
    for name in sorted(files):
        if pattern == "":
            found[name] = name
            continue
        parts = name.split("/")
        for depth in range(1, len(parts) + 1):
            head = "/".join(parts[:depth])
            if head == pattern or (head.count("/") == pattern.count("/") and fnmatch.fnmatchcase(head, pattern)):
                found[name] = "/".join(parts[depth:]) if depth < len(parts) else parts[-1]
                break
    return found


def _owner(stack: tuple[str, ...], spec: str) -> tuple[int, int]:
    user, _, group = spec.partition(":")
    uid, gid, _home = resolve_user(stack, user)
    if group:
        gid = _group_id(stack, group)
    return uid, gid


def resolve_user(stack: tuple[str, ...], user: str) -> tuple[int, int, str]:
    """The inside uid, gid and home folder of ``user`` (``name``, ``uid``, ``name:group``, ``uid:gid``)
    in the image ``stack`` (its ``/etc/passwd`` and ``/etc/group``)."""
    name, _, group = user.partition(":")
    entry = _passwd(stack).get(name)
    if entry is None and name.isdigit():
        entry = next((e for e in _passwd(stack).values() if e[0] == int(name)), (int(name), int(name), "/"))
    if entry is None:
        raise InvalidTask(f"user {name!r} is not in the image's /etc/passwd: create it in a RUN (useradd) before USER")
    uid, gid, home = entry
    if group:
        gid = _group_id(stack, group)
    return uid, gid, home


def _passwd(stack: tuple[str, ...]) -> dict[str, tuple[int, int, str]]:
    text = read_file(stack, "/etc/passwd") or b""
    users: dict[str, tuple[int, int, str]] = {}
    for line in text.decode(errors="replace").splitlines():
        fields = line.split(":")
        if len(fields) >= 6 and fields[2].isdigit() and fields[3].isdigit():
            users[fields[0]] = (int(fields[2]), int(fields[3]), fields[5] or "/")
    return users


def _group_id(stack: tuple[str, ...], group: str) -> int:
    if group.isdigit():
        return int(group)
    text = read_file(stack, "/etc/group") or b""
    for line in text.decode(errors="replace").splitlines():
        fields = line.split(":")
        if len(fields) >= 3 and fields[0] == group and fields[2].isdigit():
            return int(fields[2])
    raise InvalidTask(f"group {group!r} is not in the image's /etc/group: create it in a RUN (groupadd) first")


def read_file(stack: tuple[str, ...], path: str) -> bytes | None:
    """A regular file of the image ``stack`` as the overlay shows it (None when absent or not a
    regular file; symlinks are not followed)."""
    found = _lookup(stack, path)
    if found is None or not os.path.isfile(found) or os.path.islink(found):
        return None
    with open(found, "rb") as handle:
        return handle.read()


def _is_folder(stack: tuple[str, ...], path: str) -> bool:
    found = _lookup(stack, path)
    return found is not None and os.path.isdir(found) and not os.path.islink(found)


def _lookup(stack: tuple[str, ...], path: str) -> str | None:
    """The host path of ``path`` in the top layer holding it, unless a whiteout or an opaque
    folder above hides it."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return stack[0] if stack else None
    for layer in stack:
        for depth in range(1, len(parts) + 1):
            here = os.path.join(layer, *parts[:depth])
            if not os.path.lexists(here):
                break
            info = os.lstat(here)
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
                return None  # a whiteout
            if depth == len(parts):
                return here
            if _opaque(here):
                return None  # the folder was made again here: what is below is hidden
    return None


def _opaque(folder: str) -> bool:
    try:
        names = os.listxattr(folder, follow_symlinks=False)
    except OSError:
        return False
    return "trusted.overlay.opaque" in names or "user.overlay.opaque" in names


def hidden_fixtures(task: TerminalTask, instructions: Sequence[Instruction]) -> tuple[str, ...]:
    """Image paths of files a ``COPY``/``ADD`` puts in the image that the task's tests refer to
    (by path, or by a file name of at least five characters) and its instruction does not: what
    only the verifier uses (fixtures, expected outputs), which the agent should not see.

    A copied folder is reported when the tests name the folder itself; its files are reported
    one by one otherwise.
    """
    tests = "\n".join(data.decode(errors="replace") for data in task.tests.values())
    told = task.instruction
    hidden: list[str] = []
    for path in _copied_paths(instructions, task.context):
        if _mentions(tests, path) and not _told(told, path):
            hidden.append(path)
    folders = [path for path in hidden if any(other.startswith(path + "/") for other in hidden)]
    return tuple(sorted(path for path in hidden if not any(path.startswith(f + "/") for f in folders)))


def _told(instruction: str, path: str) -> bool:
    """Whether the instruction names ``path``, its file name or a folder it is in (``/app``)."""
    folders = [path[:index] for index in range(1, len(path)) if path[index] == "/"]
    return _mentions(instruction, path) or any(folder in instruction for folder in folders)


def _mentions(text: str, path: str) -> bool:
    name = posixpath.basename(path)
    if path in text:
        return True
    return len(name) >= _MIN_NAME and any(ch in name for ch in "._-") and name in text


def _copied_paths(instructions: Sequence[Instruction], files: Mapping[str, bytes]) -> list[str]:
    """Every image path a ``COPY``/``ADD`` of the final stage writes, with the folders it copies."""
    workdir = "/"
    paths: list[str] = []
    for instruction in _final_stage(instructions):
        if instruction.keyword == "WORKDIR":
            workdir = posixpath.normpath(posixpath.join(workdir, instruction.argument.strip()))
        if instruction.keyword not in ("COPY", "ADD") or len(instruction.args) < 2:
            continue
        *sources, dest = instruction.args
        dest = posixpath.join(workdir, dest)
        for source in sources:
            matched = _sources(source, files)
            into_folder = dest.endswith("/") or len(sources) > 1 or any(n != _clean(source) for n in matched)
            for relative in matched.values():
                target = posixpath.normpath(posixpath.join(dest, relative) if into_folder else dest)
                paths.append(target)
            if any(name != _clean(source) for name in matched):  # a folder (or a pattern) copied
                paths.append(posixpath.normpath(dest))
    return sorted(set(paths))
