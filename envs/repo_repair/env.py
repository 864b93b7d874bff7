"""`RepoRepairEnv`: fix a bug in a real library, judged by the library's own tests.

A task is a pure-Python library with a bug in its source. ``mode="patch"`` (or ``"refine"``):
the action is a unified diff against the repository. ``mode="agent"``: the workspace is the
buggy tree as a fresh git repository (the hidden tests removed), the agent uses the tools, and
``submit`` grades its changes to the library's source.

Either way the grade comes from a fresh sandbox: the buggy tree with every test file as the
task has it, plus the submission's changes to the library's source files only (changes to
tests, ``conftest.py``, configuration or anything outside the source are dropped, and said
so). pytest runs the whole suite with third-party plugin autoload off, no bytecode, and its
report sent to the harness outside the tree (see `codegym.envs.repo_repair.grader`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codegym.envs.repo_repair import grader, integrity, patch, sandbox
from codegym.envs.repo_repair.source import unified
from codegym.envs.repo_repair.tasks import Instance, load_bundled, load_library_file
from codegym.envs.repo_repair.workspace import git_repository, tool_env

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import TaskFormatError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.executor.base import MiB
from codegym.grade import Diagnostic, Grade, Status
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet

if TYPE_CHECKING:
    from codegym.harness.mode import HarnessSpec

Context = Literal["listing", "file", "source"]
LIMITS = Limits(cpu_s=120.0, wall_s=180.0, memory_bytes=2048 * MiB, processes=64, output_bytes=1 * MiB,
                file_size_bytes=64 * MiB, disk_bytes=512 * MiB, open_files=1024)  # fmt: skip
MAX_SOURCE_FILES = 5000


@dataclass(frozen=True)
class Prepared:
    """A submission made ready to grade: the files the tests run in, or why it cannot be."""

    files: Mapping[str, bytes] | None
    error: str | None = None
    ignored: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()


class RepoRepairEnv(CodeEnv):
    """Repair a library that a bug broke (``codegym/RepoRepair-v1``).

    Args:
        tasks: ``"bundled"`` (the bundled libraries' tasks; ``libraries=`` picks some), the
            path of a library's task file (``codegym repo build`` writes them), or a `TaskSet`
            (`codegym.envs.repo_repair.tasks.load_swe_bench` makes one from SWE-bench-format
            JSONL).
        language: ``"python"`` (this env); another language makes a
            `codegym.envs.repo_repair.project_env.ProjectRepairEnv` instead (see `__new__`).
        libraries: With ``tasks="bundled"``: the libraries to draw from (all when None).
        mode: ``"patch"`` (one diff per episode), ``"refine"`` (diffs until resolved) or
            ``"agent"`` (tools in the repository; ``submit`` grades its changes).
        context: What a patch-mode prompt shows besides the problem statement:
            ``"listing"`` (the source files' paths), ``"file"`` (also the text of the file
            the bug is in: SWE-bench's oracle retrieval) or ``"source"`` (every source file).
        traces_of_hidden: Show hidden tests' tracebacks in feedback (by default they are
            named only).
        test_timeout_s: Per-test timeout (pytest-timeout); the whole run has ``limits``.
        static_checks: Refuse (as ``HACK``, unrun) a repair whose added lines name pytest's
            internals, the module table, frames or the interpreter's exit (see
            `codegym.envs.repo_repair.integrity`).
        limits, executor, on_infra_error, render_mode, agent, time_limits, on_task_error, quarantine: See `CodeEnv`.
        validate: Grade every task's fix when the env is made and keep the valid ones (see
            `CodeEnv.validate_on_load`).
    """

    family = "repo_repair"
    requires = Requirements(tools=(Tool("git", "git", needed_for="mode='agent' and `codegym repo build`"),))
    preload = sandbox.MODULES

    def __new__(cls, *args: Any, language: str = "python", **kwargs: Any) -> Any:
        """``language="python"`` (the default): this env; another language (``"go"``): a
        `codegym.envs.repo_repair.project_env.ProjectRepairEnv` of that language's projects."""
        if language != "python" and kwargs.get("server") is None:
            from codegym.envs.repo_repair.project_env import ProjectRepairEnv

            return ProjectRepairEnv(*args, language=language, **kwargs)
        if language != "python":
            kwargs["language"] = language
        return super().__new__(cls, *args, **kwargs)

    def __init__(
        self,
        tasks: str | Path | TaskSet = "bundled",
        *,
        language: str = "python",
        libraries: list[str] | None = None,
        mode: Mode | Literal["patch"] = "patch",
        context: Context = "listing",
        traces_of_hidden: bool = False,
        test_timeout_s: float = 30.0,
        static_checks: bool = True,
        limits: Limits = LIMITS,
        time_limits: ReferenceTimeLimits | None = None,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        harness: HarnessSpec | str | None = None,
        model: str | None = None,
        validate: bool | int = False,
    ) -> None:
        if context not in ("listing", "file", "source"):
            raise ValueError(f"context must be 'listing', 'file' or 'source', got {context!r}")
        super().__init__(
            _task_set(tasks, libraries),
            limits=limits,
            time_limits=time_limits,
            mode="single" if mode == "patch" else mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
            harness=harness,
            model=model,
        )
        self.context: Context = context
        self.traces_of_hidden = traces_of_hidden
        self.test_timeout_s = test_timeout_s
        self.static_checks = static_checks
        self.validate_on_load(validate)

    def find_executor(self) -> Executor:
        choice = self._executor_choice
        return choice if isinstance(choice, Executor) else sandbox.shared_executor()

    def executor_for(self, task: Task) -> Executor:
        """A task with an `Image` runs in warm containers of it; the rest on the env's executor."""
        image = _instance(task).image
        return self.executor if image is None else sandbox.image_executor(image)

    # --- hooks ---------------------------------------------------------------------------

    def render_prompt(self, task: Task) -> str:
        if self.mode == "agent":
            return task.prompt
        instance = _instance(task)
        sources = sorted(p for p in instance.workspace if instance.library.is_source(p))
        parts = [task.prompt, "", "The library's source files:", *(f"- {p}" for p in sources)]
        shown = sources if self.context == "source" else [task.metadata["bug_path"]] if self.context == "file" else []
        for path in shown:
            if path in instance.workspace:
                parts += ["", f"--- {path} ---", instance.workspace[path].decode(errors="replace")]
        parts += [
            "",
            "Answer with a unified diff of the library's source (as `git diff` writes it: '--- a/PATH', "
            "'+++ b/PATH', '@@' hunks with exact context lines), in a ```diff block.",
        ]
        return "\n".join(parts)

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        prepared = self.prepare(task, code)
        limits = limits or self.limits_for(task)
        if prepared.files is None or (prepared.findings and self.static_checks):  # (graded unrun: see grade)
            return Job(steps=(Step(argv=("true",)),), limits=limits)
        instance = _instance(task)
        if instance.image is not None:
            return sandbox.image_job(instance.image, instance.library, prepared.files, limits,
                                     timeout_s=self.test_timeout_s, verify=instance.expected.fail_to_pass)  # fmt: skip
        return sandbox.suite_job(instance.library, prepared.files, limits, timeout_s=self.test_timeout_s,
                                 verify=instance.expected.fail_to_pass)  # fmt: skip

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        prepared = self.prepare(task, code)
        if prepared.error is not None:
            diagnostic = Diagnostic(prepared.error, file="patch")
            return Grade(Status.CE, message="the patch does not apply", diagnostics=(diagnostic,))
        if prepared.findings and self.static_checks:
            diagnostics = tuple(Diagnostic(finding, file="patch") for finding in prepared.findings[:10])
            return Grade(Status.HACK, message="the repair reaches for the test machinery", diagnostics=diagnostics)
        verdict = grader.grade(_instance(task).expected, result, traces_of_hidden=self.traces_of_hidden)
        if not prepared.ignored:
            return verdict
        note = Diagnostic(
            f"ignored changes to {', '.join(prepared.ignored[:10])}: only the library's source files are graded "
            "(tests and configuration are restored)",
            file="patch",
            severity="warning",
        )
        return replace(verdict, diagnostics=(note, *verdict.diagnostics))

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """``resolved``: 1.0 when every FAIL_TO_PASS test passes and no PASS_TO_PASS test
        breaks (``metrics`` holds the fraction of each)."""
        return {"resolved": 1.0 if grade.status is Status.OK else 0.0}

    def prepare(self, task: Task, code: str) -> Prepared:
        """The tree ``code`` (a diff) is graded in: the task's graded tree, plus the diff's
        changes to the library's source files (others are ignored)."""
        return _prepare(_instance(task), code)

    # --- agent mode ----------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        instance = _instance(task)
        library = instance.library
        return AgentSetup(
            files=_repository(task),
            submission=".",
            instructions=(
                f"The workspace is a git repository of {library.name} with the bug in it. `pytest` runs its tests "
                f"(for example `pytest -x -q {' '.join(library.tests)}`); the tests that fail are hidden, so write "
                "your own to reproduce the problem. `git diff` shows your changes."
            ),
            env=tool_env(library, instance.image),
            graded=f"your changes to {library.name}'s source files (as `git diff` would show them)",
            processes=64,
        )

    def agent_submission(self, task: Task, episode: AgentEpisode) -> str:
        """The diff from the task's tree to the workspace's, over the library's source files."""
        instance = _instance(task)
        library = instance.library
        roots = [
            p
            for p in library.packages
            if p in instance.workspace or any(f.startswith(p + "/") for f in instance.workspace)
        ]
        listing = episode.run(("find", *roots, "-name", "*.py", "-type", "f")).steps[0].stdout.decode(errors="replace")
        now = [p.removeprefix("./") for p in listing.splitlines() if library.is_source(p.removeprefix("./"))]
        before = [p for p in instance.workspace if library.is_source(p)]
        current = episode.read_files(tuple(sorted(set(now)))[:MAX_SOURCE_FILES])
        diffs = []
        for path in sorted({*before, *current}):
            old = instance.workspace.get(path, b"").decode(errors="replace")
            new = current.get(path, b"").decode(errors="replace")
            if old != new:
                diffs.append(
                    _file_diff(path, old if path in instance.workspace else None, new if path in current else None)
                )
        return "".join(diffs)


