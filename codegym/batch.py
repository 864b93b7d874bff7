"""Scoring many submissions at once: every warm worker busy, grades in input order.

`Scorer` is the engine: ``submit`` returns a future (``asubmit`` an awaitable) per
submission, ``score`` a list in input order, ``score_groups`` one list per GRPO-style group
(one task, N candidates). Identical ``(task, code)`` pairs of a deterministic task are run
once and share the grade. `score` is the one-call form.

A task that cannot be graded (`InvalidTask`) costs only its own submissions: they get an
``IE`` grade naming why (the env's ``on_task_error``), and the rest of the batch completes.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from codegym.core import CodeEnv
from codegym.error import InvalidTask, SandboxError, UsageError
from codegym.extract import extract_code
from codegym.grade import Grade, Status
from codegym.task import Task

DEDUPE_WINDOW = 1 << 16  # most recent distinct submissions remembered


class Scorer:
    """Grades submissions for one code env on its executor's warm workers.

    Args:
        env: A codegym env (wrapped or not), or a registered id such as
            ``"codegym/PythonFunction-v0"``.
        dedupe: Run identical ``(task, code)`` pairs of deterministic tasks once.
        dedupe_window: How many of the most recent distinct submissions are remembered for
            that (their grades are held in memory: a long-lived scorer, as a server's, keeps
            it small).
        **env_kwargs: Passed to ``gym.make`` when ``env`` is an id.
    """

    def __init__(
        self, env: str | gym.Env, *, dedupe: bool = True, dedupe_window: int = DEDUPE_WINDOW, **env_kwargs: Any
    ) -> None:
        self._owned = isinstance(env, str)
        made = gym.make(env, **env_kwargs) if isinstance(env, str) else env
        if not isinstance(made.unwrapped, CodeEnv):
            raise TypeError(f"{env!r} is not a codegym env (got {type(made.unwrapped).__name__})")
        self.env: CodeEnv = made.unwrapped
        self.dedupe, self.dedupe_window = dedupe, dedupe_window
        self._seen: OrderedDict[tuple[str, str], Future[Grade]] = OrderedDict()
        self._lock = threading.Lock()
        self.stats = {"submitted": 0, "executed": 0}

    def submit(self, task_id: str | int, answer: str) -> Future[Grade]:
        """Start grading ``answer`` (code, or a chat answer with a fenced block)."""
        task = self.env.tasks.get(task_id)
        code = extract_code(answer, task.language)
        key = (task.id, code)
        with self._lock:
            self.stats["submitted"] += 1
            if self.dedupe and task.metadata.get("deterministic", True) and key in self._seen:
                self._seen.move_to_end(key)
                return self._seen[key]
            grade: Future[Grade] = Future()
            if self.dedupe:
                self._seen[key] = grade
                if len(self._seen) > self.dedupe_window:
                    self._seen.popitem(last=False)
            self.stats["executed"] += 1
        try:
            run = self.env.launch(task, code)
        except (SandboxError, InvalidTask) as e:  # failed before it started: as if it had failed running
            run = Future()
            run.set_exception(e)
        run.add_done_callback(lambda done: self._finish(task, code, done, grade))
        return grade

    async def asubmit(self, task_id: str, answer: str) -> Grade:
        """`submit` for asyncio loops."""
        return await asyncio.wrap_future(self.submit(task_id, answer))

    def score(
        self, submissions: Iterable[tuple[str, str]], *, progress: bool = False, desc: str = "scoring"
    ) -> list[Grade]:
        """Grades of ``(task_id, answer)`` pairs, in input order (``desc``: the progress bar's label)."""
        futures = [self.submit(task_id, answer) for task_id, answer in submissions]
        return [f.result() for f in tqdm(futures, disable=not progress, desc=desc, unit="sample")]

    def score_groups(self, groups: Iterable[tuple[str, Sequence[str]]], *, progress: bool = False) -> list[list[Grade]]:
        """GRPO-style groups: ``(task_id, [answer, ...])`` -> one list of grades per group."""
        groups = [(task_id, list(answers)) for task_id, answers in groups]
        flat = self.score([(t, a) for t, answers in groups for a in answers], progress=progress)
        out, start = [], 0
        for _, answers in groups:
            out.append(flat[start : start + len(answers)])
            start += len(answers)
        return out

    def close(self) -> None:
        self._seen.clear()
        if self._owned:
            self.env.close()

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _finish(self, task: Task, code: str, run: Future[Any], grade: Future[Grade]) -> None:
        try:
            grade.set_result(self.env.grade_checked(task, code, run.result()))
        except SandboxError as e:
            if self.env.on_infra_error == "raise":
                grade.set_exception(e)
            else:
                grade.set_result(Grade(Status.IE, message="infrastructure failure (not the submission's fault)"))
        except InvalidTask as e:
            try:
                grade.set_result(self.env.ungradable(task, e))
            except InvalidTask as raised:  # on_task_error="raise"
                grade.set_exception(raised)
        except BaseException as e:  # must surface, not hang the caller
            grade.set_exception(e)


def score(
    env_id: str,
    submissions: Iterable[tuple[str, str]],
    *,
    progress: bool = False,
    server: str | Sequence[str] | None = None,
    token: str | None = None,
    **env_kwargs: Any,
) -> list[Grade]:
    """Grade ``(task_id, answer)`` pairs with the env registered as ``env_id``.

    Submissions run concurrently on every warm worker; the grades come back in input
    order. Infrastructure failures follow the env's ``on_infra_error`` policy; submissions to
    a task that cannot be graded are ``IE`` with the reason (``on_task_error``).

    Args:
        env_id: A registered id such as ``"codegym/PythonFunction-v0"``.
        submissions: ``(task_id, answer)`` pairs; an answer may be a fenced chat answer.
        progress: Show a progress bar on stderr.
        server: A ``codegym serve`` URL, or a list of them: the submissions are graded there
            (in chunks spread over the servers; see `codegym.remote.score_remote`), with
            the same grades as here.
        token: The server's token (else ``$CODEGYM_SERVER_TOKEN`` or the URL's password),
            sent as a header, never as an env setting.
        **env_kwargs: Passed to ``gym.make`` (``tasks=...``, ``limits=...``, ...).
    """
    if server is not None:
        from codegym.remote import score_remote

        return score_remote(env_id, submissions, server, env_kwargs=env_kwargs, token=token, progress=progress)
    if token is not None:
        raise UsageError("token= is a server's token: pass it with server=URL (scoring here needs none)")
    with Scorer(env_id, **env_kwargs) as scorer:
        return scorer.score(submissions, progress=progress)
