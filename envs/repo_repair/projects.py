"""Projects in every language: a recipe per language and per project, and the machine each
project's tests run in.

A language's recipe (``data/languages/<language>.toml``, its keys in that folder's README)
says how its projects build, list their tests, run one and run many; a project's recipe
(``data/projects/<name>.toml``) names its language, the Debian
package that brings its tree (a ``golang-*-dev`` or ``librust-*-dev`` package ships its
sources with their tests), the version, and where the tree goes. Adding a project is one small
file::

    language = "go"
    package = "golang-github-google-go-cmp-dev"
    version = "0.5.9-1"
    origin = "/usr/share/gocode/src/github.com/google/go-cmp"
    root = "/work/src/github.com/google/go-cmp"

Its machine is a stack of cached layers (`codegym.executor.layers`, as a terminal task's): a
debootstrapped Debian bookworm; the toolchain and the package, installed with the network;
the tree copied to ``root``, and built (tests compiled, compiler caches warm) without it. The
layers are made once per version and shared read-only by every episode; a test runs in a
`codegym.executor.rootbox.RootBox` over them, one process per test, whose exit status the
box's init reads: no output a test prints can be taken for a verdict. Where the language's
runner can run many tests in one process (``batch``), they run so, and its report (JUnit XML,
``go test -json`` events, ...: `codegym.envs.repo_repair.reports`), written outside the tree,
gives each one's outcome; a test it does not report runs on its own.
"""

from __future__ import annotations

import functools
import math
import re
import secrets
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from codegym.envs.repo_repair import reports

from codegym.error import DependencyNotInstalled, TaskFormatError
from codegym.executor.layers import FileEntry, LayerStore
from codegym.executor.rootbox import CommandResult, RootBox

DATA = Path(__file__).with_name("data")
SUITE = "bookworm"
APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}
BUILD_TIMEOUT_S = 3600.0
LIST_TIMEOUT_S = 600.0
BATCH_TESTS_PER_TIMEOUT = 20  # (a batch of N tests may take the time of ceil(N / 20) tests)
REPORT_BYTES = 64 << 20
COMMON_PACKAGES = ("git",)  # (an agent's tree is a git repository)
# Where a source package comes from (the bookworm sources of the archive the base is made from).
DEB_SRC = ("Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n"
           "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg")  # fmt: skip


class NotBuilt(Exception):
    """The tree does not build, as a batch's runner found before it ran any of the tree's code
    (its report's ``Bail out!``: a source that does not compile); the message says why."""


@dataclass(frozen=True)
class Toolchain:
    """How a language's projects build and run their tests (see ``data/languages/README.md``).

    Attributes:
        language: Its name (``"go"``).
        packages: Debian packages of the toolchain.
        env: The environment every command runs with.
        build: Shell: builds the project and its tests in its root (incremental, run again on
            each graded tree), or empty (a runner that checks the sources itself).
        list: Shell: prints one test id per line, ``<folder>::<name>``.
        run: Shell template: runs one test (``{folder}``, ``{name}``, ``{binary}``).
        sources: Globs of the files a fix may change (relative to the root).
        tests: Globs of the files that judge it (never a fix's to change).
        suite: Shell: the project's own test command, as one would run it by hand (the
            benchmark's baseline).
        setup: Shell run with the network after the packages are installed (a runner from
            the npm registry), or empty.
        batch: Shell template: runs many tests of one folder in as few processes as the
            runner allows (``{folder}``, ``{binary}``, ``{tests}``: a file naming them one
            per line, ``{report}``: where the runner writes its report), or empty.
        batch_all_folders: Whether one batch runs the tests of every folder (a runner of the
            whole tree that runs each test apart, or fails only the test that hangs: a hang
            must not fail another folder's tests).
        report: The batch report's format (a name `codegym.envs.repo_repair.reports` knows).
        report_name: How a report's test names a listed test (``{classname}``, ``{name}``).
        report_from_output: Whether the report is read from the tests' own output (``go test
            -json``: a test can print its lines), so that its passes count only when the
            batch exits 0 (the runner's own word that every test it ran passed).
        startup_s: Seconds the runner takes to start (jest's: a few, more on a busy machine),
            added to each test's and each batch's time limit.
    """

    language: str
    packages: tuple[str, ...]
    env: Mapping[str, str]
    build: str
    list: str
    run: str
    sources: tuple[str, ...]
    tests: tuple[str, ...]
    suite: str = ""
    setup: str = ""
    batch: str = ""
    report: str = ""
    report_name: str = "{name}"
    report_from_output: bool = False
    startup_s: float = 0.0
    batch_all_folders: bool = False

    def run_command(self, test_id: str) -> str:
        """The shell command that runs the test ``test_id`` (``<folder>::<name>``)."""
        folder, name = split_id(test_id)
        binary = binary_of(folder)
        return self.run.format(folder=shlex.quote(folder), name=shlex.quote(name), binary=shlex.quote(binary))

    def batch_command(self, folder: str, tests: str, report: str) -> str:
        """The shell command that runs the tests of ``folder`` the file ``tests`` names,
        its report to ``report``."""
        binary = binary_of(folder)
        quoted = {key: shlex.quote(value) for key, value in (("tests", tests), ("report", report))}
        return self.batch.format(folder=shlex.quote(folder), binary=shlex.quote(binary), **quoted)