def _file_diff(path: str, old: str | None, new: str | None) -> str:
    text = unified(path, old or "", new or "")
    if old is None:
        return text.replace(f"--- a/{path}", "--- /dev/null", 1)
    if new is None:
        return text.replace(f"+++ b/{path}", "+++ /dev/null", 1)
    return text


def _instance(task: Task) -> Instance:
    instance = task.metadata.get("instance")
    if not isinstance(instance, Instance):
        raise TaskFormatError(f"task {task.id} is not a repository-repair task (its metadata has no Instance)")
    return instance


@functools.lru_cache(maxsize=256)
def _prepare(instance: Instance, code: str) -> Prepared:
    """(Cached: a step prepares its diff twice, for the job and for the grade.)"""
    library = instance.library
    if not code.strip():
        return Prepared(dict(instance.graded))
    try:
        changed = patch.apply(code, instance.texts)
    except patch.PatchError as e:
        return Prepared(None, str(e))
    files = dict(instance.graded)
    ignored, edits = [], []
    for path, text in changed.items():
        if not library.is_source(path):
            ignored.append(path)
            continue
        edits.append((path, instance.texts.get(path, ""), text or ""))
        if text is None:
            files.pop(path, None)
        else:
            files[path] = text.encode()
    return Prepared(files, ignored=tuple(sorted(ignored)), findings=tuple(integrity.findings(edits)))


def _repository(task: Task) -> dict[str, bytes]:
    return _git(_instance(task))


@functools.lru_cache(maxsize=64)
def _git(instance: Instance) -> dict[str, bytes]:
    return git_repository(instance.workspace, f"{instance.library.name} {instance.library.version}")


def _task_set(tasks: str | Path | TaskSet, libraries: list[str] | None) -> TaskSet:
    if isinstance(tasks, TaskSet):
        return tasks
    if tasks == "bundled":
        return load_bundled(libraries)
    path = Path(tasks)
    if path.suffix == ".json":  # (a missing one: load_library_file says so)
        return TaskSet(load_library_file(path), name=path.stem)
    raise TaskFormatError(
        f"tasks must be 'bundled', a library's task file (.json, from `codegym repo build`) or a TaskSet "
        f"(SWE-bench JSONL: codegym.envs.repo_repair.tasks.load_swe_bench(path, checkouts)); got {tasks!r}"
    )
