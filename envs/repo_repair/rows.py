"""Repository rows as the public multi-language datasets hold them, over local git checkouts.

Three layouts, told apart by their keys (one row per JSON line, a JSON list of rows, or a CSV
file with a header line):

- **SWE-bench Multilingual** (and SWE-bench's own): ``instance_id``, ``repo`` (``owner/name``),
  ``base_commit``, ``patch`` (the gold fix), ``test_patch``, ``FAIL_TO_PASS`` and
  ``PASS_TO_PASS`` (lists, or JSON text of lists), ``problem_statement``.
- **Multi-SWE-bench**: ``org``, ``repo``, ``number``, ``base`` (``{"sha": ...}``), ``fix_patch``,
  ``test_patch``, ``f2p_tests`` and ``p2p_tests`` (test name -> outcomes), ``title``, ``body``,
  ``resolved_issues``; ``instance_id`` (else ``org__repo-number``) and ``language`` when present.
- **SWE-PolyBench** (a CSV file): SWE-bench's keys, its tests named ``F2P`` and ``P2P`` (JSON
  text of lists), and ``language`` (``Java``, ``JavaScript``, ``TypeScript``, ``Python``).

A row's repository is a folder of ``repos`` (``owner__name``, ``owner/name`` or ``name``), a git
checkout the user provides. The agent's tree is the base commit's files as ``git archive`` gives
them: no history, no later commit, no gold patch (which is only the task's reference). The
row's test patch is the harness's: its files go over a submission when it is graded, never into
the agent's view. A row's tests are named as its dataset names them; each is found in the graded
tree's own listing (a Go test's package), and one the tree does not define fails.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegym.envs.repo_repair import patch
from codegym.envs.repo_repair.project_env import Repair, make_task
from codegym.envs.repo_repair.projects import Project, toolchains

from codegym.error import TaskFormatError
from codegym.executor.layers import FileEntry
from codegym.task import TaskSet

ROOT = "/work/repo"
# What marks a repository's language, where its row does not say (the first found wins).
MARKERS = (("go.mod", "go"), ("Cargo.toml", "rust"), ("pom.xml", "java"), ("build.gradle", "java"),
           ("tsconfig.json", "typescript"), ("package.json", "javascript"), ("composer.json", "php"),
           ("Gemfile", "ruby"), ("CMakeLists.txt", "cpp"), ("Makefile", "c"))  # fmt: skip
# The datasets' names for languages, as the recipes (data/languages/<name>.toml) name them.
LANGUAGE_NAMES = {"golang": "go", "js": "javascript", "ts": "typescript", "c++": "cpp", "rs": "rust"}
# A Go repository with a go.mod builds as a module, offline (its dependencies must be in its tree).
MODULE_ENV = {"go": {"GO111MODULE": "on", "GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOPATH": "/work/gopath"}}


@dataclass(frozen=True)
class Row:
    """One row, in either layout's terms."""

    instance_id: str
    repo: str
    base_commit: str
    gold_patch: str
    test_patch: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    statement: str
    language: str | None = None


def read_rows(path: str | Path) -> list[Row]:
    """The rows in ``path`` (JSON lines, one JSON list, or CSV), in any of the layouts."""
    text = Path(path).read_text()
    if str(path).endswith(".csv"):
        csv.field_size_limit(sys.maxsize)  # (a row's patches and statement are long fields)
        return [_row(item, f"{path} row {number}") for number, item in enumerate(csv.DictReader(io.StringIO(text)))]
    try:
        items = json.loads(text) if text.lstrip().startswith("[") else [
            json.loads(line) for line in text.splitlines() if line.strip()
        ]  # fmt: skip
    except json.JSONDecodeError as e:
        raise TaskFormatError(f"{path}: not JSON lines nor a JSON list of rows ({e})") from e
    return [_row(item, f"{path} row {number}") for number, item in enumerate(items)]


def _row(item: Mapping[str, Any], where: str) -> Row:
    if "fix_patch" in item:
        return _multi_swe_bench(item, where)
    if "F2P" in item:  # (SWE-PolyBench's names for the two test lists)
        item = {**item, "FAIL_TO_PASS": item["F2P"], "PASS_TO_PASS": item.get("P2P", [])}
    missing = [key for key in ("instance_id", "repo", "base_commit", "patch", "test_patch", "FAIL_TO_PASS")
               if key not in item]  # fmt: skip
    if missing:
        raise TaskFormatError(f"{where}: missing {', '.join(missing)} (a SWE-bench row), and no fix_patch "
                              "(a Multi-SWE-bench row)")  # fmt: skip
    return Row(
        instance_id=str(item["instance_id"]), repo=str(item["repo"]), base_commit=str(item["base_commit"]),
        gold_patch=str(item["patch"]), test_patch=str(item["test_patch"]),
        fail_to_pass=_names(item["FAIL_TO_PASS"]), pass_to_pass=_names(item.get("PASS_TO_PASS", [])),
        statement=str(item.get("problem_statement", "")), language=_language(item.get("language")),
    )  # fmt: skip


