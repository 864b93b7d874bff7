"""Whether an imported terminal task runs here, and why not: the static half of
``codegym terminal import``.

`assess` reads a `TerminalTask` without building anything: a base image that cannot be mapped,
a ``RUN`` that fetches a URL or clones a repository, ``COPY --from``, a missing context file,
several build stages, a GPU, docker compose services beyond the agent's container. Each is a
reason the task does not run; notes say what runs differently (an Ubuntu image mapped to
Debian, the uv installer served offline). The build half adds a failed build's log tail with
`Assessment.with_build_failure`. `assess_folder` assesses every task of a folder, a task that
fails to load included (its reason is the load error): nothing is skipped silently.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from codegym.envs.terminal import dockerfile as df
from codegym.envs.terminal.formats import HARBOR, TerminalTask, load_task, task_dirs

from codegym.error import TaskFormatError

__all__ = ["Assessment", "assess", "assess_folder"]

# The compose service that is the agent's container, by layout.
MAIN_SERVICE = {HARBOR: "main", "terminal-bench": "client"}
LOG_TAIL_LINES = 40


@dataclass(frozen=True)
class Assessment:
    """One task's verdict at import.

    Attributes:
        task_id: the task's id.
        runs: whether the task runs here (no reason against it).
        reasons: why it does not run, one sentence each, with the Dockerfile line where there is one.
        notes: what runs differently from Docker (none of them stops the task).
        source: where the task was read from.
        build_log: the tail of a failed build's log ("" when the build did not fail or did not run).
    """

    task_id: str
    runs: bool
    reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    source: str = ""
    build_log: str = ""

    def with_reason(self, reason: str) -> Assessment:
        """This assessment with one more reason (so the task does not run)."""
        return replace(self, runs=False, reasons=(*self.reasons, reason))

    def with_note(self, note: str) -> Assessment:
        """This assessment with one more note."""
        return replace(self, notes=(*self.notes, note))

    def with_build_failure(self, log_tail: str, lines: int = LOG_TAIL_LINES) -> Assessment:
        """This assessment after a failed build: a reason, and the log's last ``lines`` lines."""
        tail = "\n".join(log_tail.rstrip("\n").splitlines()[-lines:])
        last = tail.splitlines()[-1] if tail else "no output"
        return replace(self.with_reason(f"the environment's build failed: {last}"), build_log=tail)

    def summary(self) -> str:
        """One line: the id, ``runs`` or ``does not run``, and the first reason."""
        if self.runs:
            return f"{self.task_id}: runs" + (f" ({len(self.notes)} notes)" if self.notes else "")
        first, *rest = self.reasons or ("no reason given",)
        return f"{self.task_id}: does not run: {first}" + (f" (+{len(rest)} more)" if rest else "")


def assess(task: TerminalTask) -> Assessment:
    """Assesses one task statically (nothing is built).

    Args:
        task: the task, from `codegym.envs.terminal.formats`.

    Returns:
        Its `Assessment`: ``runs`` is False when any reason stands against it.
    """
    reasons: list[str] = []
    notes: list[str] = []
    for problem in _dockerfile_problems(task):
        text = f"Dockerfile line {problem.line}: {problem.detail}" if problem.line else f"Dockerfile: {problem.detail}"
        (reasons if problem.blocking else notes).append(text)
    reasons.extend(_machine_reasons(task))
    notes.extend(_task_notes(task))
    return Assessment(task.id, not reasons, tuple(reasons), tuple(dict.fromkeys(notes)), task.source)


def _dockerfile_problems(task: TerminalTask) -> tuple[df.Problem, ...]:
    if not task.dockerfile.strip():
        return (df.Problem("no_from", 0, "no Dockerfile: the environment is built from a Dockerfile here"),)
    return df.problems(df.parse(task.dockerfile), task.context.keys())


def _machine_reasons(task: TerminalTask) -> list[str]:
    reasons: list[str] = []
    if task.resources.gpus > 0:
        reasons.append(f"the task asks for {task.resources.gpus} GPU(s) ([environment] gpus); no GPU is given here")
    main = MAIN_SERVICE.get(task.layout, "main")
    others = [service for service in task.compose_services if service != main]
    if others:
        reasons.append(
            f"docker compose runs services beside the agent's container ({', '.join(others)}); only "
            "the one environment is built here: run them inside it (started from the Dockerfile)"
        )
    if not task.test_command and not task.steps:
        reasons.append("the task has no verifier (tests/test.sh); add one")
    return reasons


def _task_notes(task: TerminalTask) -> list[str]:
    notes: list[str] = []
    if task.compose and not any(service != MAIN_SERVICE.get(task.layout, "main") for service in task.compose_services):
        notes.append(
            "the docker compose file has only the agent's container: its Dockerfile is built, the compose "
            "settings (volumes, environment) are not used"
        )
    if task.resources.allow_internet:
        notes.append("the task allows internet access; episodes here are offline (loopback only)")
    parser = task.metadata.get("parser_name")
    if parser not in (None, "pytest"):
        notes.append(f"parser_name {parser!r}: results are read from the verifier's pytest report, not that parser")
    if task.metadata.get("run_tests") == "default":
        notes.append("no run-tests.sh: the tests folder runs with pytest (Terminal-Bench's harness supplied a script)")
    if task.metadata.get("run_tests_in_same_shell") is True:
        notes.append(
            "run_tests_in_same_shell: the tests run in a fresh verifier process here, not in the agent's "
            "shell (its variables and working directory are not seen)"
        )
    if task.steps:
        notes.append(f"{len(task.steps)} steps, graded one by one ({task.reward_strategy or 'mean'} of their rewards)")
    return notes


def assess_folder(path: str | os.PathLike[str]) -> tuple[Assessment, ...]:
    """Assesses every task at ``path`` (a task folder or a folder of them), in name order.

    A task that cannot be loaded is assessed as not running, its load error the reason.

    Raises:
        TaskFormatError: ``path`` holds no task at all.
    """
    assessments: list[Assessment] = []
    for folder in task_dirs(path):
        try:
            assessments.append(assess(load_task(folder)))
        except TaskFormatError as error:
            assessments.append(Assessment(folder.name, False, (str(error),), source=str(folder)))
    return tuple(assessments)