@dataclass(frozen=True)
class Project:
    """One project's recipe (see ``data/projects/*.toml``).

    Attributes:
        name: Its name (the recipe file's stem).
        language: A language of ``data/languages/``.
        package: The Debian package that brings its tree.
        version: That package's version (installed exactly).
        origin: Where the package puts the tree.
        root: Where the tree goes in the machine (its working copy, built there).
        packages: More Debian packages its build or its tests need.
        exclude: Test ids left out (they need the network, or are flaky).
        env: Variables over its language's (a Go module's ``GO111MODULE=on``).
        sources: Globs of its source files, where narrower than its language's (``src/*.c``).
        tests: Globs of its test files, where narrower than its language's (one library's
            suite in a tree that holds many: ``test/optparse/**``).
        source: Whether ``package`` is a Debian source package (``apt-get source``: its
            upstream tree with Debian's patches applied, unpacked under ``/work/debian-src``,
            which ``origin`` names) rather than a binary one that ships the tree.
        tree: Its files, for a project no Debian package brings (a repository's commit:
            ``package`` and ``origin`` are then empty).
        fetch: Shell run with the network in ``/work/fetch`` before the tree is placed (an
            npm tarball unpacked there, which ``origin`` names), or empty.
        fixes: Patches (paths under ``origin``: ``debian/patches/...``) that fixed a bug of
            the project, its tests with it: each one's source hunks, taken back out of the
            tree, are a real bug (`codegym.envs.repo_repair.project_tasks.bug`).
    """

    name: str
    language: str
    package: str
    version: str
    origin: str
    root: str
    packages: tuple[str, ...] = ()
    exclude: tuple[str, ...] = field(default=())
    env: Mapping[str, str] = field(default_factory=dict)
    tree: Mapping[str, FileEntry] | None = field(default=None, repr=False, compare=False)
    source: bool = False
    sources: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    fetch: str = ""
    fixes: tuple[str, ...] = ()

    @functools.cached_property
    def toolchain(self) -> Toolchain:
        """Its language's recipe, with its own ``env`` over the language's and its own
        ``sources`` and ``tests`` globs (where it names them) instead of the language's."""
        base = toolchains()[self.language]
        env = MappingProxyType({**base.env, **self.env})
        return replace(base, env=env, sources=self.sources or base.sources, tests=self.tests or base.tests)


def binary_of(folder: str) -> str:
    """The name a folder's test program goes by in a recipe (``{binary}``): the folder with
    ``/`` as ``_``, ``_root`` for the root's."""
    return "_root" if folder == "." else folder.replace("/", "_")


