"""Imported runs mapped to codegym's tasks, and their final submissions graded.

`map_to_tasks` finds each run's task in the envs given (by id, or by an id that differs only in
separators: ``HumanEval__2`` is ``HumanEval/2``) and makes its final submission what the task's
family grades: the code; a diff for a family that grades a tree (RepoRepair), or the diff of
the files the run's edits left; for a single-file family, a diff applied to the task's stub, or
the file the edits left; for a terminal task, whose answer is a machine's state, the run's
commands replayed as one script. What it cannot map is listed with the reason.
`grade_submissions` grades the mapped ones with the current grader.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from codegym.episodes.imports import ImportedRun
from codegym.grade import Grade
from codegym.serve.wire import encode

# The commands with which mini-swe-agent (v2, v1) ends a run: not the task's work.
SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
EnvLike = str | gym.Env | tuple[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Submission:
    """An imported run's final submission, mapped to a codegym task.

    Attributes:
        env_id: The registered env whose task it is.
        env_kwargs: The keyword arguments that make that env (with ``gym.make``).
        task_id: The task.
        code: What the family grades: the code, a diff, or a shell script.
        run: The run it came from.
    """

    env_id: str
    env_kwargs: Mapping[str, Any]
    task_id: str
    code: str
    run: ImportedRun


@dataclass(frozen=True)
class Unmapped:
    """A run `map_to_tasks` could not map, and why."""

    run: ImportedRun
    reason: str


@dataclass(frozen=True)
class Mapped:
    """What `map_to_tasks` made of some runs: their submissions, and the runs left out."""

    submissions: tuple[Submission, ...]
    unmapped: tuple[Unmapped, ...]


def map_to_tasks(runs: Iterable[ImportedRun], envs: Sequence[EnvLike]) -> Mapped:
    """Find each run's task in ``envs`` and its final submission in the form the task's family
    grades (see the module's docstring).

    Args:
        runs: Imported runs (`read_trajectories`).
        envs: Registered env ids (``"codegym/RepoRepair-v1"``), ``(id, kwargs)`` pairs, or envs
            made with ``gym.make``; a task found in none of them is reported unmapped.
    """
    homes: list[_Home] = []
    try:
        homes.extend(_Home.of(env) for env in envs)
        submissions, unmapped = [], []
        for run in runs:
            found = _map(run, homes)
            (submissions if isinstance(found, Submission) else unmapped).append(found)
    finally:
        for home in homes:
            if home.owned:
                home.env.close()
    return Mapped(tuple(submissions), tuple(unmapped))


def grade_submissions(
    submissions: Sequence[Submission], *, executor: str | None = None, progress: bool = False
) -> list[Grade]:
    """Grade each submission with the current grader, on an env made from its ``env_id`` and
    ``env_kwargs`` in ``mode="single"`` (those of one env together, on its warm workers).
    ``executor`` overrides the backend. The grades come in the order of ``submissions``."""
    from codegym.batch import Scorer

    groups: dict[str, list[int]] = {}
    for index, submission in enumerate(submissions):
        groups.setdefault(_env_key(submission), []).append(index)
    grades: list[Grade | None] = [None] * len(submissions)
    for members in groups.values():
        first = submissions[members[0]]
        kwargs = {**first.env_kwargs, "mode": "single"}
        if executor is not None:
            kwargs["executor"] = executor
        env = gym.make(first.env_id, **kwargs)
        try:
            with Scorer(env) as scorer:
                graded = scorer.score(
                    [(submissions[i].task_id, submissions[i].code) for i in members], progress=progress
                )
        finally:
            env.close()
        for index, grade in zip(members, graded, strict=True):
            grades[index] = grade
    return [grade for grade in grades if grade is not None]


def replay_script(commands: Iterable[str]) -> str:
    """A shell script that runs ``commands`` in order, each in a subshell of its own (as agents
    that start each command afresh ran them), the agents' submit markers left out."""
    body = "".join(f"(\n{command}\n)\n" for command in commands if not _submit_marker(command))
    return "#!/bin/bash\n" + body


def _submit_marker(command: str) -> bool:
    return any(marker in command for marker in SUBMIT_MARKERS)


@dataclass(frozen=True)
class _Home:
    """An env that tasks are looked up in."""

    env_id: str
    kwargs: Mapping[str, Any]
    env: Any  # (the CodeEnv)
    owned: bool = False  # (made here, so closed here)

    @classmethod
    def of(cls, env: EnvLike) -> _Home:
        if isinstance(env, str):
            return cls(env, {}, gym.make(env).unwrapped, owned=True)
        if isinstance(env, tuple):
            env_id, kwargs = env
            return cls(env_id, dict(kwargs), gym.make(env_id, **kwargs).unwrapped, owned=True)
        if env.spec is None:
            raise ValueError(
                f"{type(env.unwrapped).__name__} was not made with gym.make: pass its registered id "
                "(and keyword arguments) so that its submissions can be graded again"
            )
        kwargs = {key: value for key, value in env.spec.kwargs.items() if key != "mode"}
        return cls(env.spec.id, kwargs, env.unwrapped)

    def ids(self) -> tuple[str, ...]:
        return tuple(self.env.tasks.ids)


def _map(run: ImportedRun, homes: Sequence[_Home]) -> Submission | Unmapped:
    if not run.instance_id:
        return Unmapped(run, "the file names no task; pass read_trajectories(..., instance_id=...)")
    if run.env_id and any(home.env_id == run.env_id for home in homes):
        homes = [home for home in homes if home.env_id == run.env_id]
    found = [(home, run.instance_id) for home in homes if run.instance_id in home.env.tasks]
    if not found:
        wanted = _normal(run.instance_id)
        found = [(home, task_id) for home in homes for task_id in home.ids() if _normal(task_id) == wanted]
    if not found:
        where = ", ".join(home.env_id for home in homes) or "no env"
        return Unmapped(run, f"no task {run.instance_id!r} in {where} (nor one whose id differs only in separators)")
    if len(found) > 1:
        names = ", ".join(f"{home.env_id} {task_id}" for home, task_id in found[:5])
        return Unmapped(run, f"task {run.instance_id!r} is ambiguous: {names}")
    home, task_id = found[0]
    code = _code(home, task_id, run)
    if isinstance(code, Unmapped):
        return code
    return Submission(home.env_id, home.kwargs, task_id, code, run)


def _code(home: _Home, task_id: str, run: ImportedRun) -> str | Unmapped:
    """What the task's family grades, from the run: see the module's docstring."""
    env = home.env
    task = env.tasks.get(task_id)
    try:
        setup = env.agent_setup(task)
    except NotImplementedError:
        setup = None
    if setup is not None and not setup.files and not setup.submission:  # (a machine's state: a terminal task)
        if run.submission:
            return run.submission
        if run.commands:
            return replay_script(run.commands)
        return Unmapped(run, f"no submission and no commands to replay (exit status {run.exit_status!r})")
    if setup is not None and setup.submission == ".":  # (a tree: graded as a diff)
        if run.submission:
            return run.submission
        if run.edits:
            return _diff_of_edits(run, setup.files)
        return Unmapped(run, f"no final patch (exit status {run.exit_status!r})")
    submission = run.submission
    if submission and setup is not None and _is_diff(submission):
        return _applied(run, submission, setup.files, setup.submission)
    if submission:
        return submission
    if run.edits and setup is not None:
        edited = _match(run.edits, setup.files).get(setup.submission)
        if isinstance(edited, str):
            return edited
        return Unmapped(run, f"its edits never wrote {setup.submission}, the file the family grades")
    return Unmapped(run, f"no final submission (exit status {run.exit_status!r})")


def _applied(run: ImportedRun, diff: str, files: Mapping[str, bytes], graded: str) -> str | Unmapped:
    """The graded file after a diff is applied to the task's workspace files."""
    patch = importlib.import_module("codegym.envs.repo_repair.patch")  # (RepoRepair's reader of agents' diffs)
    tree = {path: content.decode(errors="replace") for path, content in files.items()}
    try:
        changed = patch.apply(diff, tree)
    except patch.PatchError as e:
        return Unmapped(run, f"its patch does not apply to the task's files: {e}")
    after = changed.get(graded, tree.get(graded))
    if after is None:
        return Unmapped(run, f"its patch deletes {graded}, the file the family grades")
    return after


def _diff_of_edits(run: ImportedRun, files: Mapping[str, bytes]) -> str | Unmapped:
    """A unified diff of what the run's edits left, against the task's files."""
    unified = importlib.import_module("codegym.envs.repo_repair.source").unified  # (as RepoRepair's own diffs)
    matched = _match(run.edits, files)
    if not matched:
        return Unmapped(run, "none of the files its edits left is in the task's tree")
    diffs = []
    for path in sorted(matched):
        before = files[path].decode(errors="replace") if path in files else ""
        after = matched[path] or ""
        if before != after:
            diffs.append(unified(path, before, after))
    return "".join(diffs) or Unmapped(run, "its edits left every file of the task's tree as it was")


def _match(edits: Mapping[str, str | None], files: Mapping[str, bytes]) -> dict[str, str | None]:
    """The edits by the workspace path each names (a path ending in that path; the longest
    wins). A file that is new takes the root the others share."""
    matched, roots = {}, set()
    for path, content in edits.items():
        clean = path.replace("\\", "/")
        candidates = [name for name in files if clean == name or clean.endswith("/" + name)]
        if candidates:
            name = max(candidates, key=len)
            matched[name] = content
            roots.add(clean[: len(clean) - len(name)])
    if len(roots) == 1:
        (root,) = roots
        for path, content in edits.items():
            clean = path.replace("\\", "/")
            if root and clean.startswith(root) and clean[len(root) :] not in matched:
                matched[clean[len(root) :]] = content
    return matched


def _is_diff(text: str) -> bool:
    return bool(re.search(r"^(diff --git |--- \S)", text, re.M)) and bool(re.search(r"^@@ -\d", text, re.M))


def _normal(task_id: str) -> str:
    return re.sub(r"[^0-9a-z]+", "-", task_id.lower()).strip("-")


def _env_key(submission: Submission) -> str:
    try:
        kwargs = json.dumps(encode(dict(submission.env_kwargs)), sort_keys=True)
    except TypeError:
        kwargs = str(id(submission.env_kwargs))
    return json.dumps([submission.env_id, kwargs])
