"""Tasks from a project of any language: its reference run, its bugs, and trees judged in its machine.

`judge` runs a tree in a fresh machine of the project (`codegym.envs.repo_repair.projects`):
the project's built layers, under a layer of the tree's changed files; the project's build,
run again (warm: its caches are in the layers), then the tests: in batches whose report the
harness reads, where the language's runner writes one, else each in a process of its own,
whose exit status the machine's init reads. A build that fails fails every test (no test
binary of the pristine tree may judge a changed one).

`reference` runs the pristine tree ``runs`` times: tests that pass every time are the
reference, those whose outcome changes are flaky and left out. `draw_tasks` draws bugs
(`codegym.envs.repo_repair.syntax_mutations`) across the project's source files and keeps
those that break some reference tests (FAIL_TO_PASS) and leave the rest passing
(PASS_TO_PASS), the same in every run.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import posixpath
import random
import stat
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from codegym.envs.repo_repair import patch, projects, syntax_mutations
from codegym.envs.repo_repair.projects import LIST_TIMEOUT_S, Project

from codegym.error import TaskFormatError
from codegym.executor.rootbox import ID_BASE, BoxSpec, RootBox, fresh_box, make_folders

BUILD_TIMEOUT_S = 600.0
DRAW_TEST_TIMEOUT_S = 10.0  # (a bug that loops fails its tests here, and costs no more)
DRAW_RUN_BUDGET = (20.0, 3.0)  # (a bug's run may take 20 s + 3 times the pristine run's; past that it is given up)
DRAW_ALONE_MORE = 5  # (a bug's batches may leave out 5 tests more than the pristine tree's; past that it is given up)
REVERSED_FIX = "reversed_fix"  # (a bug kind: an upstream fix the package carries, taken back out)


@dataclass(frozen=True)
class TreeRun:
    """One tree's run: whether it built, and each test's outcome (True: passed).

    Attributes:
        built: Whether the project's build succeeded on the tree.
        passed: Test id -> passed, for every test asked about (all False when not built).
        build_output: The build's output tail (where it failed, what the compiler said).
        alone: How many tests ran on their own (no batch reported them).
    """

    built: bool
    passed: Mapping[str, bool]
    build_output: str = ""
    alone: int = 0  # (tests that ran on their own: no batch reported them)


@dataclass(frozen=True)
class Reference:
    """The pristine tree's tests: those that passed in every run, those that changed, those
    that never passed; the seconds a run took (its share of the build included), and how
    many tests ran on their own in a run at most (no batch reported them)."""

    tests: tuple[str, ...]
    flaky: tuple[str, ...]
    failing: tuple[str, ...]
    seconds: float = 0.0
    alone: int = 0


class GaveUp(Exception):
    """A draw gave a bug up: its runs went past their budget (it hangs its tests), or its
    batches left out more tests than the pristine tree's (it breaks the runner: each test
    left out would run on its own)."""


@dataclass(frozen=True)
class _Limits:
    deadline: float | None = None  # (a `time.monotonic` time)
    alone: int | None = None  # (tests that may run on their own)

    def left(self, most: float) -> float:
        """Seconds a command may take: ``most``, or less where the deadline comes first."""
        return most if self.deadline is None else max(1.0, min(most, self.deadline - time.monotonic()))


@dataclass(frozen=True)
class Drawn:
    """A bug that makes a task: its address, its file's text, and the tests it breaks."""

    path: str
    kind: str
    index: int
    line: int
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    sha256: str = ""  # (of the file with the bug: a task file's check that its address still finds it)


def source_files(project: Project, layers: Sequence[str]) -> Mapping[str, bytes]:
    """The project's source files (its language's source globs, less its test globs), as
    the built machine holds them: relative path -> bytes (read once per machine: layers
    never change)."""
    toolchain = project.toolchain
    return _tree_files(project.root, tuple(layers), toolchain.sources, toolchain.tests)


def test_files(project: Project, layers: Sequence[str]) -> Mapping[str, bytes]:
    """The project's test files (its language's test globs), as the built machine holds them."""
    return _tree_files(project.root, tuple(layers), project.toolchain.tests, ())


