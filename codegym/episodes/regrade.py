"""Re-grading recorded episodes: the current grader's verdict on each recorded final
submission, compared with the recorded one (a harness-drift alarm; ``codegym regrade``)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from codegym.episodes.record import read_episodes, task_digest
from codegym.grade import Grade
from codegym.serve.wire import encode


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
    env made as the recording's was, every submission of one env in one batch on its warm
    workers) and compare status and every test's outcome with the recorded grade: a
    disagreement is harness drift. ``executor`` overrides the backend."""
    from codegym.batch import Scorer

    episodes = list(read_episodes(path))
    groups: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    skipped: list[str] = []
    for episode in episodes:
        final = next((step for step in reversed(episode["steps"]) if _graded(step["info"])), None)
        if final is None or episode.get("env_id") is None or episode.get("task") is None:
            skipped.append(f"{episode['episode']}: no graded submission")
            continue
        key = json.dumps([episode["env_id"], encode(episode["env_kwargs"])], sort_keys=True)
        groups.setdefault(key, []).append((episode, final))
    disagreements: list[Disagreement] = []
    graded = 0
    for key, members in groups.items():
        env_id, _ = json.loads(key)
        kwargs = {**members[0][0]["env_kwargs"], "mode": "single"}  # (a submission's grade is the mode's own)
        if executor is not None:
            kwargs["executor"] = executor
        env = gym.make(env_id, **kwargs)
        with contextlib.closing(env), Scorer(env) as scorer:
            tasks = scorer.env.tasks
            wanted = []
            for episode, final in members:
                task_id, digest = episode["task"]["id"], episode["task"]["digest"]
                if task_id not in tasks:
                    skipped.append(f"{episode['episode']}: task {task_id} is not in {env_id}'s tasks now")
                elif task_digest(tasks.get(task_id)) != digest:
                    skipped.append(f"{episode['episode']}: task {task_id} changed since it was recorded")
                else:
                    wanted.append((episode, final))
            grades = scorer.score([(e["task"]["id"], f["info"]["code"]) for e, f in wanted], progress=progress)
        graded += len(wanted)
        for (episode, final), now in zip(wanted, grades, strict=True):
            found = _disagreement(episode, final["info"]["grade"], now)
            if found is not None:
                disagreements.append(found)
    return Regraded(len(episodes), graded, graded - len(disagreements), tuple(disagreements), tuple(skipped))


def _disagreement(episode: Mapping[str, Any], recorded: Grade, now: Grade) -> Disagreement | None:
    before = {test.name: test.passed for test in recorded.tests}
    after = {test.name: test.passed for test in now.tests}
    names = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    changed = tuple(f"{name}: {_outcome(before.get(name))} -> {_outcome(after.get(name))}" for name in names)
    if recorded.status == now.status and not changed:
        return None
    return Disagreement(episode["episode"], episode["task"]["id"], recorded.status.value, now.status.value, changed)


def _graded(info: Mapping[str, Any]) -> bool:
    """Whether a step graded a submission (its info holds the grade and the code graded)."""
    return isinstance(info.get("grade"), Grade) and isinstance(info.get("code"), str)


def _outcome(passed: bool | None) -> str:
    return "absent" if passed is None else ("passed" if passed else "failed")
