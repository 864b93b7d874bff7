"""Snapshot, restore and fork of an agent's workspace, against copying the tree.

    python benchmarks/fork.py [--rounds 200] [--isolation TIER] [--python PATH]

On a one-worker LocalExecutor, a workspace over a repository of 107 files (sources, tests, a
README, a setup file) takes, round after round, an edit (one tool call: a file changed, one
added), then is timed at:

- ``snapshot``: `Workspace.snapshot` (its own changes become a read-only layer);
- ``restore``: `Workspace.restore` to the snapshot of the round before;
- ``fork(8)``: eight `Workspace.fork` of one snapshot (then closed, untimed);
- ``release``: `Workspace.release`.

The baseline, in the same run: ``cp -a`` of the same tree into a fresh folder (what a
checkpoint by copying costs at the least, before any sandbox). DeltaBox reports 10.83 ms per
checkpoint and 1.86 ms per rollback. Goals: snapshot and restore at most 2 ms (median), fork(8)
at most 8 ms. Then an agent episode resumed from a recorded one at step k
(``reset(options={"trace": ..., "upto": k})``) must cost at most k tool calls.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from codegym.executor import Job, Limits, Step
from codegym.executor.local import LocalExecutor
from codegym.executor.workspace import Layer, Snapshot, Workspace

T = TypeVar("T")
GOALS_MS = {"snapshot": 2.0, "restore": 2.0, "fork(8)": 8.0}
LIMITS = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=256 << 20, processes=16)


def repository() -> dict[str, bytes]:
    """107 files: 60 modules, 40 tests, 5 package markers, a README and a setup file."""
    files = {f"src/pkg{i % 5}/module_{i:02d}.py": f"def f_{i}(x):\n    return x * {i}\n".encode() * 30
             for i in range(60)}  # fmt: skip
    files.update({f"tests/test_{i:02d}.py": f"from pkg{i % 5} import m{i:02d}\n".encode() * 10 for i in range(40)})
    files.update({f"src/pkg{i}/__init__.py": b"" for i in range(5)})
    files.update({"README.md": b"# a project\n" * 50, "setup.py": b"from setuptools import setup\nsetup()\n"})
    assert len(files) == 107
    return files


def timed(action: Callable[[], T]) -> tuple[T, float]:
    """``action()``'s value and how long it took (ms)."""
    started = time.perf_counter()
    value = action()
    return value, (time.perf_counter() - started) * 1000


def edit(workspace: Workspace, round_: int) -> None:
    script = f"echo '# round {round_}' >> src/pkg0/module_00.py && echo {round_} > notes_{round_ % 4}.txt"
    result = workspace.run(Job(steps=(Step(argv=("sh", "-c", script)),), limits=LIMITS))
    assert result.steps[0].exit_code == 0, result


def measure(workspace: Workspace, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"snapshot": [], "restore": [], "fork(8)": [], "release": []}
    before: Snapshot | None = None
    for round_ in range(rounds):
        edit(workspace, round_)
        snapshot, ms = timed(workspace.snapshot)
        times["snapshot"].append(ms)
        if before is not None:
            times["restore"].append(timed(functools.partial(workspace.restore, before))[1])
            times["release"].append(timed(functools.partial(workspace.release, before))[1])
        children, ms = timed(functools.partial(fork_n, workspace, snapshot, 8))
        times["fork(8)"].append(ms)
        for child in children:
            child.close()
        before = snapshot
    return times


def fork_n(workspace: Workspace, snapshot: Snapshot, n: int) -> list[Workspace]:
    return [workspace.fork(snapshot) for _ in range(n)]


def resume_costs(steps: int = 10) -> list[tuple[int, int, float]]:
    """Record a ``steps``-step agent episode, then resume fresh episodes from it at k steps
    (`reset(options={"trace": ..., "upto": k})`): (k, tool calls the resume ran, ms)."""
    import json

    import gymnasium as gym

    import codegym  # noqa: F401
    from codegym.episodes import RecordEpisodes, read_episodes

    task = "codegym-py/001-count-vowel-runs"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "episode.jsonl")
        env = RecordEpisodes(gym.make("codegym/PythonFunction-v0", tasks="codegym-py", mode="agent"), path)
        env.reset(options={"task_id": task})
        for n in range(steps):
            command = json.dumps({"name": "bash", "arguments": {"command": f"echo {n} >> log.txt && wc -l log.txt"}})
            env.step(f"<tool_call>{command}</tool_call>")
        env.close()
        [episode] = read_episodes(path)
    resumed = gym.make("codegym/PythonFunction-v0", tasks="codegym-py", mode="agent")
    costs = []
    for k in (1, steps // 2, steps):
        (_, info), ms = timed(functools.partial(resumed.reset, options={"trace": episode, "upto": k}))
        assert "divergence" not in info, info["divergence"]
        costs.append((k, resumed.get_wrapper_attr("_episode").calls, ms))
    resumed.close()
    return costs


def copy_baseline(files: dict[str, bytes], rounds: int) -> list[float]:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "tree")
        for relative, content in files.items():
            Path(source, relative).parent.mkdir(parents=True, exist_ok=True)
            Path(source, relative).write_bytes(content)
        times = []
        for round_ in range(rounds):
            target = Path(scratch, f"copy{round_}")
            copy = functools.partial(subprocess.run, ["cp", "-a", str(source), str(target)], check=True)
            times.append(timed(copy)[1])
            shutil.rmtree(target)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--isolation", default="auto")
    parser.add_argument("--python", help="the workers' interpreter (the container tier needs one other users can read)")
    args = parser.parse_args()
    files = repository()
    options = {"python": args.python} if args.python else {}
    executor = LocalExecutor(workers=1, isolation=args.isolation, **options)
    with executor, executor.open_workspace(Layer(files)) as ws:
        measure(ws, 5)  # (warm-up)
        times = measure(ws, args.rounds)
    baseline = statistics.median(copy_baseline(files, min(args.rounds, 100)))
    print(f"{len(files)}-file repository, {args.rounds} rounds, isolation {args.isolation}")
    print(f"{'':10} {'median ms':>10} {'p90 ms':>8} {'goal ms':>8}  vs cp -a ({baseline:.2f} ms)")
    failed = []
    for name, values in times.items():
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1]
        goal = GOALS_MS.get(name)
        verdict = "" if goal is None else ("met" if median <= goal else "MISSED")
        if verdict == "MISSED":
            failed.append(name)
        goal_text = f"{goal:8.1f}" if goal is not None else f"{'':8}"
        print(f"{name:10} {median:10.2f} {p90:8.2f} {goal_text}  x{baseline / median:5.1f} faster  {verdict}")
    print("DeltaBox (reported): checkpoint 10.83 ms, rollback 1.86 ms")
    for k, calls, ms in resume_costs():
        verdict = "met" if calls <= k else "MISSED"
        if calls > k:
            failed.append(f"resume at step {k}")
        print(f"agent resume at step {k:2}: {calls:2} tool calls (goal <= {k}), {ms:6.1f} ms  {verdict}")
    if failed:
        raise SystemExit(f"missed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
