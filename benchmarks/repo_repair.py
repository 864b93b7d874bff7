"""Repository repair: what grading a repair and resetting an agent episode cost.

    python benchmarks/repo_repair.py [--repeats 7] [--resets 50] [--libraries tinydb,parse,...]
                                     [--languages go] [--projects go-cmp,...]

Side by side, in one run, per bundled library (one task each):

- **Grading.** A bare ``python -S -m pytest`` of the task's whole suite, in a folder holding
  the graded tree (the buggy tree, its hidden tests, the reference fix applied), with the test
  environment alone on ``PYTHONPATH`` (no site-packages, no plugins autoloaded: the same
  packages the sandbox sees): what one would run by hand. Against it, codegym's grade of
  the reference fix, end to end (``env.evaluate``: the diff applied and filtered, the tree
  written into a fresh sandbox, pytest run from a warm worker, the report checked). The two
  alternate, each ``--repeats`` times; the ratio is of medians. Goal: at most 1.3.
- **Episode reset.** ``env.reset()`` of an agent-mode env, the same task each time (the
  repository's layer is on its worker after the first): closing the last episode's workspace
  and opening a fresh one. Goal: at most 20 ms (median). Beside it, for information, the first
  reset of a task (its git repository made, its layer written to the worker: once per task).
- **Other languages** (``--languages``, every language with bundled projects by default): per
  project (one task each), the language's own suite command (``suite`` in
  ``data/languages/<language>.toml``: ``go test -count=1 ./...`` for Go) on the graded tree in the
  project's machine, warm (its build cache in the layers), timed inside the machine; against
  it codegym's grade of the reference fix end to end (``env.evaluate``: a fresh machine, which
  the grade before started ahead of its use, the fix's files written into it, the build again,
  the tests in the language's batches, or each in a process of its own). A rest of 0.25 s
  before each suite run lets that machine start while nothing is timed, as between a trainer's
  grades. Ratio of medians; goal 1.3.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.library import environment
from codegym.envs.repo_repair.tasks import bundled_libraries

from codegym.task import Task

GOAL_RATIO = 1.3
GOAL_RESET_MS = 20.0


def bare_pytest(task: Task, tree: dict[str, bytes]) -> float:
    """Seconds of a bare pytest run of the task's suite in ``tree`` (written to a folder)."""
    library = task.metadata["instance"].library
    with tempfile.TemporaryDirectory(prefix="codegym-bare-") as root:
        for relative, content in tree.items():
            path = Path(root, relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        paths = [os.path.join(root, p) for p in library.python_path] + [environment(library).site]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1",
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # fmt: skip
        # -S: no site-packages but the test environment's (as in the sandbox), no plugins of this venv
        command = [
            sys.executable,
            "-S",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            *library.tests,
        ]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"bare pytest of {task.id} failed: {done.stdout[-500:]!r}")
    return elapsed


def grading(env: RepoRepairEnv, task: Task, repeats: int) -> tuple[float, float]:
    prepared = env.prepare(task, task.reference or "")
    assert prepared.files is not None
    tree = dict(prepared.files)
    bare, ours = [], []
    env.evaluate(task, task.reference or "")  # (warm: the environment installed, the worker ready)
    for _ in range(repeats):
        bare.append(bare_pytest(task, tree))
        started = time.perf_counter()
        grade, _ = env.evaluate(task, task.reference or "")
        ours.append(time.perf_counter() - started)
        assert grade.passed, grade.message
    return statistics.median(bare), statistics.median(ours)


def resets(env: RepoRepairEnv, task: Task, count: int) -> float:
    env.reset(options={"task_id": task.id})
    times = []
    for _ in range(count):
        started = time.perf_counter()
        env.reset(options={"task_id": task.id})
        times.append(time.perf_counter() - started)
    env.close()
    return statistics.median(times) * 1000


def first_resets(env: RepoRepairEnv, tasks: list[Task]) -> float:
    """Median ms of the first reset of each task: its git repository made and its layer
    written to a worker (once per task and worker)."""
    times = []
    for task in tasks:
        started = time.perf_counter()
        env.reset(options={"task_id": task.id})
        times.append(time.perf_counter() - started)
    env.close()
    return statistics.median(times) * 1000