def split_id(test_id: str) -> tuple[str, str]:
    """``"<folder>::<name>"`` as its two parts."""
    folder, sep, name = test_id.partition("::")
    if not sep or not folder or not name:
        raise ValueError(f"a test id is '<folder>::<name>', got {test_id!r}")
    return folder, name


@functools.cache
def toolchains() -> Mapping[str, Toolchain]:
    """Every language's recipe, by language."""
    found = sorted((DATA / "languages").glob("*.toml"))
    return MappingProxyType({path.stem: _toolchain(path.stem, language_table(path.stem)) for path in found})


@functools.cache
def language_table(language: str) -> Mapping[str, Any]:
    """``language``'s recipe file as read (its ``syntax`` and ``integrity`` tables too)."""
    path = DATA / "languages" / f"{language}.toml"
    if not path.is_file():
        known = ", ".join(sorted(found.stem for found in path.parent.glob("*.toml")))
        raise KeyError(f"language {language!r} has no recipe ({path}); known: {known}")
    return MappingProxyType(read_toml(path))


def _toolchain(language: str, entry: Mapping[str, object]) -> Toolchain:
    where = str(DATA / "languages" / f"{language}.toml")
    if entry.get("batch") and str(entry.get("report", "")) not in reports.FORMATS:
        raise TaskFormatError(f"{where}: a batch names its report, one of {', '.join(reports.FORMATS)}")
    if entry.get("batch_all_folders") and re.search(r"\{(folder|binary)\}", str(entry.get("batch", ""))):
        raise TaskFormatError(f"{where}: batch_all_folders needs a batch that names no {{folder}} or {{binary}}")
    try:
        return Toolchain(
            language=language,
            packages=tuple(_strings(entry, "packages", where)),
            env=MappingProxyType({str(k): str(v) for k, v in dict(entry.get("env", {})).items()}),  # type: ignore[call-overload]
            build=str(entry["build"]),
            list=str(entry["list"]),
            run=str(entry["run"]),
            sources=tuple(_strings(entry, "sources", where)),
            tests=tuple(_strings(entry, "tests", where)),
            suite=str(entry.get("suite", "")),
            setup=str(entry.get("setup", "")),
            batch=str(entry.get("batch", "")),
            report=str(entry.get("report", "")),
            report_name=str(entry.get("report_name", "{name}")),
            report_from_output=bool(entry.get("report_from_output", False)),
            startup_s=float(entry.get("startup_s", 0.0)),  # type: ignore[arg-type]
            batch_all_folders=bool(entry.get("batch_all_folders", False)),
        )
    except KeyError as e:
        raise TaskFormatError(f"{where}: missing {e.args[0]!r} (each language has build, list and run)") from e


@functools.cache
def projects() -> Mapping[str, Project]:
    """Every bundled project's recipe, by name."""
    return MappingProxyType({path.stem: load_project(path) for path in sorted((DATA / "projects").glob("*.toml"))})


def load_project(path: Path) -> Project:
    """The recipe in ``path`` (a TOML file; its stem is the project's name)."""
    entry = read_toml(path)
    required = ("language", "package", "version", "origin", "root")
    missing = [key for key in required if key not in entry]
    if missing:
        raise TaskFormatError(f"{path}: missing {', '.join(missing)} (a project names {', '.join(required)})")
    language = str(entry["language"])
    if language not in toolchains():
        raise TaskFormatError(f"{path}: language {language!r} has no recipe; known: {', '.join(sorted(toolchains()))}")
    env = entry.get("env", {})
    if not isinstance(env, dict):
        raise TaskFormatError(f"{path}: env is a table of variables, got {env!r}")
    return Project(
        name=path.stem, language=language, package=str(entry["package"]), version=str(entry["version"]),
        origin=str(entry["origin"]), root=str(entry["root"]), packages=tuple(_strings(entry, "packages", str(path))),
        exclude=tuple(_strings(entry, "exclude", str(path))), env={str(k): str(v) for k, v in env.items()},
        source=bool(entry.get("source", False)), sources=tuple(_strings(entry, "sources", str(path))),
        tests=tuple(_strings(entry, "tests", str(path))),
        fetch=str(entry.get("fetch", "")), fixes=tuple(_strings(entry, "fixes", str(path))),
    )  # fmt: skip


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file ``path`` (Python 3.10: with tomli)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError as e:
            raise DependencyNotInstalled(f"reading {path.name} on Python 3.10 needs tomli: pip install tomli") from e
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise TaskFormatError(f"{path} is not valid TOML ({e}); fix the line it names") from e


