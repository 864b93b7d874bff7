"""Making tasks from a library (``codegym repo build``) and checking them (``codegym repo validate``).

`build` runs the library's whole suite on its pristine tree ``runs`` times (tests whose outcome
changes between runs are flaky and dropped; the rest that pass are the reference), then draws
procedural bugs (`codegym.envs.repo_repair.mutations`) across its source files and runs the
suite on each buggy tree. A bug is kept when some reference tests fail (FAIL_TO_PASS) and some
still pass (PASS_TO_PASS), the same in every one of ``runs`` runs, within the limits. The
result is a task file: the library's pin, the reference's passing and skipped tests, and per
task the bug's address (file, kind, index, patch hash), FAIL_TO_PASS and the symptom.

`validate` grades every task's reference fix (it must score 1) and its untouched buggy tree
(0), ``runs`` times each.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codegym.envs.repo_repair.grader import Report, read_report
from codegym.envs.repo_repair.library import Library, fetch
from codegym.envs.repo_repair.mutations import KINDS, Mutation, candidates, sample
from codegym.envs.repo_repair.sandbox import RepoExecutor, shared_executor, suite_job
from codegym.envs.repo_repair.tasks import difficulty_of, patch_hash

from codegym.error import Error
from codegym.executor import Executor, Limits, RunResult
from codegym.executor.base import MiB
from codegym.task import Task

FINISHED = (0, 1)  # pytest's statuses for a session that ran its tests
BUILD_LIMITS = Limits(cpu_s=60.0, wall_s=90.0, memory_bytes=2048 * MiB, processes=64, output_bytes=1 * MiB,
                      file_size_bytes=64 * MiB, disk_bytes=512 * MiB, open_files=1024)  # fmt: skip


class BuildError(Error):
    """The library's suite cannot serve as a reference (it does not run, or nothing passes)."""


@dataclass(frozen=True)
class Run:
    """One run of the suite: each test's outcome and failure text, or why it did not finish."""

    outcomes: Mapping[str, str]
    traces: Mapping[str, str]
    problem: str | None  # (a limit fired, or the session did not end normally)
    wall_s: float


def _run_of(result: RunResult) -> Run:
    step = result.steps[-1]
    if result.harness_output is None:
        return Run({}, {}, f"the harness failed: {result.harness_error}", step.wall_s)
    report: Report = read_report(result.harness_output)
    problem = None
    if step.limit is not None:
        problem = f"hit its {step.limit} limit"
    elif report.tampered:
        problem = report.tampered
    elif report.exit not in FINISHED or step.exit_code not in FINISHED:
        problem = f"pytest ended with status {report.exit} (process exit {step.exit_code}): {step.stdout[-600:]!r}"
    return Run(report.outcomes, report.traces, problem, step.wall_s)


class Suite:
    """Runs the library's suite on trees, in parallel on the executor's workers."""

    def __init__(self, library: Library, executor: Executor, limits: Limits, timeout_s: float) -> None:
        self.library = library
        self.executor = executor
        self.limits = limits
        self.timeout_s = timeout_s

    def submit(self, files: Mapping[str, bytes]) -> Future[RunResult]:
        return self.executor.submit(suite_job(self.library, files, self.limits, timeout_s=self.timeout_s))

    def runs(self, trees: Sequence[Mapping[str, bytes]]) -> list[Run]:
        futures = [self.submit(files) for files in trees]
        return [_run_of(future.result()) for future in futures]


@dataclass(frozen=True)
class Reference:
    passing: tuple[str, ...]
    skipped: tuple[str, ...]
    flaky: tuple[str, ...]
    wall_s: float


