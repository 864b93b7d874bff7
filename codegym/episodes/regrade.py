"""Re-grading recorded episodes: the current grader's verdict on each recorded final
submission, compared with the recorded one (a harness-drift alarm; ``codegym regrade``)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from codegym.episodes.record import read_records, task_digest
from codegym.grade import Grade
from codegym.serve.wire import decode


@dataclass(frozen=True)
class Disagreement:
    """A recorded submission the current grader judges otherwise.

    Attributes:
        episode: The episode's id.
        task_id: Its task.
        recorded: The status recorded.
        now: The status the current grader gives.
        tests: The tests whose outcome changed (name: recorded -> now).
    """

    episode: str
    task_id: str
    recorded: str
    now: str
    tests: tuple[str, ...]


@dataclass(frozen=True)
class Regraded:
    """What `regrade` found.

    Attributes:
        episodes: Episodes read.
        submissions: Final submissions graded again.
        agreed: Those whose status and every test's outcome are as recorded.
        disagreements: The others.
        skipped: Episodes not graded again, and why (no graded submission, a task that is gone
            or whose content changed since).
    """

    episodes: int
    submissions: int
    agreed: int
    disagreements: tuple[Disagreement, ...]
    skipped: tuple[str, ...]


def regrade(path: str | os.PathLike[str], *, executor: str | None = None, progress: bool = False) -> Regraded:
    """Grade each recorded episode's final submission again with the current grader (on an
    env made as the recording's was, on its warm workers) and compare status and every
    test's outcome with the recorded grade: a disagreement is harness drift. ``executor``
    overrides the backend.

    The file is read as the workers grade: each submission starts as soon as its line is
    read, and only the final step's code and grade are decoded."""
    groups: dict[str, _Group] = {}
    pending: list[tuple[Mapping[str, Any], Any, Future[Grade]]] = []
    skipped: list[str] = []
    episodes = 0
    with contextlib.ExitStack() as stack:
        for record in read_records(path):
            episodes += 1
            final = _final_submission(record)
            if final is None or record.get("env_id") is None or record.get("task") is None:
                skipped.append(f"{record['episode']}: no graded submission")
                continue
            key = json.dumps([record["env_id"], record["env_kwargs"]], sort_keys=True)
            if key not in groups:
                groups[key] = _Group.open(stack, record["env_id"], decode(record["env_kwargs"]), executor)
            why = groups[key].refuses(record["task"])
            if why is not None:
                skipped.append(f"{record['episode']}: {why}")
                continue
            code, grade = final
            pending.append((record, grade, groups[key].scorer.submit(record["task"]["id"], code)))
        disagreements = []
        for record, grade, future in tqdm(pending, disable=not progress, desc="re-grading", unit="episode"):
            found = _disagreement(record, decode(grade), future.result())
            if found is not None:
                disagreements.append(found)
    graded = len(pending)
    return Regraded(episodes, graded, graded - len(disagreements), tuple(disagreements), tuple(skipped))


@dataclass
class _Group:
    """The env (in single mode) and scorer that re-grade one recorded env's episodes."""

    env_id: str
    scorer: Any
    digests: dict[str, str]

    @classmethod
    def open(cls, stack: contextlib.ExitStack, env_id: str, kwargs: Mapping[str, Any], executor: str | None) -> _Group:
        from codegym.batch import Scorer

        made = {**kwargs, "mode": "single"}  # (a submission's grade is the mode's own)
        if executor is not None:
            made["executor"] = executor
        env = stack.enter_context(contextlib.closing(gym.make(env_id, **made)))
        return cls(env_id, stack.enter_context(Scorer(env)), {})

    def refuses(self, task: Mapping[str, Any]) -> str | None:
        """Why the recorded ``task`` cannot be graded again here (None: it can)."""
        tasks = self.scorer.env.tasks
        task_id = task["id"]
        if task_id not in tasks:
            return f"task {task_id} is not in {self.env_id}'s tasks now"
        if task_id not in self.digests:
            self.digests[task_id] = task_digest(tasks.get(task_id))
        if self.digests[task_id] != task["digest"]:
            return f"task {task_id} changed since it was recorded"
        return None


def _final_submission(record: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The last graded step's code and (still encoded) grade."""
    for step in reversed(record["steps"]):
        info = step.get("info")
        if isinstance(info, Mapping) and isinstance(info.get("code"), str) and "__grade__" in (info.get("grade") or {}):
            return info["code"], info["grade"]
    return None


def _disagreement(episode: Mapping[str, Any], recorded: Grade, now: Grade) -> Disagreement | None:
    before = {test.name: test.passed for test in recorded.tests}
    after = {test.name: test.passed for test in now.tests}
    names = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    changed = tuple(f"{name}: {_outcome(before.get(name))} -> {_outcome(after.get(name))}" for name in names)
    if recorded.status == now.status and not changed:
        return None
    return Disagreement(episode["episode"], episode["task"]["id"], recorded.status.value, now.status.value, changed)


def _outcome(passed: bool | None) -> str:
    return "absent" if passed is None else ("passed" if passed else "failed")