@functools.lru_cache(maxsize=64)
def _tree_files(root: str, layers: tuple[str, ...], globs: tuple[str, ...],
                but: tuple[str, ...]) -> Mapping[str, bytes]:  # fmt: skip
    """The files under ``root`` in the layer that placed the tree that match ``globs`` and not ``but``."""
    tree = Path(layers[1], root.lstrip("/"))  # (the layer that placed the tree)
    found: dict[str, bytes] = {}
    for path in sorted(tree.rglob("*")):
        relative = path.relative_to(tree).as_posix()
        if _matches(relative, globs) and not _matches(relative, but) and path.is_file() and not path.is_symlink():
            found[relative] = path.read_bytes()
    return MappingProxyType(found)


def is_source(project: Project, relative: str) -> bool:
    """Whether ``relative`` (a path in the project's tree) is a source file a fix may change."""
    toolchain = project.toolchain
    return _matches(relative, toolchain.sources) and not _matches(relative, toolchain.tests)


def _matches(relative: str, globs: Sequence[str]) -> bool:
    return any(
        fnmatch.fnmatch(relative, glob) or (glob.startswith("**/") and fnmatch.fnmatch(relative, glob[3:]))
        for glob in globs
    )


def judge(
    project: Project,
    layers: Sequence[str],
    files: Mapping[str, bytes],
    tests: Sequence[str] | None = None,
    *,
    test_timeout_s: float = 60.0,
) -> TreeRun:
    """Run ``tests`` (None: every test the tree lists) on the project's tree with ``files``
    (relative path -> new content) in place, in a fresh machine; a test past
    ``test_timeout_s`` fails."""
    return judge_runs(project, layers, files, tests, runs=1, test_timeout_s=test_timeout_s)[0]


def judge_runs(
    project: Project,
    layers: Sequence[str],
    files: Mapping[str, bytes],
    tests: Sequence[str] | None = None,
    *,
    runs: int,
    test_timeout_s: float = 60.0,
    go_on: Callable[[TreeRun], bool] = lambda run: True,
    budget_s: float | None = None,
    alone_at_most: int | None = None,
) -> list[TreeRun]:
    """`judge`, with the tests run ``runs`` times over one build in one machine (each run
    sees what the ones before left: a test that depends on it changes, and is flaky). The
    runs stop early after one that ``go_on`` rejects (a draw's bug that broke nothing).

    Raises:
        GaveUp: The runs took more than ``budget_s`` after the build, or a run's batches
            left out more than ``alone_at_most`` tests (a draw's bug that hangs its tests
            or breaks their runner: no task, and each of its tests would run alone).
    """
    with fresh_box(BoxSpec(layers=tuple(layers))) as box:
        box.write_files(in_tree(project, files))
        toolchain, built = project.toolchain, ""
        if toolchain.build:
            build = box.run(("/bin/sh", "-c", toolchain.build), cwd=project.root, env=dict(toolchain.env),
                            timeout_s=BUILD_TIMEOUT_S, output_bytes=16_000, background="kill")  # fmt: skip
            built = build.output[-4000:]
            if build.exit_code != 0:
                wanted = tuple(tests) if tests is not None else ()
                return [TreeRun(False, dict.fromkeys(wanted, False), built)] * runs
        limits = _Limits(None if budget_s is None else time.monotonic() + budget_s, alone_at_most)
        listing = functools.cache(lambda: projects.list_tests(box, project, timeout_s=limits.left(LIST_TIMEOUT_S)))
        done: list[TreeRun] = []
        try:
            wanted = tuple(tests) if tests is not None else listing()
            while len(done) < runs and (not done or go_on(done[-1])):
                outcomes, alone = _outcomes(box, project, wanted, listing, test_timeout_s, limits)
                done.append(TreeRun(True, outcomes, built, alone))
        # (a tree whose tests cannot be listed, or whose runner found it does not build, a bug's or a fix's,
        # fails them all)
        except (TaskFormatError, projects.NotBuilt) as e:
            wanted = tuple(tests) if tests is not None else ()
            return [TreeRun(False, dict.fromkeys(wanted, False), str(e)[-4000:])] * runs
        return done


