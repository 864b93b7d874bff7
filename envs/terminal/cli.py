"""``codegym terminal import DIR...``: whether each task of Harbor or Terminal-Bench 1 folders runs here.

Each task is assessed statically (`codegym.envs.terminal.report.assess`: a base image that
cannot be mapped, a ``RUN`` that fetches a URL or clones a repository, a GPU, docker compose
services, ...), then, unless ``--no-build``, its environment is built into the layer store
(`codegym.envs.terminal.build.build_environment`); a build that fails is a reason, with its
log's tail. A task that cannot be loaded, and a folder that holds no task, are reported as not
running: nothing is skipped silently. The layers are cached, so a second import of the same
tasks builds nothing.

Output: one line per task, ``OK  name  (notes)`` or ``NO  name: reasons`` (a failed build's log
tail indented below it), then a summary line; ``--json FILE`` writes every assessment. Exit
status 0 when every task runs, 1 when some do not, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from codegym.envs.terminal.formats import TerminalTask, load_task, task_dirs
from codegym.envs.terminal.report import Assessment, assess

from codegym.error import InvalidTask, TaskFormatError, UsageError

JSON_FORMAT = "codegym-terminal-import/1"
SHOWN_LOG_LINES = 12  # of a failed build's log, under its NO line (--json has the whole tail)


@dataclass(frozen=True)
class Imported:
    """One task's import: its assessment, and what building its environment did.

    Attributes:
        assessment: the static assessment, with the build's failure or notes added.
        built: whether its environment was built (or found built) in the store.
        layers_built: layers this import built for it (0: all of them were cached).
        environment: the built environment's key, layers (top first) and hidden fixtures.
    """

    assessment: Assessment
    built: bool = False
    layers_built: int = 0
    environment: dict[str, Any] | None = None

    def line(self) -> str:
        """``OK  name  (notes)`` or ``NO  name: reasons``, with a failed build's last log lines below."""
        a = self.assessment
        if a.runs:
            return f"OK  {a.task_id}" + (f"  ({'; '.join(a.notes)})" if a.notes else "")
        text = f"NO  {a.task_id}: {'; '.join(a.reasons) or 'no reason given'}"
        tail = a.build_log.splitlines()[-SHOWN_LOG_LINES:]
        return "\n".join([text, *(f"    | {line}" for line in tail)])

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self.assessment), "built": self.built, "layers_built": self.layers_built,
                "environment": self.environment}  # fmt: skip