def _strings(entry: Mapping[str, object], key: str, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TaskFormatError(f"{where}: {key} is a list of strings, got {value!r}")
    return list(value)


# --- the machine ------------------------------------------------------------------------------


def machine_layers(project: Project, store: LayerStore | None = None) -> tuple[str, ...]:
    """``project``'s machine: its layers, top first, built on first use (then cached).

    Raises:
        BuildFailed: A step failed (its log's tail says why).
    """
    store = store or LayerStore()
    toolchain = project.toolchain
    base = store.base(SUITE)
    pinned = (f"{project.package}={project.version}",) if project.package and not project.source else ()
    helpers = ("dpkg-dev",) if project.source else ()  # (dpkg-source unpacks a source package)
    wanted = sorted({*COMMON_PACKAGES, *toolchain.packages, *project.packages, *pinned, *helpers})
    install = (
        "set -e; apt-get update -qq; "
        f"apt-get install -y -qq --no-install-recommends {' '.join(map(shlex.quote, wanted))} >/dev/null; "
        "rm -rf /var/lib/apt/lists/*"
    )
    stack: tuple[str, ...] = (base,)
    stack = (store.run(stack, ["/bin/sh", "-c", install], env=APT_ENV, timeout_s=BUILD_TIMEOUT_S), *stack)
    if toolchain.setup:  # (with the language's env alone: one layer for all its projects)
        language_env = dict(toolchains()[project.language].env)
        stack = (store.run(stack, ["/bin/sh", "-c", toolchain.setup], env=language_env,
                           timeout_s=BUILD_TIMEOUT_S), *stack)  # fmt: skip
    if project.fetch:
        fetch = f"set -e; mkdir -p /work/fetch; cd /work/fetch; {project.fetch}"
        stack = (store.run(stack, ["/bin/sh", "-c", fetch], env=dict(toolchain.env),
                           timeout_s=BUILD_TIMEOUT_S), *stack)  # fmt: skip
    if project.source:
        fetch = (
            f"set -e; printf '%s\\n' {shlex.quote(DEB_SRC)} > /etc/apt/sources.list.d/codegym-src.sources; "
            "apt-get update -qq; mkdir -p /work/debian-src; cd /work/debian-src; "
            f"apt-get source -qq --only-source {shlex.quote(f'{project.package}={project.version}')} >/dev/null; "
            "rm -f *.dsc *.tar.* *.diff.gz; rm -rf /var/lib/apt/lists/* /etc/apt/sources.list.d/codegym-src.sources"
        )
        stack = (store.run(stack, ["/bin/sh", "-c", fetch], env=APT_ENV, timeout_s=BUILD_TIMEOUT_S), *stack)
    if project.tree is not None:
        stack = (store.add(stack, dict(project.tree), project.root), *stack)
    else:
        origin, root = shlex.quote(project.origin), shlex.quote(project.root)
        place = f"set -e; mkdir -p $(dirname {root}); cp -a {origin} {root}"
        if project.source:  # (Debian's packaging and its patches, fixes among them, are no part of the tree)
            place += f"; rm -rf {root}/debian {root}/.pc"
        stack = (store.run(stack, ["/bin/sh", "-c", place], network=False), *stack)
    build = ["/bin/sh", "-c", toolchain.build]
    stack = (store.run(stack, build, env=dict(toolchain.env), workdir=project.root, network=False,
                       timeout_s=BUILD_TIMEOUT_S), *stack)  # fmt: skip
    return stack


def list_tests(box: RootBox, project: Project, *, timeout_s: float = LIST_TIMEOUT_S) -> tuple[str, ...]:
    """The test ids ``project``'s tree in ``box`` defines (its recipe's exclusions left out).

    Raises:
        TaskFormatError: The listing failed (its output's tail says why).
    """
    toolchain = project.toolchain
    result = box.run(("/bin/sh", "-c", toolchain.list), cwd=project.root, env=dict(toolchain.env),
                     timeout_s=timeout_s, output_bytes=4 << 20, background="kill")  # fmt: skip
    if result.exit_code != 0 or result.elided_bytes:
        raise TaskFormatError(f"listing {project.name}'s tests failed ({_ended(result)}):\n{result.output[-2000:]}")
    ids = [line.strip() for line in result.output.splitlines() if line.strip()]
    return tuple(test_id for test_id in dict.fromkeys(ids) if test_id not in project.exclude)


def run_test(box: RootBox, project: Project, test_id: str, *, timeout_s: float = 60.0) -> CommandResult:
    """Run one test of ``project`` in ``box``; it passed iff the result's ``exit_code`` is 0."""
    toolchain = project.toolchain
    return box.run(("/bin/sh", "-c", toolchain.run_command(test_id)), cwd=project.root, env=dict(toolchain.env),
                   timeout_s=timeout_s + toolchain.startup_s, output_bytes=8_000, background="kill")  # fmt: skip


def run_batch(box: RootBox, project: Project, folder: str, names: Sequence[str], *,
              timeout_s: float = 60.0, limit_s: float | None = None) -> dict[str, bool]:  # fmt: skip
    """Run the tests ``names`` of ``folder`` in ``box`` with the language's batch command:
    name -> passed, for each one its report names (a test it leaves out is missing: run it on
    its own). The report is written outside the tree, at a path fresh for the run, and read by
    the machine's init once the runner and every process it started are gone. Where the report is read from the
    tests' own output, its passes count only when the batch exited 0 (a test that printed a
    runner's line for another cannot make it pass: that one runs on its own). The batch may
    take ``timeout_s`` a test (a share of its tests at a time), and never more than
    ``limit_s``.

    Raises:
        NotBuilt: The runner found the tree does not build before it ran any test.
    """
    toolchain = project.toolchain
    nonce = secrets.token_hex(8)
    tests, report = f"/tmp/codegym-tests-{nonce}", f"/tmp/codegym-report-{nonce}"
    listing = "\n".join(names) + "\n"
    write = f"printf '%s' {shlex.quote(listing)} > {tests} || exit 125"  # (the names, then the runner: one request)
    budget = timeout_s * max(1, math.ceil(len(names) / BATCH_TESTS_PER_TIMEOUT)) + toolchain.startup_s
    budget = budget if limit_s is None else max(1.0, min(budget, limit_s))
    ran = box.run(("/bin/sh", "-c", f"{write}\n{toolchain.batch_command(folder, tests, report)}"), cwd=project.root,
                  env=dict(toolchain.env), timeout_s=budget, output_bytes=4_000, background="kill",
                  collect=report, collect_bytes=REPORT_BYTES)  # fmt: skip
    if ran.collected is None:  # (none, or too long to be the tests')
        return {}
    reason = reports.bailed_out(toolchain.report, ran.collected.decode(errors="replace"))
    if reason is not None:
        raise NotBuilt(reason[-4000:])
    outcomes = reports.parse(toolchain.report, ran.collected.decode(errors="replace"), toolchain.report_name)
    trusted = not toolchain.report_from_output or ran.exit_code == 0
    return {name: outcomes[name] for name in names if name in outcomes and (trusted or not outcomes[name])}


def _ended(result: CommandResult) -> str:
    if result.timed_out:
        return "timed out"
    if result.signal is not None:
        return f"killed by signal {result.signal}"
    return f"exit status {result.exit_code}" if not result.elided_bytes else "its output was too long"
