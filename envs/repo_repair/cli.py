"""``codegym repo build`` and ``codegym repo validate``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codegym.envs.repo_repair.build import build, validate, write
from codegym.envs.repo_repair.libraries import LIBRARIES
from codegym.envs.repo_repair.library import Library
from codegym.envs.repo_repair.mutations import KINDS
from codegym.envs.repo_repair.tasks import DATA

from codegym.error import UsageError

if TYPE_CHECKING:
    from codegym.envs.repo_repair.project_tasks import Drawn, Reference
    from codegym.envs.repo_repair.projects import Project


def add_parser(commands: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:  # type: ignore[type-arg]
    """Add ``repo build`` and ``repo validate`` to ``commands`` (each with ``parents``' options)."""
    repo = commands.add_parser("repo", parents=list(parents), help="make and check repository-repair tasks")
    actions = repo.add_subparsers(dest="action", required=True)
    make = actions.add_parser("build", parents=list(parents),
                              help="inject bugs into a library and keep those its tests catch")  # fmt: skip
    make.add_argument("library", nargs="?",
                      help=f"a bundled library ({', '.join(LIBRARIES)}) or NAME==VERSION from PyPI")  # fmt: skip
    make.add_argument("--project", help="a project of another language (data/projects/NAME.toml) instead")
    make.add_argument("--language", help="every project of this language (go, ...) instead")
    make.add_argument("--sha256", help="the sdist's sha256 (with NAME==VERSION)")
    make.add_argument("--path", type=Path, help="a local source tree instead of PyPI (the name is LIBRARY)")
    make.add_argument("--packages", help="comma-separated source paths (default: the library's name)")
    make.add_argument("--tests", default="tests", help="comma-separated test paths (default: tests)")
    make.add_argument("--python-path", default=".", help="comma-separated import roots (default: .)")
    make.add_argument("--requires", default="", help="comma-separated pinned test requirements")
    make.add_argument("--tasks", type=int, default=60, help="tasks to keep at most")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--attempts", type=int, help="a project's bugs to try at most (default: 4 per task wanted)")
    make.add_argument("--runs", type=int, default=3, help="runs that must agree, of the reference and of each bug")
    make.add_argument("--kinds", default=",".join(KINDS), help="comma-separated bug kinds")
    make.add_argument(
        "--out",
        type=Path,
        help="the task file (default: LIBRARY.json here; a project's that exists is grown to --tasks)",
    )
    check = actions.add_parser("validate", parents=list(parents),
                               help="grade each task's fix (must score 1) and its bug (must score 0)")  # fmt: skip
    check.add_argument("--tasks", type=Path, help="a task file (default: the bundled tasks)")
    check.add_argument("--libraries", help="comma-separated bundled libraries (default: all)")
    check.add_argument("--runs", type=int, default=3, help="runs that must agree, of each task's fix and bug")
    check.add_argument("--out", type=Path, help="write the invalid and flaky tasks here (a quarantine file)")


def main(args: argparse.Namespace) -> int:
    if args.action == "build" and (args.project or args.language):
        return _build_projects(args)
    if args.action == "build" and not args.library:
        raise UsageError("repo build needs a LIBRARY, --project NAME or --language LANGUAGE")
    return _build(args) if args.action == "build" else _validate(args)


def _build_projects(args: argparse.Namespace) -> int:
    """``repo build --project NAME`` / ``--language L``: tasks of projects in other languages."""
    from codegym.envs.repo_repair import project_tasks, projects
    from codegym.envs.repo_repair.project_env import write_task_file

    every = projects.projects()
    if args.project and args.project not in every:
        raise UsageError(f"unknown project {args.project!r}: one of {', '.join(sorted(every))}")
    chosen = [every[args.project]] if args.project else [p for p in every.values() if p.language == args.language]
    if not chosen:
        raise UsageError(f"no project in {args.language!r}; languages: {', '.join(sorted(projects.toolchains()))}")
    if args.out and len(chosen) > 1:
        raise UsageError("--out names one task file: give --project NAME with it")
    for project in chosen:
        started = time.perf_counter()
        layers = projects.machine_layers(project)
        out = args.out or Path(f"{project.name}.json")
        ref, drawn, symptoms = _grown(out, project, layers, args.runs)
        before = len(drawn)
        skip = [(bug.path, bug.kind, bug.index) for bug in drawn]
        for bug in project_tasks.draw_tasks(project, layers, ref, count=args.tasks - before, seed=args.seed,
                                            runs=args.runs, attempts=args.attempts, skip=skip):  # fmt: skip
            drawn.append(bug)
            symptoms.append(project_tasks.symptom(project, layers, bug))
            write_task_file(out, project, ref, drawn, symptoms)  # (after each: a draw stopped early keeps its tasks)
        write_task_file(out, project, ref, drawn, symptoms)
        kinds = Counter(bug.kind for bug in drawn[before:])
        print(f"{len(drawn)} tasks of {project.name} ({len(drawn) - before} new; {len(ref.tests)} tests, "
              f"{len(ref.flaky)} flaky) in {time.perf_counter() - started:.0f} s -> {out}; "
              f"new kinds: {dict(kinds.most_common())}")  # fmt: skip
    return 0


def _grown(out: Path, project: Project, layers: Sequence[str],
           runs: int) -> tuple[Reference, list[Drawn], list[str]]:  # fmt: skip
    """The reference and tasks a draw starts from: those of the task file ``out`` where it
    holds ``project``'s version (its set is grown: same reference, new bugs only), else a
    reference run ``runs`` times and none."""
    from codegym.envs.repo_repair.project_tasks import Drawn, Reference, reference

    body = json.loads(out.read_text()) if out.is_file() else {}
    if body.get("project") != project.name or body.get("version") != project.version:
        return reference(project, layers, runs=runs), [], []
    timed = reference(project, layers, runs=1)  # (only its time: the file's reference stays)
    ref = Reference(tuple(body["reference"]), tuple(body["flaky"]), (), timed.seconds, timed.alone)
    rows = body["tasks"]
    drawn = [Drawn(row["path"], row["kind"], row["index"], row["line"], tuple(row["fail_to_pass"]),
                   tuple(row["pass_to_pass"]), row.get("sha256", "")) for row in rows]  # fmt: skip
    return ref, drawn, [str(row.get("symptom", "")) for row in rows]


def _library(args: argparse.Namespace) -> Library:
    def split(text: str) -> tuple[str, ...]:
        return tuple(part for part in text.split(",") if part)

    if args.path is None and "==" not in args.library:
        if args.library not in LIBRARIES:
            raise UsageError(
                f"unknown library {args.library!r}: use one of {sorted(LIBRARIES)}, NAME==VERSION or --path"
            )
        return LIBRARIES[args.library]
    options = {
        "packages": split(args.packages or args.library.split("==")[0]),
        "tests": split(args.tests),
        "python_path": split(args.python_path),
        "test_requires": split(args.requires),
    }
    if args.path is not None:
        return Library.local(args.path, name=args.library, **options)  # type: ignore[arg-type]
    if not args.sha256:
        raise UsageError("NAME==VERSION needs --sha256 (the sdist's, as PyPI lists it)")
    name, version = args.library.split("==", 1)
    return Library(name, version, args.sha256, **options)  # type: ignore[arg-type]


def _build(args: argparse.Namespace) -> int:
    library = _library(args)
    started = time.perf_counter()
    document = build(library, tasks=args.tasks, seed=args.seed, runs=args.runs, kinds=args.kinds.split(","),
                     progress=lambda line: print(line, file=sys.stderr))  # fmt: skip
    out = args.out or Path(f"{library.name}.json")
    write(document, out)
    kinds = Counter(row["kind"] for row in document["tasks"])
    print(f"{len(document['tasks'])} tasks of {library.key} in {time.perf_counter() - started:.0f} s -> {out}")
    print("kinds:", dict(kinds.most_common()))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from codegym.envs.repo_repair.env import RepoRepairEnv

    libraries = args.libraries.split(",") if args.libraries else None
    env = RepoRepairEnv(args.tasks or "bundled", libraries=libraries)
    started = time.perf_counter()
    verdicts = validate(env, runs=args.runs)
    elapsed = time.perf_counter() - started
    counts = Counter(v.status for v in verdicts)
    by_library = Counter(env.tasks.get(v.task_id).metadata["library"] for v in verdicts if v.status == "valid")
    print(f"validated {len(verdicts)} tasks ({args.runs} runs each of fix and bug) in {elapsed:.0f} s: {dict(counts)}")
    print("valid per library:", dict(sorted(by_library.items())))
    bad = [v for v in verdicts if v.status != "valid"]
    for verdict in bad:
        print(f"  {verdict.status:8} {verdict.task_id}: {verdict.reason}")
    if args.out:
        try:
            args.out.write_text(json.dumps({v.task_id: f"{v.status}: {v.reason}" for v in bad}, indent=1) + "\n")
        except OSError as e:
            raise UsageError(f"cannot write --out {args.out}: {e}") from None
    source = args.tasks or DATA
    print(f"source: {source}")
    return 0 if not bad else 1