def add_parser(commands: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:  # type: ignore[type-arg]
    """Add ``terminal import`` to ``commands`` (with ``parents``' options)."""
    terminal = commands.add_parser(
        "terminal", parents=list(parents), help="import terminal tasks (Harbor, Terminal-Bench 1): what runs here"
    )
    actions = terminal.add_subparsers(dest="action", required=True)
    imported = actions.add_parser(
        "import", parents=list(parents), help="assess and build each task's environment: runs here, or why not"
    )
    imported.add_argument("paths", nargs="+", type=Path, metavar="DIR",
                          help="a task folder or a folder of them (Harbor or Terminal-Bench 1 layout)")  # fmt: skip
    imported.add_argument("--no-build", action="store_true",
                          help="only the static check (no environment is built; no root needed)")  # fmt: skip
    imported.add_argument("--json", type=Path, metavar="FILE", help="write every task's full assessment here")
    imported.add_argument("--store", metavar="DIR",
                          help="the layer store (default: $CODEGYM_CACHE/terminal, else "
                          "~/.cache/codegym/terminal)")  # fmt: skip
    imported.add_argument("--verbose", action="store_true", help="print each build step on stderr")
    from codegym.envs.terminal import export

    export.add_parser(actions, parents)


def main(args: argparse.Namespace) -> int:
    """Run ``terminal ACTION``; return the exit status."""
    if args.action == "export":
        from codegym.envs.terminal import export

        return export.run(args)
    return _import(args.paths, build=not args.no_build, out=args.json, store_root=args.store, verbose=args.verbose)


def _import(paths: Sequence[Path], *, build: bool, out: Path | None, store_root: str | None, verbose: bool) -> int:
    _check_usage(paths, out, build=build)
    builder = _Builder(store_root, verbose=verbose) if build else None
    results: list[Imported] = []
    for path in paths:
        for result in _import_path(path, builder):
            print(result.line(), flush=True)
            results.append(result)
    print(_summary(results, builder))
    if out is not None:
        _write_json(out, results, builder)
    return 0 if all(r.assessment.runs for r in results) else 1


def _check_usage(paths: Sequence[Path], out: Path | None, *, build: bool) -> None:
    """Raise `UsageError` before anything is built: a path that does not exist, a ``--json``
    file with no folder to go in, a build where boxes cannot run."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}; give task folders or folders of them")
    if out is not None and not out.parent.is_dir():
        raise UsageError(f"--json {out}: no folder {out.parent} to write it in")
    if build:
        from codegym.executor.rootbox import available

        reason = available() or (None if os.geteuid() == 0 else "debootstrap and uid-shifted layers need root")
        if reason is not None:
            raise UsageError(f"building environments needs root here: {reason}; or pass --no-build (static check only)")


def _import_path(path: Path, builder: _Builder | None) -> list[Imported]:
    """Every task at ``path``, in name order; a path that holds none is one that does not run."""
    try:
        folders = task_dirs(path)
    except TaskFormatError as e:
        return [Imported(Assessment(path.name or str(path), False, (str(e),), source=str(path)))]
    return [_import_folder(folder, builder) for folder in folders]


def _import_folder(folder: Path, builder: _Builder | None) -> Imported:
    try:
        task = load_task(folder)
    except TaskFormatError as e:
        return Imported(Assessment(folder.name, False, (str(e),), source=str(folder)))
    assessment = assess(task)
    if builder is None or not assessment.runs:
        return Imported(assessment)
    return builder.build(task, assessment)


class _Builder:
    """Builds environments into one layer store, counting the layers each build makes."""

    def __init__(self, root: str | None, *, verbose: bool) -> None:
        from codegym.executor.layers import LayerStore

        self.say: Callable[[str], None] | None = (
            (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
        )
        self.store = LayerStore(root, log=self.say)

    def build(self, task: TerminalTask, assessment: Assessment) -> Imported:
        """``assessment`` after building ``task``'s environment: a failed build is a reason
        (with its log's tail); a built one adds its notes and the hidden fixtures."""
        from codegym.envs.terminal.build import build_environment

        from codegym.executor.layers import BuildFailed

        before = self.store.builds
        if self.say is not None:
            self.say(f"building {task.id} ({task.source})")
        try:
            built = build_environment(task, store=self.store, log=self.say)
        except BuildFailed as e:
            return Imported(assessment.with_build_failure(e.log), layers_built=self.store.builds - before)
        except InvalidTask as e:
            reason = f"the environment cannot be built here: {e}"
            return Imported(assessment.with_reason(reason), layers_built=self.store.builds - before)
        for note in built.notes:  # (those the static check made too, it made with their line)
            if not any(known.endswith(note) for known in assessment.notes):
                assessment = assessment.with_note(note)
        if built.hidden:
            assessment = assessment.with_note(
                f"hidden from the agent (only the tests use them): {', '.join(built.hidden)}"
            )
        environment = {"key": built.key, "layers": list(built.layers), "hidden": list(built.hidden)}
        return Imported(assessment, built=True, layers_built=self.store.builds - before, environment=environment)


def _summary(results: Sequence[Imported], builder: _Builder | None) -> str:
    runs = sum(r.assessment.runs for r in results)
    text = f"{len(results)} task{'s' * (len(results) != 1)}: {runs} run here, {len(results) - runs} do not"
    if builder is None:
        return text + " (static check only: nothing built)"
    used = {layer for r in results if r.environment for layer in r.environment["layers"]}
    return (
        text
        + f"; layers built: {builder.store.builds}, of {len(used)} in use (the rest cached in {builder.store.root})"
    )


def _write_json(out: Path, results: Sequence[Imported], builder: _Builder | None) -> None:
    runs = sum(r.assessment.runs for r in results)
    document = {
        "format": JSON_FORMAT,
        "built": builder is not None,
        "store": builder.store.root if builder is not None else None,
        "layers_built": builder.store.builds if builder is not None else 0,
        "counts": {"tasks": len(results), "run": runs, "do_not_run": len(results) - runs},
        "tasks": [r.to_json() for r in results],
    }
    try:
        out.write_text(json.dumps(document, indent=1) + "\n")
    except OSError as e:
        raise UsageError(f"cannot write --json {out}: {e}") from None