def _outcomes(box: RootBox, project: Project, wanted: Sequence[str], listing: Callable[[], Sequence[str]],
              timeout_s: float, limits: _Limits) -> tuple[dict[str, bool], int]:  # fmt: skip
    """Whether each of ``wanted`` passes: a batch's report says it passed, or it is in the
    tree's ``listing`` (a runner asked for a test it does not have may well exit 0) and it
    passed on its own. A test named without its folder (``*::name``, as a dataset row names
    it) passes where the tree defines it, in every folder that does (a name it does not
    define fails). With them, how many tests ran on their own."""
    concrete = {test: _defined(test, listing()) if test.startswith("*::") else [test] for test in wanted}
    ids = list(dict.fromkeys(i for found in concrete.values() for i in found))
    ran, alone = _run_all(box, project, ids, listing, timeout_s, limits)
    return {test: bool(ids) and all(ran[i] for i in ids) for test, ids in concrete.items()}, alone


def _defined(test: str, listed: Sequence[str]) -> list[str]:
    """The ids ``test`` stands for in a tree that lists ``listed`` (none: it is not defined)."""
    if not test.startswith("*::"):
        folder, name = projects.split_id(test)
        return [test] if f"{folder}::{name.split('/', 1)[0]}" in listed else []
    name = test[3:]
    top = name.split("/", 1)[0]
    return [f"{projects.split_id(found)[0]}::{name}" for found in listed if projects.split_id(found)[1] == top]


def _run_all(box: RootBox, project: Project, ids: Sequence[str], listing: Callable[[], Sequence[str]],
             timeout_s: float, limits: _Limits) -> tuple[dict[str, bool], int]:  # fmt: skip
    """Run ``ids``: in batches, a folder each (one for all, where the recipe says
    ``batch_all_folders``), where the language has a batch command (a test the report names ran: the tree
    has it); the rest (subtests, and any a batch did not report), each in a process of its
    own where the tree's ``listing`` has it, else failed. Outcomes, and how many ran on
    their own. Past ``limits``, `GaveUp`."""
    passed: dict[str, bool] = {}
    toolchain = project.toolchain
    if toolchain.batch:
        folders: dict[str, list[str]] = {}
        for test in ids:
            folder, name = projects.split_id(test)
            if "/" not in name:  # (a subtest runs on its own)
                folders.setdefault(folder, []).append(name)

        def batch(folder: str, names: Sequence[str]) -> dict[str, bool]:
            left = None if limits.deadline is None else limits.left(float("inf"))
            return projects.run_batch(box, project, folder, names, timeout_s=timeout_s, limit_s=left)

        if toolchain.batch_all_folders:
            every = list(dict.fromkeys(name for names in folders.values() for name in names))
            reports = dict.fromkeys(folders, batch(".", every) if every else {})
        else:
            reports = {folder: batch(folder, names) for folder, names in folders.items()}
        for folder, names in folders.items():
            passed.update({f"{folder}::{name}": reports[folder][name] for name in names if name in reports[folder]})
    missing = [test for test in ids if test not in passed]
    if limits.alone is not None and len(missing) > limits.alone:
        raise GaveUp(f"{project.name}: its batches left out {len(missing)} tests")
    listed = set(listing()) if missing else set()
    alone = [test for test in missing if _defined(test, listed)]
    passed.update(dict.fromkeys(set(missing) - set(alone), False))
    for test in alone:
        if limits.deadline is not None and time.monotonic() > limits.deadline:
            raise GaveUp(f"{project.name}: the tests ran past their budget")
        passed[test] = projects.run_test(box, project, test, timeout_s=timeout_s).exit_code == 0
    return passed, len(alone)


def reference(project: Project, layers: Sequence[str], runs: int = 3) -> Reference:
    """The pristine tree's outcomes over ``runs`` runs."""
    started = time.monotonic()
    outcomes = judge_runs(project, layers, {}, runs=runs)
    seconds = (time.monotonic() - started) / max(runs, 1)
    alone = max((run.alone for run in outcomes), default=0)
    if not outcomes[0].built:
        raise TaskFormatError(f"{project.name}'s pristine tree does not build or list its tests:\n"
                              f"{outcomes[0].build_output[-2000:]}")  # fmt: skip
    ids = list(outcomes[0].passed)
    always = [test for test in ids if all(run.passed.get(test) for run in outcomes)]
    never = [test for test in ids if not any(run.passed.get(test) for run in outcomes)]
    flaky = [test for test in ids if test not in always and test not in never]
    return Reference(tuple(always), tuple(flaky), tuple(never), seconds, alone)