def reference(suite: Suite, files: Mapping[str, bytes], runs: int) -> Reference:
    """The pristine tree's suite, run ``runs`` times."""
    results = suite.runs([files] * runs)
    for run in results:
        if run.problem:
            raise BuildError(f"{suite.library.key}'s test suite does not run cleanly: it {run.problem}")
    nodes = sorted(set().union(*(run.outcomes for run in results)))
    flaky = [n for n in nodes if len({run.outcomes.get(n, "missing") for run in results}) > 1]
    stable = [n for n in nodes if n not in set(flaky)]
    passing = [n for n in stable if results[0].outcomes[n] == "passed"]
    skipped = [n for n in stable if results[0].outcomes[n] == "skipped"]
    if not passing:
        raise BuildError(f"no test of {suite.library.key} passes on its own tree")
    return Reference(tuple(passing), tuple(skipped), tuple(flaky), max(run.wall_s for run in results))


def broken(run: Run, passing: Sequence[str]) -> tuple[str, ...]:
    """The reference tests that did not pass in ``run``."""
    return tuple(n for n in passing if run.outcomes.get(n) != "passed")


def symptom(run: Run, node: str, lines: int = 6) -> str:
    """The error lines of ``node``'s failure (pytest's ``E`` lines), not its code."""
    text = run.traces.get(node, "")
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    return "\n".join(errors[:lines]) or (text.strip().splitlines() or [""])[-1][:300]


