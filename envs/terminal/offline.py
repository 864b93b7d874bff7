"""The uv preamble of public terminal tasks, served offline.

Many tasks install uv and run pytest through it, in ``tests/test.sh`` (run by the verifier,
which has no network here) or in a Dockerfile ``RUN``::

    apt-get update
    apt-get install -y curl
    curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh
    source $HOME/.local/bin/env
    uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests -rA

(Terminal-Bench 1's ``run-tests.sh``: ``uv venv``, ``source .venv/bin/activate``, ``uv pip install
pytest==8.4.1``, ``uv run pytest ...``.) `find_preamble` reads what such a script needs;
`verifier_layers` builds it into layers over the environment while the network is there (uv
from its PyPI wheel, which carries the binary, put where the installer puts it: ``uv``, ``uvx``
and ``env`` in ``$HOME/.local/bin``; the packages the ``apt-get install`` lines name, and
``python3``, from Debian; the pinned packages as wheels in `WHEELS`; uv's cache warmed by the
``uvx`` line itself, run without network); `rewrite_test_script` makes the script run on them
with no network: the ``apt-get`` and installer commands become ``true``, uv is told to stay
offline (`OFFLINE_ENV`, exported on a line of its own after the ``#!`` line), and a pinned
Python the environment lacks is replaced by the environment's ``python3``, with a note (uv
downloads no interpreter here: a task that needs 3.12 or newer gets it from a Debian trixie
base, which ``FROM python:3.12``/``3.13`` maps to). Every other byte of the script is kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from codegym.error import SandboxError
from codegym.executor.layers import FileEntry, LayerStore, digest, is_empty

WHEELS = "/opt/codegym/wheels"
OFFLINE_ENV = (
    ("UV_OFFLINE", "1"),
    ("UV_NO_INDEX", "1"),
    ("UV_PYTHON_DOWNLOADS", "never"),
    ("UV_FIND_LINKS", WHEELS),
    ("PIP_NO_INDEX", "1"),
    ("PIP_FIND_LINKS", WHEELS),
)
_SEP = r"(?:^|(?<=[;&|(]))[ \t]*"  # the start of a command: a line's, or after ; && || | (
_INSTALLER = re.compile(
    _SEP + r"(?:curl|wget)\b[^\n;&|]*?https?://astral\.sh/uv/(?:(?P<version>[0-9][\w.]*)/)?install\.sh[^\n;&|]*"
    r"\|[ \t]*(?:env[ \t]+)?(?:[A-Z_]+=\S*[ \t]+)*(?:sh|bash)\b(?:[ \t]+-s\b[^\n;&|]*)?",
    re.MULTILINE,
)
_APT = re.compile(
    _SEP
    + r"(?:DEBIAN_FRONTEND=\S+[ \t]+)?apt(?:-get)?[ \t]+(?:-\S+[ \t]+)*(?P<verb>update|install)\b(?P<rest>[^\n;&|]*)",
    re.MULTILINE,
)
_UVX = re.compile(r"\b(?:uvx|uv[ \t]+tool[ \t]+run|uv[ \t]+run)\b(?P<args>(?:\\\n|[^\n;&|])*)")
_UV_INSTALL = re.compile(r"\b(?:uv[ \t]+pip[ \t]+install|uv[ \t]+add|pip3?[ \t]+install)\b(?P<args>(?:\\\n|[^\n;&|])*)")
_PYTHON_FLAG = re.compile(r"(?P<flag>(?:^|[ \t])(?:-p|--python)(?:[ \t]+|=))(?P<version>3\.\d+)\b")
_WITH_FLAG = re.compile(r"(?:^|[ \t])(?:-w|--with)(?:[ \t]+|=)(?P<spec>[^\s\\]+)")
_REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[\w,.-]+\])?(?:(?:==|>=|<=|~=|>|<)[\w.*+!-]+)?$")
_ENV_FILE = """\
#!/bin/sh
# Put uv's folder first on PATH, once (what uv's installer leaves here; written by codegym).
case ":${PATH}:" in
  *:"$HOME/.local/bin":*) ;;
  *) export PATH="$HOME/.local/bin:$PATH" ;;