def _multi_swe_bench(item: Mapping[str, Any], where: str) -> Row:
    base = item.get("base")
    commit = base.get("sha") if isinstance(base, Mapping) else item.get("base_commit")
    org, name = str(item.get("org", "")), str(item.get("repo", ""))
    if not commit or not name:
        raise TaskFormatError(f"{where}: a Multi-SWE-bench row needs repo and base.sha (or base_commit)")
    repo = name if "/" in name else f"{org}/{name}"
    instance = item.get("instance_id") or f"{org}__{name}-{item.get('number', '')}"
    issues = [issue for issue in item.get("resolved_issues") or [] if isinstance(issue, Mapping)]
    parts = [str(item.get("title") or ""), str(item.get("body") or "")]
    parts += [f"{issue.get('title', '')}\n{issue.get('body', '')}".strip() for issue in issues]
    statement = "\n\n".join(part for part in parts if part.strip()) or str(item.get("problem_statement", ""))
    f2p = item.get("f2p_tests", item.get("FAIL_TO_PASS", {}))
    p2p = item.get("p2p_tests", item.get("PASS_TO_PASS", {}))
    return Row(str(instance), repo, str(commit), str(item["fix_patch"]), str(item.get("test_patch", "")),
               _names(f2p), _names(p2p), statement, _language(item.get("language")))  # fmt: skip


def _names(value: Any) -> tuple[str, ...]:
    """Test names from a list, a JSON text of one, or a mapping of name -> outcomes."""
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else []
    if isinstance(value, Mapping):
        return tuple(str(name) for name in value)
    return tuple(str(name) for name in value)


def _language(value: Any) -> str | None:
    if not value:
        return None
    name = str(value).lower()
    return LANGUAGE_NAMES.get(name, name)


# --- repositories -----------------------------------------------------------------------------------


def checkout(repos: Path, repo: str) -> Path:
    """The local git checkout of ``repo`` (``owner/name``) in ``repos``."""
    owner, _, name = repo.partition("/")
    candidates = [repos / f"{owner}__{name}", repos / owner / name, repos / name]
    for folder in candidates:
        if (folder / ".git").exists() or (folder / "HEAD").is_file():
            return folder
    raise TaskFormatError(f"no checkout of {repo} in {repos}: looked for {', '.join(str(c) for c in candidates)} "
                          f"(clone it there: git clone https://github.com/{repo} {candidates[0]})")  # fmt: skip


def tree_at(folder: Path, commit: str) -> dict[str, FileEntry]:
    """The files of ``commit`` in the checkout ``folder`` (``git archive``: no history)."""
    ran = subprocess.run(["git", "-C", str(folder), "archive", "--format=tar", commit], capture_output=True,
                         check=False)  # fmt: skip
    if ran.returncode != 0:
        raise TaskFormatError(f"{folder}: git archive {commit} failed: {ran.stderr.decode(errors='replace').strip()}")
    files: dict[str, FileEntry] = {}
    with tarfile.open(fileobj=io.BytesIO(ran.stdout)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                handle = tar.extractfile(member)
                assert handle is not None
                files[member.name] = FileEntry(handle.read(), 0o755 if member.mode & 0o111 else 0o644)
    return files


def language_of(files: Iterable[str]) -> str | None:
    """The language a repository's files say it is in (see `MARKERS`)."""
    present = set(files)
    return next((language for marker, language in MARKERS if marker in present), None)


def apply_texts(diff: str, files: Mapping[str, FileEntry], where: str) -> dict[str, bytes]:
    """The files ``diff`` changes over ``files``, as bytes (a deleted file: left out)."""
    texts = {path: (entry.data or b"").decode(errors="replace") for path, entry in files.items()}
    try:
        changed = patch.apply(diff, texts)
    except patch.PatchError as e:
        raise TaskFormatError(f"{where}: {e}") from e
    return {path: text.encode() for path, text in changed.items() if text is not None}


def _project_name(instance_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", instance_id)


# --- tasks --------------------------------------------------------------------------------------------


def load_rows(path: str | Path, repos: str | Path, *, languages: Sequence[str] | None = None) -> TaskSet:
    """The tasks of the rows in ``path`` over the checkouts in ``repos`` (of ``languages`` only,
    when given). A row whose language has no recipe here is an error that says which do."""
    found = []
    for row in read_rows(path):
        folder = checkout(Path(repos), row.repo)
        files = tree_at(folder, row.base_commit)
        language = row.language or language_of(files)
        if languages is not None and language not in languages:
            continue
        if language not in toolchains():
            raise TaskFormatError(f"{row.instance_id}: its language ({language}) has no recipe; recipes: "
                                  f"{', '.join(sorted(toolchains()))}")  # fmt: skip
        env = MODULE_ENV.get(language, {}) if "go.mod" in files else {}
        project = Project(_project_name(row.instance_id), language, "", "", "", ROOT, env=env, tree=files)
        graded = apply_texts(row.test_patch, files, f"{row.instance_id}'s test_patch") if row.test_patch else {}
        tests = tuple(f"*::{name}" for name in row.fail_to_pass), tuple(f"*::{name}" for name in row.pass_to_pass)
        repair = Repair(project, {}, graded, (), *tests)
        prompt = (f"{row.statement.strip()}\n\nFix the repository's source code ({row.repo}, {language}) so that "
                  "the issue above is resolved. Tests that check it are added when your fix is graded.")  # fmt: skip
        found.append(make_task(row.instance_id, repair, prompt, row.gold_patch, tags=(language, row.repo, "row")))
    return TaskSet(found)