def draw_tasks(
    project: Project,
    layers: Sequence[str],
    ref: Reference,
    *,
    count: int,
    seed: int = 0,
    runs: int = 3,
    attempts: int | None = None,
    skip: Collection[tuple[str, str, int]] = (),
) -> Iterator[Drawn]:
    """Up to ``count`` bugs of ``project`` that make tasks (see the module docstring), drawn
    in a seeded order from every site of every kind, less the addresses ``skip`` (path,
    kind, index: a task file's, being grown); at most ``attempts`` tried (``4 * count``)."""
    if count <= 0:
        return
    sources = source_files(project, layers)
    candidates = [
        (path, mutant.kind, mutant.index)
        for path, text in sources.items()
        for mutant in syntax_mutations.mutants(path, text, project.language)
        if not _fix_refused(project, path, text, mutant.text)
    ]
    random.Random(seed).shuffle(candidates)
    fixes = [("", REVERSED_FIX, index) for index in range(len(project.fixes))]  # (real bugs first)
    skipped = set(skip)
    taken = {(kind, index) for _, kind, index in skipped if kind == REVERSED_FIX}  # (a real bug's path is its own)
    fixes = [fix for fix in fixes if fix[1:] not in taken]
    candidates = [candidate for candidate in candidates if candidate not in skipped]
    made = 0
    for path, kind, index in [*fixes, *candidates[: attempts or 4 * count]]:
        mutant = bug(project, layers, sources, path, kind, index)
        if mutant is None or (kind == REVERSED_FIX and _fix_refused(project, mutant.path, sources[mutant.path],
                                                                    mutant.text)):  # fmt: skip
            continue
        drawn = _keep(project, layers, ref, mutant, runs)
        if drawn is not None:
            yield drawn
            made += 1
            if made >= count:
                return


def _fix_refused(project: Project, path: str, text: bytes, bug: bytes) -> bool:
    """Whether the fix of a bug (``text`` again, from the file ``bug``) adds a line the
    language's integrity patterns refuse (a bug on a line that exits the process: its task
    could not be solved)."""
    from codegym.envs.repo_repair.project_env import forbidden  # (it imports this module)

    return forbidden(project.language, {path: bug.decode(errors="replace")}, {path: text}) is not None


def bug(project: Project, layers: Sequence[str], sources: Mapping[str, bytes], path: str, kind: str,
        index: int) -> syntax_mutations.Mutant | None:  # fmt: skip
    """The bug at an address: the ``index``-th site of a syntax ``kind`` in ``path``, or (kind
    `REVERSED_FIX`) the ``index``-th of the project's ``fixes`` taken back out of its source
    files (one file's; ``path``, when given, must be it). None where there is none."""
    if kind != REVERSED_FIX:
        text = sources.get(path)
        return None if text is None else syntax_mutations.mutant(path, text, project.language, kind, index)
    if not 0 <= index < len(project.fixes):
        return None
    diff = fix_patch(project, layers, project.fixes[index])
    texts = {name: data.decode(errors="surrogateescape") for name, data in sources.items()}
    try:
        undone = patch.unapply(diff, texts, lambda name: name in sources)
    except patch.PatchError:
        return None
    if len(undone) != 1 or (path and path not in undone):
        return None
    ((where, text),) = undone.items()
    pairs = zip(texts[where].splitlines(), text.splitlines(), strict=False)
    line = next((number for number, (fixed, buggy) in enumerate(pairs, 1) if fixed != buggy), 1)
    return syntax_mutations.Mutant(where, REVERSED_FIX, index, line, text.encode(errors="surrogateescape"))


def fix_patch(project: Project, layers: Sequence[str], relative: str) -> str:
    """The text of a fix of ``project`` (``relative`` to its unpacked source package), from
    the layer that fetched it.

    Raises:
        TaskFormatError: No layer holds it (the recipe names a patch the package lacks).
    """
    for layer in layers:
        found = Path(layer, project.origin.lstrip("/"), relative)
        if found.is_file():
            return found.read_text(errors="surrogateescape")
    raise TaskFormatError(f"{project.name}: no fix {relative!r} under {project.origin} (its recipe's fixes)")


