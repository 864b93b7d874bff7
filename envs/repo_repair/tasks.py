"""Repository-repair tasks: the bundled ones (bugs injected into pinned PyPI libraries) and
SWE-bench-format JSONL over local checkouts.

A task's `Instance` (in ``task.metadata["instance"]``) holds what grading needs: the library,
the tree the agent starts from (`Instance.workspace`: the buggy tree without its hidden test
files), the tree the tests run in (`Instance.graded`: the buggy tree with every test file),
and the expected outcomes. The bundled task files hold no third-party text: each bug is an
address (file, kind, index among that kind's candidates in the file, and the patch's hash),
made again from the library's pinned sdist when the task set loads.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from codegym.envs.repo_repair import patch as patching
from codegym.envs.repo_repair.grader import Expected
from codegym.envs.repo_repair.library import Library, archive_members, fetch
from codegym.envs.repo_repair.mutations import KINDS, Mutation, candidates

from codegym.error import TaskFormatError
from codegym.task import (
    Difficulty,
    Task,
    TaskSet,
    TestCase,
    array_item_lines,
    as_rows,
    check_fields,
    parse_json,
    read_rows,
    read_text,
    row_errors,
)

FAMILY = "repo_repair"
DATA = Path(__file__).with_name("data")
SWE_BENCH_FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")
SWE_BENCH_ROW = "a SWE-bench row: " + ", ".join(SWE_BENCH_FIELDS) + " (problem_statement optional)"
_NODES = (list, str)  # (SWE-bench publishes the lists as JSON-encoded strings)
SWE_BENCH_TYPES: dict[str, type | tuple[type, ...]] = {"instance_id": (str, int), "repo": str, "base_commit": str,
                                                       "patch": str, "test_patch": str, "FAIL_TO_PASS": _NODES,
                                                       "PASS_TO_PASS": _NODES}  # fmt: skip
TASK_FILE = "a task file from `codegym repo build`: a JSON object with library, passing and tasks"
TASK_ROW: dict[str, type | tuple[type, ...]] = {"id": str, "path": str, "kind": str, "index": int, "patch_sha256": str,
                                                "FAIL_TO_PASS": list}  # fmt: skip
# How hard a bug of each kind is to find from its symptom, before the count of failing tests.
KIND_POINTS = {"drop_method": 0, "shuffle_statements": 2}


@dataclass(frozen=True)
class Image:
    """A task image already in the Docker engine (SWE-bench, SWE-Gym and SWE-smith publish one
    per task or repository): the repository at ``root`` and the Python environment its tests
    run in. The image's files are read once, at load; its jobs run in warm containers of it
    (the docker backend), with ``binds`` shown read-only in the sandbox's view.

    Attributes:
        name: The image (``"swebench/sweb.eval.x86_64.astropy__astropy-12907:latest"``).
        python: The environment's interpreter in the image.
        root: The checkout in the image.
        binds: Folders of the image the tests need besides its toolchain (the environment).
    """

    name: str
    python: str = "/opt/miniconda3/envs/testbed/bin/python"
    root: str = "/testbed"
    binds: tuple[str, ...] = ("/opt/miniconda3",)


@dataclass(frozen=True, eq=False)
class Instance:
    """One task's trees and tests.

    Attributes:
        library: The library (its source and test paths, its environment).
        base: The tree before ``bug_patch`` (the pristine library, or a checkout).
        bug_patch: The injected bug (empty where ``base`` is already buggy).
        test_patch: Test changes applied for grading only (SWE-bench's ``test_patch``).
        hidden_files: Files of the graded tree kept out of the workspace.
        expected: The tests and what they must do.
        image: Where the tests run when the task brings its own environment (else in the
            family's workers, with the library's test environment).
    """

    library: Library
    base: Mapping[str, bytes] = field(repr=False)
    bug_patch: str
    expected: Expected
    test_patch: str = ""
    hidden_files: tuple[str, ...] = ()
    image: Image | None = None

    @cached_property
    def buggy(self) -> dict[str, bytes]:
        return _patched(self.base, self.bug_patch)

    @cached_property
    def graded(self) -> dict[str, bytes]:
        """The tree the tests run in, before the repair: the buggy tree and every test file."""
        return _patched(self.buggy, self.test_patch)

    @cached_property
    def workspace(self) -> dict[str, bytes]:
        """The tree the agent starts from: the buggy tree without the hidden test files."""
        hidden = set(self.hidden_files)
        return {path: content for path, content in self.buggy.items() if path not in hidden}

    @cached_property
    def texts(self) -> dict[str, str]:
        """The workspace's text files, as a diff against it is applied to them."""
        return {path: content.decode() for path, content in self.workspace.items() if _is_text(content)}


def _patched(files: Mapping[str, bytes], diff: str) -> dict[str, bytes]:
    if not diff.strip():
        return dict(files)
    texts = {path: content.decode() for path, content in files.items() if _is_text(content)}
    changed = patching.apply(diff, texts)
    result = dict(files)
    for path, text in changed.items():
        if text is None:
            result.pop(path, None)
        else:
            result[path] = text.encode()
    return result


def _is_text(content: bytes) -> bool:
    try:
        content.decode()
    except UnicodeDecodeError:
        return False
    return True


def file_of(node: str) -> str:
    """The file of a pytest node id (``tests/test_x.py::TestY::test_z[1]``)."""
    return node.split("::", 1)[0]


def difficulty_of(kind: str, failing: int) -> Difficulty:
    """From the bug's kind and how many tests show it: fewer failing tests, less to go on."""
    points = KIND_POINTS.get(kind, 1) + (0 if failing >= 5 else 1 if failing >= 2 else 2)
    return "easy" if points <= 1 else "medium" if points == 2 else "hard"


def statement(library: Library, failing: Sequence[str], symptom: str) -> str:
    """The problem statement, from a template: the symptom, never the cause."""
    shown = ", ".join(f"`{node}`" for node in failing[:3]) + (
        f" and {len(failing) - 3} more" if len(failing) > 3 else ""
    )
    lines = [
        f"A bug has been introduced into the source of {library.name} {library.version}. "
        f"{len(failing)} of its tests that used to pass now fail: {shown}.",
    ]
    if symptom:
        lines += ["", "The first of them fails with:", "", *(f"    {line}" for line in symptom.splitlines())]
    lines += [
        "",
        "Fix the library's source code so that these tests pass again without breaking any other test. "
        "Do not change the tests: they are restored before grading, and the failing ones are not in the repository.",
    ]
    return "\n".join(lines)


def make_task(
    task_id: str,
    instance: Instance,
    *,
    prompt: str,
    reference: str,
    difficulty: Difficulty | None = None,
    tags: Iterable[str] = (),
    **metadata: Any,
) -> Task:
    """A `Task` of the family: its tests are the FAIL_TO_PASS and PASS_TO_PASS node ids."""
    expected = instance.expected
    tests = tuple(
        TestCase(name=node, code=node, hidden=node in expected.hidden, tier=tier)
        for tier, nodes in (("fail_to_pass", expected.fail_to_pass), ("pass_to_pass", expected.pass_to_pass))
        for node in nodes
    )
    return Task(
        id=task_id,
        family=FAMILY,
        prompt=prompt,
        tests=tests,
        language="diff",
        difficulty=difficulty,
        tags=tuple(tags),
        reference=reference,
        metadata={"instance": instance, "library": instance.library.key, **metadata},
    )


# --- bundled tasks ------------------------------------------------------------------------


def bundled_libraries() -> list[str]:
    """The libraries with bundled task files."""
    return sorted(path.stem for path in DATA.glob("*.json"))


def load_bundled(libraries: Iterable[str] | None = None) -> TaskSet:
    """The bundled tasks of ``libraries`` (all when None). Each library's sdist is fetched
    from PyPI by its pinned hash on first use, and cached."""
    names = list(libraries) if libraries is not None else bundled_libraries()
    unknown = sorted(set(names) - set(bundled_libraries()))
    if unknown:
        raise TaskFormatError(f"no bundled tasks for {unknown}; bundled libraries: {bundled_libraries()}")
    tasks = [task for name in names for task in _bundled_file(name)]
    return TaskSet(tasks, name="repo-bundled" if libraries is None else f"repo-{'+'.join(names)}")


@functools.cache
def _bundled_file(name: str) -> tuple[Task, ...]:
    return tuple(load_library_file(DATA / f"{name}.json"))


def load_library_file(path: str | Path) -> list[Task]:
    """The tasks of one library's task file (the format `codegym repo build` writes).

    Raises:
        TaskFormatError: The file is missing, empty or not JSON, or a field is missing or of
            the wrong type (the message names the file, the task row's line and the field).
    """
    text = read_text(path, expected=TASK_FILE)
    document = parse_json(text, path, expected=TASK_FILE)
    if not isinstance(document, Mapping):
        raise TaskFormatError(f"{path}: expected {TASK_FILE}; got a JSON {type(document).__name__}")
    check_fields(document, str(path), kind="repository-repair", required={"library": Mapping, "passing": list,
                 "tasks": list}, optional={"skipped": list}, noun="task file")  # fmt: skip
    for where, row in _task_rows(text, path, document["tasks"]):
        if not isinstance(row, Mapping):
            raise TaskFormatError(f"{where}: each of tasks must be an object ({', '.join(TASK_ROW)}); got {row!r:.80}")
        check_fields(row, where, kind="repository-repair task", required=TASK_ROW,
                     optional={"symptom": str, "difficulty": str})  # fmt: skip
    try:
        library = Library.from_dict(document["library"])
    except TaskFormatError as e:
        raise TaskFormatError(f"{path}: field 'library': {e}") from e
    return tasks_of(library, document)


def _task_rows(text: str, path: str | Path, rows: list[Any]) -> list[tuple[str, Any]]:
    """The task rows of a task file, each with where it is: ``FILE:LINE`` (``FILE tasks[N]``
    where the lines cannot be told)."""
    opening = list(re.finditer(r'"tasks"\s*:\s*\[', text))
    lines = array_item_lines(text, opening[-1].end() - 1) if opening else []
    if len(lines) != len(rows):
        return [(f"{path} tasks[{i}]", row) for i, row in enumerate(rows)]
    return [(f"{path}:{line}", row) for line, row in zip(lines, rows, strict=True)]


@functools.lru_cache(maxsize=32)
def _pristine(library: Library) -> Mapping[str, bytes]:
    return fetch(library)


def tasks_of(library: Library, document: Mapping[str, Any]) -> list[Task]:
    """Tasks from a task file's rows (see `codegym.envs.repo_repair.build`)."""
    base = _pristine(library)
    passing = tuple(document["passing"])
    skipped = frozenset(document.get("skipped", ()))
    finder = _MutationFinder(library, base)
    tasks = []
    for row in document["tasks"]:
        mutation = finder.find(row)
        failing = tuple(row["FAIL_TO_PASS"])
        hidden_files = tuple(sorted({file_of(node) for node in failing}))
        hidden = frozenset(node for node in passing if file_of(node) in hidden_files)
        kept = tuple(node for node in passing if node not in set(failing))
        expected = Expected(failing, kept, skipped, hidden)
        instance = Instance(library, base, mutation.bug_patch(), expected, hidden_files=hidden_files)
        tasks.append(
            make_task(
                row["id"],
                instance,
                prompt=statement(library, failing, row.get("symptom", "")),
                reference=mutation.fix_patch(),
                difficulty=row.get("difficulty") or difficulty_of(mutation.kind, len(failing)),
                tags=(library.name, mutation.kind),
                kind=mutation.kind,
                bug_path=mutation.path,
                bug_line=mutation.line,
            )
        )
    return tasks


class _MutationFinder:
    """Makes a row's mutation again from its address, checking the patch's hash."""

    def __init__(self, library: Library, files: Mapping[str, bytes]) -> None:
        self.library = library
        self.files = files
        self._found: dict[tuple[str, str], list[Mutation]] = {}

    def find(self, row: Mapping[str, Any]) -> Mutation:
        path, kind, index = row["path"], row["kind"], int(row["index"])
        if kind not in KINDS or path not in self.files:
            raise TaskFormatError(f"task {row.get('id')}: no {kind!r} bug can be made in {path!r}")
        key = (path, kind)
        if key not in self._found:
            self._found[key] = candidates(self.files[path].decode(), path, kinds=(kind,))
        found = self._found[key]
        mutation = found[index] if index < len(found) else None
        if mutation is None or patch_hash(mutation.bug_patch()) != row["patch_sha256"]:
            raise TaskFormatError(
                f"task {row.get('id')}: the {kind} bug #{index} of {path} in {self.library.key} is not the one "
                "recorded (the mutation code or the library changed); rebuild the task file with `codegym repo build`"
            )
        return mutation


def patch_hash(diff: str) -> str:
    return hashlib.sha256(diff.encode()).hexdigest()


# --- SWE-bench format ---------------------------------------------------------------------


def load_swe_bench(
    path: str | Path | Iterable[Mapping[str, Any]],
    checkouts: Mapping[str, str | Path] | None = None,
    *,
    images: str | Mapping[str, str] | None = None,
    image: Image = Image(""),
    test_requires: Mapping[str, Sequence[str]] | None = None,
    python_path: Mapping[str, Sequence[str]] | None = None,
) -> TaskSet:
    """Tasks from a SWE-bench-format JSONL file, over local git checkouts of their repositories
    or over task images already in the Docker engine.

    Args:
        path: The JSONL file, or its rows in memory (a list of dicts, a ``datasets.Dataset``)
            (``instance_id``, ``repo``, ``base_commit``, ``patch``,
            ``test_patch``, ``FAIL_TO_PASS``, ``PASS_TO_PASS``; the lists as JSON lists or as
            JSON-encoded strings, as SWE-bench publishes them; ``problem_statement`` if any).
        checkouts: ``repo`` (``"owner/name"``) -> a local git clone holding ``base_commit``;
            the tests run in the family's workers with a test environment of pytest and
            ``test_requires``.
        images: Instead of checkouts: each row's image, as a format string of the row's fields
            (``"swebench/sweb.eval.x86_64.{instance_id}:latest"``) or ``instance_id`` ->
            image. The repository is read from the image at ``image.root`` (at its
            ``base_commit``, as those images hold it) and the tests run in containers of it
            (`codegym.executor.docker.DockerExecutor`) under its own environment.
        image: Where the checkout and the environment are in those images (`Image`; its
            ``name`` is ignored). SWE-bench's layout by default.
        test_requires: ``repo`` -> what its tests need besides pytest, pinned (checkouts).
        python_path: ``repo`` -> folders of the tree to import it from (``["src"]``).
    """
    if (checkouts is None) == (images is None):
        raise TaskFormatError("load_swe_bench needs checkouts={repo: path} or images=... (one of them)")
    tasks = []
    for number, row in _swe_rows(path):
        missing = [name for name in SWE_BENCH_FIELDS if name not in row]
        if missing:
            raise TaskFormatError(
                f"{number}: a SWE-bench row needs {list(SWE_BENCH_FIELDS)}; missing {missing}, found {sorted(row)}"
            )
        check_fields(row, number, kind="SWE-bench", required=SWE_BENCH_TYPES, optional={"problem_statement": str})
        with row_errors(number, SWE_BENCH_ROW):  # (before any checkout is read)
            _node_list(row["FAIL_TO_PASS"])
            _node_list(row["PASS_TO_PASS"])
        repo = row["repo"]
        paths = (python_path or {}).get(repo)
        if images is not None:
            name = images.format(**row) if isinstance(images, str) else images.get(str(row["instance_id"]))
            if not name:
                raise TaskFormatError(f"{number}: no image given for {row['instance_id']!r}")
            tasks.append(_swe_task(row, None, (), paths, replace(image, name=name)))
            continue
        assert checkouts is not None
        if repo not in checkouts:
            raise TaskFormatError(f"{number}: no checkout given for {repo!r} (checkouts={{{repo!r}: PATH}})")
        tasks.append(_swe_task(row, Path(checkouts[repo]), (test_requires or {}).get(repo, ()), paths))
    name = Path(path).stem if isinstance(path, (str, Path)) else "swe-bench-rows"
    if not tasks:
        raise TaskFormatError(f"{name} holds no SWE-bench rows")
    return TaskSet(tasks, name=name)


def _swe_rows(source: str | Path | Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(where, row)`` for each row of a JSONL file (where: ``path:line``), or of rows in
    memory (a list of dicts, a ``datasets.Dataset``; where: ``row N``)."""
    rows = as_rows(source)
    if rows is not None:
        yield from ((f"row {number}", row) for number, row in enumerate(rows))
        return
    if not isinstance(source, (str, Path)):
        raise TaskFormatError(
            f"SWE-bench rows come as a JSONL path, a list of dicts or a datasets.Dataset; got {type(source).__name__}"
        )
    yield from read_rows(source, expected=SWE_BENCH_ROW)


def _swe_task(
    row: Mapping[str, Any],
    checkout: Path | None,
    requires: Sequence[str],
    python_path: Sequence[str] | None,
    image: Image | None = None,
) -> Task:
    base = _tree_at(checkout, row["base_commit"]) if checkout is not None else _tree_in_image(image)
    f2p, p2p = _node_list(row["FAIL_TO_PASS"]), _node_list(row["PASS_TO_PASS"])
    test_files = _changed_files(row["test_patch"])
    library = Library(
        name=row["repo"],
        version=row["base_commit"][:12],
        sha256=row["base_commit"],
        packages=(".",),  # (any Python file of the tree that is not a test)
        tests=tuple(sorted({file_of(node) for node in (*f2p, *p2p)})),
        test_requires=tuple(requires),
        python_path=tuple(python_path or (".",)),
        path=str(checkout) if checkout is not None else None,
    )
    hidden_files = tuple(sorted(test_files))
    hidden = frozenset(node for node in (*f2p, *p2p) if file_of(node) in test_files)
    expected = Expected(f2p, p2p, frozenset(), hidden)
    instance = Instance(library, base, "", expected, row["test_patch"], hidden_files, image)
    prompt = row.get("problem_statement") or statement(library, f2p, "")
    return make_task(str(row["instance_id"]), instance, prompt=prompt, reference=row["patch"], tags=(row["repo"],))


def _node_list(value: Any) -> tuple[str, ...]:
    try:
        nodes = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        nodes = None
    if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
        raise TaskFormatError(
            f"fields 'FAIL_TO_PASS' and 'PASS_TO_PASS' are lists of test ids (or such a list as JSON text), got "
            f"{value!r:.100}"
        )
    return tuple(nodes)


def _changed_files(diff: str) -> set[str]:
    paths = set()
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            name = line[4:].split("\t")[0].strip()
            if name != "/dev/null":
                paths.add(name[2:] if name.startswith(("a/", "b/")) else name)
    return paths


def _tree_at(checkout: Path, commit: str) -> dict[str, bytes]:
    """The files of ``commit`` in the git clone ``checkout`` (read with ``git archive``)."""
    command = ["git", "-C", str(checkout), "archive", "--format=tar", commit]
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0:
        raise TaskFormatError(
            f"cannot read commit {commit} of {checkout}: {done.stderr.decode(errors='replace').strip()}"
        )
    return dict(archive_members(done.stdout))


def _tree_in_image(image: Image | None) -> dict[str, bytes]:
    """The files under ``image.root`` in the image (without ``.git``: its history may hold the fix)."""
    from codegym.executor.docker import connect

    assert image is not None
    container = connect().containers.create(image.name, command=["true"], network_disabled=True)
    try:
        stream, _ = container.get_archive(image.root)
        data = b"".join(stream)
    finally:
        container.remove(force=True)
    prefix = image.root.rstrip("/").rsplit("/", 1)[-1] + "/"
    files = ((path.removeprefix(prefix), content) for path, content in archive_members(data))
    return {path: content for path, content in files if path != ".git" and not path.startswith(".git/")}