def build(
    library: Library,
    *,
    tasks: int = 60,
    seed: int = 0,
    runs: int = 3,
    kinds: Iterable[str] = KINDS,
    per_file: int = 40,
    executor: Executor | None = None,
    limits: Limits = BUILD_LIMITS,
    timeout_s: float = 10.0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Make up to ``tasks`` validated tasks from ``library``; returns the task file's document
    (`codegym.envs.repo_repair.tasks.load_library_file` reads it back).

    Args:
        library: The library (fetched from PyPI by its pinned hash, or a local tree).
        tasks: How many tasks to keep at most.
        seed: Seeds the draw of bugs.
        runs: Runs of the reference and of each kept bug (they must agree).
        kinds: Bug kinds to draw from.
        per_file: Bugs drawn per source file, at most (raised to three times ``tasks`` over
            the source files, so that a library of one module still offers enough).
        executor: Runs the suites (the family's shared executor by default).
        limits: Limits of one run of the suite.
        timeout_s: Per-test timeout while building.
        progress: Called with a line of text now and then.

    Raises:
        BuildError: The suite does not run cleanly on the pristine tree, or nothing passes.
    """
    say = progress or (lambda _: None)
    files = fetch(library)
    suite = Suite(library, executor or shared_executor(), limits, timeout_s)
    ref = reference(suite, files, runs)
    say(
        f"{library.key}: reference passes {len(ref.passing)} tests "
        f"({len(ref.flaky)} flaky dropped) in {ref.wall_s:.1f} s"
    )
    # A buggy run gets the time the pristine one took, many times over, and no more.
    suite.limits = replace(
        limits, wall_s=min(limits.wall_s, 10 + 5 * ref.wall_s), cpu_s=min(limits.cpu_s, 10 + 5 * ref.wall_s)
    )
    rng = random.Random(seed)
    sources = [path for path in sorted(files) if library.is_source(path)]
    per_file = max(per_file, -(-3 * tasks // max(1, len(sources))))  # (a one-module library needs more)
    pool = [mutation for path in sources for mutation in _draw(files[path], path, rng, kinds, per_file)]
    rng.shuffle(pool)
    kept: list[dict[str, Any]] = []
    tried = 0
    batch = 2 * max(1, getattr(suite.executor, "workers", 2))
    while pool and len(kept) < tasks:
        drawn, pool = pool[:batch], pool[batch:]
        tried += len(drawn)
        for mutation, run in zip(drawn, suite.runs([_buggy(files, m) for m in drawn]), strict=True):
            row = _keep(suite, files, mutation, run, ref, runs)
            if row is not None and len(kept) < tasks:
                kept.append(row)
        say(f"{library.key}: {len(kept)} tasks kept of {tried} bugs tried")
    return {
        "library": library.to_dict(),
        "passing": list(ref.passing),
        "skipped": list(ref.skipped),
        "flaky": list(ref.flaky),
        "seed": seed,
        "tasks": kept,
    }


def _draw(content: bytes, path: str, rng: random.Random, kinds: Iterable[str], limit: int) -> list[Mutation]:
    try:
        return sample(content.decode(), path, rng, kinds=kinds, limit=limit)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []


def _buggy(files: Mapping[str, bytes], mutation: Mutation) -> dict[str, bytes]:
    return {**files, mutation.path: mutation.mutated.encode()}


def _keep(
    suite: Suite, files: Mapping[str, bytes], mutation: Mutation, run: Run, ref: Reference, runs: int
) -> dict[str, Any] | None:
    """The task row of ``mutation`` if it makes a task: some reference tests fail, some
    pass, the same way in every run."""
    if run.problem:
        return None
    failing = broken(run, ref.passing)
    if not failing or len(failing) == len(ref.passing):
        return None
    for again in suite.runs([_buggy(files, mutation)] * (runs - 1)):
        if again.problem or broken(again, ref.passing) != failing:
            return None
    diff = mutation.bug_patch()
    found = candidates(mutation.original, mutation.path, kinds=(mutation.kind,))
    index = next(i for i, m in enumerate(found) if m.mutated == mutation.mutated)
    return {
        "id": f"{suite.library.name}.{mutation.kind}.{patch_hash(diff)[:8]}",
        "path": mutation.path,
        "kind": mutation.kind,
        "index": index,
        "patch_sha256": patch_hash(diff),
        "FAIL_TO_PASS": list(failing),
        "symptom": symptom(run, failing[0]),
        "difficulty": difficulty_of(mutation.kind, len(failing)),
    }


def write(document: Mapping[str, Any], path: str | Path) -> None:
    """Write a task file: one task per line inside the document, for readable diffs."""
    head = {k: v for k, v in document.items() if k != "tasks"}
    body = ",\n".join("    " + json.dumps(row, sort_keys=True) for row in document["tasks"])
    text = json.dumps(head, indent=1, sort_keys=True)[:-2] + ',\n "tasks": [\n' + body + "\n ]\n}\n"
    Path(path).write_text(text)


# --- validation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """A task's validation: ``valid``, ``invalid`` (with the reason) or ``flaky``."""

    task_id: str
    status: str
    reason: str = ""


def validate(env: Any, tasks: Iterable[Task] | None = None, *, runs: int = 3) -> list[Verdict]:
    """Grade each task's reference fix (must be resolved) and its buggy tree (must not be),
    ``runs`` times each, on ``env``'s executor (a `RepoRepairEnv`)."""
    chosen = list(tasks if tasks is not None else env.tasks)
    jobs = []
    for task in chosen:
        for answer in (task.reference or "", ""):
            jobs.append([env.executor.submit(env.build_job(task, answer)) for _ in range(runs)])
    verdicts = []
    for number, task in enumerate(chosen):
        fixed = [env.grade(task, task.reference or "", f.result()) for f in jobs[2 * number]]
        buggy = [env.grade(task, "", f.result()) for f in jobs[2 * number + 1]]
        verdicts.append(_verdict(task.id, [g.passed for g in fixed], [g.passed for g in buggy], fixed, buggy))
    return verdicts


def _verdict(
    task_id: str, fixed: list[bool], buggy: list[bool], fixed_grades: list[Any], buggy_grades: list[Any]
) -> Verdict:
    if all(fixed) and not any(buggy):
        return Verdict(task_id, "valid")
    if len(set(fixed)) > 1 or len(set(buggy)) > 1:
        return Verdict(task_id, "flaky", f"fix resolved {sum(fixed)}/{len(fixed)}, bug {sum(buggy)}/{len(buggy)}")
    if not all(fixed):
        grade = fixed_grades[0]
        return Verdict(task_id, "invalid", f"the reference fix scores {grade.status.value}: {grade.message[:300]}")
    return Verdict(task_id, "invalid", "the buggy tree passes every test")


__all__ = ["BuildError", "RepoExecutor", "Verdict", "build", "validate", "write"]
