"""A library's source tree and its test environment, as the family's tasks need them.

A `Library` names a pure-Python project pinned by PyPI name, version and the sha256 of its
sdist (or a local source tree), which paths of it are its source and which its tests, and
what its tests need. `fetch` downloads the sdist from PyPI once (checked against the pinned
hash), unpacks it into the cache and returns the tree's files; `environment` installs pytest
and the test requirements with ``pip install --target`` into a folder of the cache that every
sandbox of the family sees read-only (its site-packages and a ``bin`` with ``pytest``).

The cache lives in ``$CODEGYM_CACHE/repo`` (``~/.cache/codegym/repo`` by default): ``sdist/``
(the archives), ``src/`` (their unpacked trees: never shown to a sandbox, for they hold the
unbroken code) and ``env/`` (the environments: the only folder a sandbox sees).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from codegym.error import DependencyNotInstalled, SandboxError, TaskFormatError

# In every test environment, pinned with what pytest needs, so that an environment made later
# is the same as one made today.
PYTEST = ("pytest==9.2.0", "pytest-timeout==2.4.0", "pluggy==1.7.0", "iniconfig==2.3.1", "packaging==26.4",
          "pygments==2.21.0")  # fmt: skip
INDEX = "https://pypi.org/simple"
MAX_FILE_BYTES = 4 << 20  # a larger file of an sdist is data, not code or tests: left out
_TEST_PATH = re.compile(r"(^|/)(tests?|testing)(/|$)|(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")
_SKIPPED = re.compile(r"(^|/)(__pycache__|\.git|\.hg|\.tox|\.nox|\.eggs|build|dist)(/|$)|\.(pyc|pyo|so)$")


def cache_root() -> Path:
    """The family's cache: ``$CODEGYM_CACHE/repo``, else ``~/.cache/codegym/repo``."""
    base = os.environ.get("CODEGYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return Path(base) / "repo"


@dataclass(frozen=True)
class Library:
    """A pure-Python library whose own tests judge repairs of it.

    Attributes:
        name: Its PyPI name.
        version: The pinned version (``"local"`` for a source tree on disk).
        sha256: The sdist's sha256 (for a local tree: of its files, see `Library.local`).
        packages: Its source, relative to the tree's root: package folders or module files
            (``"."``: every Python file of the tree that is not a test).
        tests: Test paths handed to pytest (the whole suite).
        test_requires: What its tests need besides pytest, pinned (``"pyyaml==6.0.2"``).
        pytest_args: Further pytest arguments (``-o`` options, ``--deselect``); the project's
            own ``addopts`` are ignored, for they may name plugins that are not installed.
        python_path: Folders of the tree the library is imported from (``("src",)``).
        path: A local source tree instead of the sdist.
    """

    name: str
    version: str
    sha256: str
    packages: tuple[str, ...]
    tests: tuple[str, ...] = ("tests",)
    test_requires: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    python_path: tuple[str, ...] = (".",)
    path: str | None = None

    def __post_init__(self) -> None:
        if not self.packages:
            raise ValueError(f"Library {self.name!r} names no source packages (e.g. packages=('{self.name}',))")
        for item in (*self.packages, *self.tests, *self.python_path):
            if item.startswith("/") or ".." in item.split("/"):
                raise ValueError(f"Library paths are relative to the tree's root, got {item!r}")

    @property
    def key(self) -> str:
        """``name-version``: its name in task ids and in the cache."""
        return f"{self.name}-{self.version}"

    @classmethod
    def local(cls, path: str | os.PathLike[str], *, name: str, packages: tuple[str, ...], **kwargs: object) -> Library:
        """A library from a source tree on disk; its ``sha256`` is its files' hash."""
        root = Path(path).resolve()
        if not root.is_dir():
            raise FileNotFoundError(f"no source tree at {root}")
        digest = tree_hash(read_tree(root))
        return cls(name=name, version="local", sha256=digest, packages=packages, path=str(root), **kwargs)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_dict(cls, row: Mapping[str, object]) -> Library:
        try:
            fields = {k: (tuple(v) if isinstance(v, list) else v) for k, v in row.items()}
            return cls(**fields)  # type: ignore[arg-type]
        except TypeError as e:
            raise TaskFormatError(
                f"a library needs name, version, sha256 and packages (optionally tests, test_requires, "
                f"pytest_args, path); got {sorted(row)}: {e}"
            ) from None

    def is_test(self, path: str) -> bool:
        """Whether ``path`` is a test file or lies under a test folder (never a repair's to touch)."""
        return bool(_TEST_PATH.search(path)) or any(
            path == t or path.startswith(t.rstrip("/") + "/") for t in self.tests
        )

    def is_source(self, path: str) -> bool:
        """Whether ``path`` is a Python file of the library's source (what a repair may change)."""
        inside = any(p in (".", path) or path.startswith(p.rstrip("/") + "/") for p in self.packages)
        return inside and path.endswith(".py") and not self.is_test(path)


def tree_hash(files: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(b"%d:%s:%d\n" % (len(path), path.encode(), len(files[path])))
        digest.update(files[path])
    return digest.hexdigest()


def read_tree(root: Path) -> dict[str, bytes]:
    """The regular files under ``root`` (no links, bytecode, build output or VCS folders)."""
    files: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            if _SKIPPED.search(relative) or os.path.islink(full) or not os.path.isfile(full):
                continue
            if os.path.getsize(full) <= MAX_FILE_BYTES:
                files[relative] = Path(full).read_bytes()
    return files


def fetch(library: Library) -> dict[str, bytes]:
    """The library's pristine tree: ``path -> bytes``.

    The sdist is downloaded from PyPI on first use, checked against ``library.sha256`` and
    unpacked into the cache; a local library is read from its folder.

    Raises:
        SandboxError: PyPI cannot be reached, or the download does not match the pinned hash.
    """
    if library.path is not None:
        return read_tree(Path(library.path))
    root = cache_root() / "src" / f"{library.key}-{library.sha256[:12]}"
    if not root.is_dir():
        with _locked(cache_root() / "src.lock"):
            if not root.is_dir():
                _unpack(_download(library), root)
    return read_tree(root)


def _download(library: Library) -> bytes:
    archive = cache_root() / "sdist" / f"{library.key}-{library.sha256[:12]}"
    if archive.is_file():
        data = archive.read_bytes()
        if hashlib.sha256(data).hexdigest() == library.sha256:
            return data
    url = _sdist_url(library)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as e:
        raise SandboxError(f"cannot download {library.key}'s sdist from {url}: {e}") from e
    found = hashlib.sha256(data).hexdigest()
    if found != library.sha256:
        raise SandboxError(f"{library.key}'s sdist has sha256 {found}, not the pinned {library.sha256}")
    archive.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(archive, data)
    return data


def _sdist_url(library: Library) -> str:
    """The sdist's URL, found by its hash in PyPI's simple JSON index (PEP 691)."""
    index = os.environ.get("CODEGYM_PYPI_INDEX", INDEX).rstrip("/")
    name = re.sub(r"[-_.]+", "-", library.name).lower()
    request = urllib.request.Request(f"{index}/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            files = json.load(response)["files"]
    except (OSError, ValueError, KeyError) as e:
        raise SandboxError(f"cannot read PyPI's index of {library.name} at {request.full_url}: {e}") from e
    for entry in files:
        if entry.get("hashes", {}).get("sha256") == library.sha256:
            return entry["url"]
    raise SandboxError(
        f"PyPI lists no file of {library.name} with sha256 {library.sha256} (pinned for version {library.version})"
    )


def _unpack(data: bytes, root: Path) -> None:
    """Unpack an sdist's regular files (its one top folder stripped) into ``root``, atomically."""
    members = dict(archive_members(data))
    tops = {path.split("/", 1)[0] for path in members}
    strip = len(tops) == 1 and all("/" in path for path in members)
    staging = Path(tempfile.mkdtemp(dir=root.parent if root.parent.exists() else _mkdirs(root.parent)))
    for path, content in members.items():
        relative = path.split("/", 1)[1] if strip else path
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    os.rename(staging, root)


def archive_members(data: bytes) -> Iterator[tuple[str, bytes]]:
    """The regular files of a tar or zip archive, as ``(path, content)``; members with an
    absolute or ``..`` path, and links, are left out."""
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if not info.is_dir() and _safe(info.filename):
                    yield info.filename, archive.read(info)
        return
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() and _safe(member.name) else None
            if handle is not None:
                yield member.name, handle.read()


def _safe(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and ".." not in parts and "" not in parts[:-1]


def _mkdirs(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _write_atomically(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class Environment:
    """A test environment: ``site`` (its site-packages: pytest and the test requirements)
    and ``bin`` (a ``pytest`` that runs it), in the cache's ``env/`` folder."""

    root: str

    @property
    def site(self) -> str:
        return f"{self.root}/site"

    @property
    def bin(self) -> str:
        return f"{self.root}/bin"


def environments_root() -> Path:
    """The folder every sandbox of the family sees (read-only): the test environments."""
    return _mkdirs(cache_root() / "env")


def environment(library: Library) -> Environment:
    """The test environment of ``library``, installed on first use with ``pip install
    --target`` (no bytecode) for this interpreter's Python version, and shared by every
    library that needs the same requirements.

    Raises:
        DependencyNotInstalled: pip cannot install the requirements (the message says why).
    """
    requirements = sorted({*PYTEST, *library.test_requires})
    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    digest = hashlib.sha256("\n".join([version, *requirements]).encode()).hexdigest()[:16]
    root = environments_root() / f"{version}-{digest}"
    if not (root / "site").is_dir():
        with _locked(cache_root() / "env.lock"):
            if not (root / "site").is_dir():
                _install(requirements, root)
    return Environment(str(root))


def _install(requirements: list[str], root: Path) -> None:
    staging = Path(tempfile.mkdtemp(dir=root.parent, prefix=".staging-"))
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check",
               "--target", str(staging / "site"), *requirements]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise DependencyNotInstalled(
            f"cannot install the test environment {requirements} with pip: {done.stderr.strip()[-2000:]}"
        )
    shutil.rmtree(staging / "site" / "bin", ignore_errors=True)  # (scripts naming this interpreter's path)
    (staging / "bin").mkdir()
    script = staging / "bin" / "pytest"
    script.write_text('#!/bin/sh\nexec python3 -m pytest -p no:cacheprovider "$@"\n')
    script.chmod(0o755)
    for folder, _, names in os.walk(staging):  # readable by the sandbox's unprivileged uid, whatever the umask
        os.chmod(folder, 0o755)
        for name in names:
            path = os.path.join(folder, name)
            os.chmod(path, os.stat(path).st_mode | 0o444)
    os.rename(staging, root)