def project_grading(env: Any, task: Task, repeats: int) -> tuple[float, float, int]:
    """Medians (s) of the project's own suite command in its machine and of codegym's grade,
    and the suite's exit status (not 0 where the project's own suite has tests that fail
    here, which its recipe leaves out: Twig's on PHP 8.2)."""
    from codegym.envs.repo_repair.project_env import repair_of
    from codegym.envs.repo_repair.project_tasks import in_tree

    from codegym.executor.rootbox import BoxSpec, RootBox

    repair = repair_of(task)
    project = repair.project
    suite = project.toolchain.suite
    env.evaluate(task, task.reference or "")  # (warm: the machine's layers built)
    graded = {**repair.start, **env.judge(task, task.reference or "").prepared.files, **repair.graded}
    bare, ours, status = [], [], 0
    for _ in range(repeats):
        # (the graded tree, as the grade builds it: the layers, the fixed files written anew; after a
        # rest, in which the box the last grade started ahead for the next is ready: nothing else runs)
        time.sleep(0.25)
        with RootBox(BoxSpec(layers=tuple(env.layers(task)))) as box:
            box.write_files(in_tree(project, graded))
            ran = box.run(("/bin/sh", "-c", suite), cwd=project.root, env=dict(project.toolchain.env), timeout_s=600)
        if ran.timed_out or ran.elapsed_s < 0.01:
            raise RuntimeError(f"{project.name}'s suite did not run:\n{ran.output[-1000:]}")
        status = status or ran.exit_code
        bare.append(ran.elapsed_s)
        started = time.perf_counter()
        grade, _ = env.evaluate(task, task.reference or "")
        ours.append(time.perf_counter() - started)
        assert grade.passed, grade.message
    return statistics.median(bare), statistics.median(ours), status


def other_languages(languages: list[str], projects: list[str] | None, repeats: int) -> list[float]:
    """Grade one task per bundled project of ``languages``; the ratios."""
    from codegym.envs.repo_repair.project_env import ProjectRepairEnv, bundled_projects

    ratios = []
    print(f"{'project':24} {'lang':10} {'tests':>5} {'suite s':>8} {'rc':>3} {'grade s':>8} {'ratio':>5}")
    for language in languages:
        names = [name for name in bundled_projects(language) if projects is None or name in projects]
        if not names:
            continue
        env = ProjectRepairEnv("bundled", language=language, projects=names)
        for name in names:
            task = next((t for t in env.tasks if t.metadata["project"] == name), None)
            if task is None:
                continue
            bare, ours, status = project_grading(env, task, repeats)
            ratios.append(ours / bare)
            row = f"{name:24} {language:10} {len(task.tests):5d} {bare:8.3f} {status:3d}"
            print(f"{row} {ours:8.3f} {ours / bare:5.2f}")
        env.close()
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--resets", type=int, default=50)
    parser.add_argument("--libraries", default=",".join(bundled_libraries()), help="'' for none")
    parser.add_argument("--languages", default=None, help="languages of bundled projects (default: all)")
    parser.add_argument("--projects", default=None, help="bundled projects (default: all of the languages)")
    args = parser.parse_args()
    from codegym.envs.repo_repair.project_env import bundled_projects
    from codegym.envs.repo_repair.projects import projects

    languages = args.languages.split(",") if args.languages else sorted(
        {projects()[name].language for name in bundled_projects()})  # fmt: skip
    ratios = other_languages(languages, args.projects.split(",") if args.projects else None, args.repeats)
    if ratios:
        worst = max(ratios)
        print(f"other languages' grading: worst ratio {worst:.2f} (goal <= {GOAL_RATIO}): "
              f"{'met' if worst <= GOAL_RATIO else 'NOT met'}")  # fmt: skip
    names = [name for name in args.libraries.split(",") if name]
    if not names:
        return
    env = RepoRepairEnv("bundled", libraries=names)
    print(f"{'library':12} {'tests':>6} {'bare pytest s':>14} {'codegym grade s':>16} {'ratio':>5}")
    ratios = []
    for name in names:
        task = next(t for t in env.tasks if t.metadata["library"].startswith(name + "-"))
        bare, ours = grading(env, task, args.repeats)
        ratios.append(ours / bare)
        print(f"{name:12} {len(task.tests):6d} {bare:14.3f} {ours:16.3f} {ours / bare:5.2f}")
    worst = max(ratios)
    print(f"grading: worst ratio {worst:.2f} (goal <= {GOAL_RATIO}): {'met' if worst <= GOAL_RATIO else 'NOT met'}")
    agent = RepoRepairEnv("bundled", libraries=names, mode="agent")
    reset_ms = {name: resets(agent, next(t for t in agent.tasks if t.metadata["library"].startswith(name + "-")),
                             args.resets) for name in names}  # fmt: skip
    for name, ms in reset_ms.items():
        fresh = [t for t in agent.tasks if t.metadata["library"].startswith(name + "-")][1:6]
        first = first_resets(agent, fresh)
        print(f"agent reset {name:12} median {ms:6.2f} ms   first reset of a task: median {first:7.1f} ms")
    slowest = max(reset_ms.values())
    print(f"reset: slowest median {slowest:.2f} ms (goal <= {GOAL_RESET_MS} ms): "
          f"{'met' if slowest <= GOAL_RESET_MS else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