esac
"""


@dataclass(frozen=True)
class Preamble:
    """What a script's uv preamble asks for.

    Attributes:
        uv: whether the script installs or runs uv.
        uv_version: the installer's pinned version (``"0.9.5"``), or None for the newest.
        apt_packages: the packages its ``apt-get install`` lines name.
        requirements: the Python packages it installs (``-w``/``--with``, ``uv pip install``,
            ``uv add``, ``pip install``), as written (``pytest==8.4.1``).
        python: the Python version ``-p``/``--python`` pins (``"3.13"``), or None.
    """

    uv: bool = False
    uv_version: str | None = None
    apt_packages: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    python: str | None = None

    @property
    def found(self) -> bool:
        return self.uv or bool(self.apt_packages) or bool(self.requirements)


def find_preamble(text: str) -> Preamble:
    """What ``text`` (a shell script) installs: see `Preamble`."""
    versions = [match.group("version") for match in _INSTALLER.finditer(text)]
    apt: list[str] = []
    for match in _APT.finditer(text):
        if match.group("verb") == "install":
            apt.extend(word for word in match.group("rest").split() if not word.startswith("-"))
    requirements: list[str] = []
    python = None
    for match in _UVX.finditer(text):
        args = match.group("args")
        requirements.extend(with_.group("spec") for with_ in _WITH_FLAG.finditer(args))
        pinned = _PYTHON_FLAG.search(args)
        python = python or (pinned.group("version") if pinned else None)
    for match in _UV_INSTALL.finditer(text):
        words = match.group("args").replace("\\\n", " ").split()
        requirements.extend(word for word in words if not word.startswith("-") and _REQUIREMENT.match(word))
    uses_uv = bool(versions) or bool(re.search(r"\buvx?\b", text))
    return Preamble(uses_uv, next((v for v in versions if v), None), _unique(apt), _unique(requirements), python)


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def rewrite_test_script(text: str, *, python: str | None = None) -> tuple[str, tuple[str, ...]]:
    """``text`` made to run with no network over `verifier_layers` (see the module docstring).

    Args:
        text: the script (``tests/test.sh``, ``run-tests.sh``, or a ``RUN`` line's).
        python: the environment's ``python3`` version (``"3.11"``); a different pinned one is
            replaced by ``python3`` with a note. None: pins are kept.

    Returns:
        The new text (the same text where nothing needs the network) and notes on what changed.
    """
    preamble = find_preamble(text)
    if not preamble.found:
        return text, ()
    notes: list[str] = []
    new = _INSTALLER.sub(lambda m: _blank(m, "true"), text)
    if new != text:
        notes.append(f"uv's installer replaced by uv {preamble.uv_version or '(newest)'} from PyPI, already installed")
    before = new
    new = _APT.sub(lambda m: _blank(m, "true"), new)
    if new != before:
        packages = " ".join(preamble.apt_packages) or "nothing"
        notes.append(f"apt-get update/install replaced by the packages installed beforehand ({packages})")
    if python is not None and preamble.python is not None and preamble.python != python:
        new = _UVX.sub(lambda m: m.group(0).replace(m.group("args"), _unpin(m.group("args"))), new)
        notes.append(
            f"uv asks for Python {preamble.python}; the environment has Python {python} (uv downloads no "
            f"interpreter here): the tests run on the environment's python3. Build the task FROM "
            f"python:{preamble.python}-slim (a Debian trixie root) for Python {preamble.python}"
        )
    new = _export_line(new)
    notes.append("uv and pip run offline: " + " ".join(f"{name}={value}" for name, value in OFFLINE_ENV))
    return new, tuple(notes)


def _blank(match: re.Match[str], replacement: str) -> str:
    """The command ``match`` found, replaced, keeping the white space around it."""
    found = match.group(0)
    before = found[: len(found) - len(found.lstrip(" \t"))]
    after = found[len(found.rstrip(" \t")) :]
    return before + replacement + after


def _unpin(args: str) -> str:
    return _PYTHON_FLAG.sub(lambda m: m.group("flag") + "python3", args)


def _export_line(text: str) -> str:
    line = "export " + " ".join(f"{name}={value}" for name, value in OFFLINE_ENV) + "  # codegym: offline\n"
    if text.startswith("#!"):
        end = text.find("\n") + 1 or len(text)
        head = text[:end] if text[:end].endswith("\n") else text[:end] + "\n"
        return head + line + text[end:]
    return line + text


def verifier_layers(
    store: LayerStore,
    stack: tuple[str, ...],
    script: str,
    *,
    homes: tuple[str, ...] = ("/root",),
    timeout_s: float = 1800.0,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Layers over ``stack`` that ``script``'s preamble, rewritten, runs offline on.

    Built while the network is there: Debian's ``python3`` (uv needs an interpreter) and the
    packages the script's ``apt-get install`` lines name; uv's binaries from its PyPI wheel in
    each of ``homes``' ``.local/bin`` (with the installer's ``env`` file) and in
    ``/usr/local/bin``; the required packages' wheels (with their dependencies, for the
    environment's Python) in `WHEELS`; then the script's ``uvx`` lines' environments, made
    without network (which proves they work offline and warms uv's cache).

    What it finds is kept in the store: a later call (a plain user's, which reads the store
    root filled) builds and downloads nothing.

    Returns:
        The new layers (top first; to be put over ``stack``) and notes.
    """
    fact = Path(store.root, "facts", "verifier-" + digest(*map(os.path.basename, stack), script, *homes))
    with contextlib.suppress(OSError, ValueError, KeyError):
        known = json.loads(fact.read_text())
        layers = tuple(store.path(key) for key in known["layers"])
        if all(os.path.isdir(layer) for layer in layers):
            return layers, tuple(known["notes"])
    layers, notes = _build_verifier_layers(store, stack, script, homes, timeout_s)
    _keep(fact, json.dumps({"layers": [os.path.basename(layer) for layer in layers], "notes": list(notes)}))
    return layers, notes


def _build_verifier_layers(
    store: LayerStore, stack: tuple[str, ...], script: str, homes: tuple[str, ...], timeout_s: float
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    preamble = find_preamble(script)
    layers: list[str] = []
    current = stack
    if not preamble.found:
        return (), ()
    packages = ("python3", *preamble.apt_packages) if preamble.uv else preamble.apt_packages
    if packages:
        command = (
            "set -e; export DEBIAN_FRONTEND=noninteractive; apt-get update -qq; "
            f"apt-get install -y -qq --no-install-recommends {' '.join(sorted(set(packages)))} >/dev/null; "
            "rm -rf /var/lib/apt/lists/*"
        )
        current = _push(layers, current, store.run(current, ["/bin/sh", "-c", command], timeout_s=timeout_s))
    python = python_version(store, current)
    uv_binary = None
    if preamble.uv:
        for layer in reversed(uv_layers(store, current, preamble.uv_version, homes)):
            current = _push(layers, current, layer)
        uv_binary = os.path.join(current[0], "usr/local/bin/uv")
    with tempfile.TemporaryDirectory(prefix="codegym-offline-") as work:
        if preamble.requirements:
            extras = _universal(preamble.requirements, python, uv_binary)
            wheels = _wheels(preamble.requirements, extras, python, work)
            current = _push(layers, current, store.add(current, wheels, WHEELS))
    new, notes = rewrite_test_script(script, python=python)
    warm = [m.group(0).replace("\\\n", " ") for m in _UVX.finditer(_INSTALLER.sub("", new)) if "uvx" in m.group(0)]
    if warm and preamble.requirements:
        command = " && ".join(_warm_command(line) for line in warm)
        env = {"HOME": homes[0], "PATH": f"{homes[0]}/.local/bin:/usr/local/bin:/usr/bin:/bin", **dict(OFFLINE_ENV)}
        current = _push(layers, current, store.run(current, ["/bin/sh", "-c", command], env=env, network=False,
                                                   timeout_s=timeout_s))  # fmt: skip
    return tuple(reversed(layers)), notes


def _push(layers: list[str], stack: tuple[str, ...], layer: str) -> tuple[str, ...]:
    if is_empty(layer):
        return stack
    layers.append(layer)
    return (layer, *stack)


def _warm_command(line: str) -> str:
    """A ``uvx ... pytest ARGS`` line cut to ``uvx ... pytest --version`` (makes the environment)."""
    words = line.split()
    tool = next(
        (i for i, word in enumerate(words) if i and not word.startswith("-") and not _takes_value(words[i - 1])), None
    )
    head = " ".join(words[: tool + 1]) if tool is not None else line
    return f"{head} --version >/dev/null"


def _takes_value(word: str) -> bool:
    return word in ("-p", "--python", "-w", "--with", "--from", "--with-requirements", "tool", "run")


def python_version(store: LayerStore, stack: tuple[str, ...]) -> str | None:
    """The ``python3`` version of the root ``stack`` makes (``"3.11"``), if it has one; kept
    in the store once found (a plain user, who reads the store, runs no check of its own)."""
    fact = Path(store.root, "facts", "python-" + digest(*(os.path.basename(layer) for layer in stack)))
    with contextlib.suppress(OSError):
        return fact.read_text().strip() or None
    status, output = store.check(stack, ["python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    version = output.strip() if status == 0 else None
    _keep(fact, version or "")
    return version


def _keep(fact: Path, text: str) -> None:
    """Write the store's ``fact`` whole (another process reads it or nothing)."""
    fact.parent.mkdir(parents=True, exist_ok=True)
    partial = fact.with_name(f".{fact.name}.{os.getpid()}")
    partial.write_text(text)
    partial.rename(fact)


def _uv_files(version: str | None, work: str) -> dict[str, FileEntry]:
    """``uv``, ``uvx`` (from uv's wheel on PyPI) and the installer's ``env`` file."""
    folder = os.path.join(work, "uv")
    _pip_download([f"uv=={version}" if version else "uv"], folder, "--no-deps")
    (wheel,) = [name for name in os.listdir(folder) if name.endswith(".whl")]
    files: dict[str, FileEntry] = {"env": FileEntry(_ENV_FILE.encode(), 0o644)}
    with zipfile.ZipFile(os.path.join(folder, wheel)) as archive:
        for info in archive.infolist():
            name = info.filename.rsplit("/", 1)[-1]
            if ".data/scripts/" in info.filename and name in ("uv", "uvx"):
                files[name] = FileEntry(archive.read(info), 0o755)
    if not {"uv", "uvx"} <= set(files):
        raise SandboxError(f"uv's wheel {wheel} holds no uv and uvx binaries (expected in *.data/scripts/)")
    return files


def _universal(requirements: tuple[str, ...], python: str | None, uv_binary: str | None) -> tuple[str, ...]:
    """The packages a universal resolution of ``requirements`` pins beyond them (``uv add`` and
    ``uv lock`` resolve for every platform: pytest's colorama, for Windows, must be there too),
    by ``uv pip compile --universal`` on this host; none without uv."""
    if uv_binary is None or not os.path.exists(uv_binary):
        return ()
    command = [uv_binary, "pip", "compile", "--universal", "--no-header", "--no-annotate", "-q", "-"]
    if python:
        command += ["--python-version", python]
    done = subprocess.run(command, input="\n".join(requirements), capture_output=True, text=True, check=False,
                          timeout=600)  # fmt: skip
    pinned = [line.split(";")[0].strip() for line in done.stdout.splitlines() if "==" in line.split(";")[0]]
    return tuple(name for name in dict.fromkeys(pinned) if name not in requirements) if done.returncode == 0 else ()


def _wheels(
    requirements: tuple[str, ...], extras: tuple[str, ...], python: str | None, work: str
) -> dict[str, FileEntry]:
    """The wheels of ``requirements`` (with their dependencies) and, where PyPI has them for this
    Python, of ``extras`` (what a universal resolution adds), by file name."""
    folder = os.path.join(work, "wheels")
    extra = ("--only-binary=:all:", f"--python-version={python}") if python else ("--only-binary=:all:",)
    _pip_download(list(requirements), folder, *extra)
    if extras:
        _pip_download(list(extras), folder, *extra, "--no-deps", check=False)
    files: dict[str, FileEntry] = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            files[name] = FileEntry(handle.read(), 0o644)
    return files


def _pip_download(requirements: list[str], folder: str, *options: str, check: bool = True) -> None:
    command = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "-d", folder,
               *options, *requirements]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
    if done.returncode != 0 and check:
        raise SandboxError(
            f"downloading {' '.join(requirements)} from PyPI for the verifier failed (is PyPI reachable, is pip "
            f"installed beside codegym?):\n{done.stderr[-3000:]}"
        )


def rewrite_installer(text: str) -> tuple[str, str | None, bool]:
    """``text`` (a Dockerfile ``RUN`` script) with uv's installer replaced by ``true``: the new
    text, the pinned version (None: the newest) and whether there was an installer. The build
    puts uv in place first (`uv_layers`); the rest of the script keeps the build's network."""
    found = list(_INSTALLER.finditer(text))
    if not found:
        return text, None, False
    version = next((m.group("version") for m in found if m.group("version")), None)
    return _INSTALLER.sub(lambda m: _blank(m, "true"), text), version, True


def uv_layers(
    store: LayerStore, stack: tuple[str, ...], version: str | None, homes: tuple[str, ...]
) -> tuple[str, ...]:
    """Layers over ``stack`` (top first) holding uv ``version`` (its PyPI wheel's binaries) where
    its installer puts it for each of ``homes`` (``.local/bin``, with the ``env`` file) and in
    ``/usr/local/bin``."""
    layers: list[str] = []
    current = stack
    with tempfile.TemporaryDirectory(prefix="codegym-uv-") as work:
        tools = _uv_files(version, work)
        for home in homes:
            current = _push(layers, current, store.add(current, tools, os.path.join(home, ".local/bin")))
        binaries = {name: entry for name, entry in tools.items() if name != "env"}
        current = _push(layers, current, store.add(current, binaries, "/usr/local/bin"))
    return tuple(reversed(layers))