def _keep(project: Project, layers: Sequence[str], ref: Reference, mutant: syntax_mutations.Mutant,
          runs: int) -> Drawn | None:  # fmt: skip
    """The task ``mutant`` makes, if every run agrees that it breaks some reference tests and
    not all (the runs stop at the first that cannot make a task; a bug whose runs take much
    longer than the pristine tree's, or whose batches leave out more tests, one that hangs
    its tests or breaks their runner, is given up: `GaveUp`)."""

    def could_make_task(run: TreeRun) -> bool:
        return 0 < sum(not passed for passed in run.passed.values()) < len(ref.tests)

    budget, factor = DRAW_RUN_BUDGET
    budget_s = runs * (budget + factor * ref.seconds) if ref.seconds else None
    # (where the report is read from the tests' output, Go's and Java's, a failed test sends the
    # passes to run alone: there only the budget counts)
    alone = None if project.toolchain.report_from_output else ref.alone + DRAW_ALONE_MORE
    files = {mutant.path: mutant.text}
    try:
        done = judge_runs(project, layers, files, ref.tests, runs=runs, test_timeout_s=DRAW_TEST_TIMEOUT_S,
                          go_on=could_make_task, budget_s=budget_s, alone_at_most=alone)  # fmt: skip
    except GaveUp:
        return None
    broken = [frozenset(test for test, passed in run.passed.items() if not passed) for run in done]
    if len(done) < runs or not all(run.built for run in done) or len(set(broken)) != 1:
        return None
    if not could_make_task(done[0]):
        return None
    fail = tuple(test for test in ref.tests if test in broken[0])
    keep = tuple(test for test in ref.tests if test not in broken[0])
    digest = hashlib.sha256(mutant.text).hexdigest()
    return Drawn(mutant.path, mutant.kind, mutant.index, mutant.line, fail, keep, digest)


def symptom(project: Project, layers: Sequence[str], drawn: Drawn, lines: int = 15) -> str:
    """What the bug's first failing test prints (its output's last ``lines``): the task's symptom."""
    sources = source_files(project, layers)
    buggy = bug(project, layers, sources, drawn.path, drawn.kind, drawn.index)
    if buggy is None:
        return ""
    with fresh_box(BoxSpec(layers=tuple(layers))) as box:
        box.write_files(in_tree(project, {buggy.path: buggy.text}))
        toolchain = project.toolchain
        box.run(("/bin/sh", "-c", toolchain.build), cwd=project.root, env=dict(toolchain.env),
                timeout_s=BUILD_TIMEOUT_S, background="kill")  # fmt: skip
        output = projects.run_test(box, project, drawn.fail_to_pass[0]).output
    return "\n".join(output.strip().splitlines()[-lines:])[-1500:]


def in_tree(project: Project, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` (relative path -> content) at their paths in the project's machine.

    Raises:
        ValueError: A path that leads out of the tree (a diff's paths were checked before:
            this is the last guard before the machine's init writes them as root).
    """
    placed = {posixpath.normpath(posixpath.join(project.root, path)): content for path, content in files.items()}
    outside = [path for path in placed if not path.startswith(project.root.rstrip("/") + "/")]
    if outside:
        raise ValueError(f"{project.name}: files outside its tree {project.root}: {outside[:3]}")
    return placed


def write_tree(folder: str, root: str, files: Mapping[str, bytes], whiteouts: Sequence[str] = ()) -> None:
    """Write ``files`` under ``folder/root`` and whiteouts over ``whiteouts`` (files of the
    layers below that the machine must not show), every entry owned by root inside (run it
    through `as_owner`)."""
    os.chown(folder, ID_BASE, ID_BASE)  # (a layer's root is the machine's /)
    for relative, content in files.items():
        path = Path(folder, root.lstrip("/"), relative)
        make_folders(path.parent)
        path.write_bytes(content)
        os.chown(path, ID_BASE, ID_BASE)
        os.chmod(path, 0o644)
    for relative in whiteouts:
        path = Path(folder, root.lstrip("/"), relative)
        make_folders(path.parent)
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(0, 0))
