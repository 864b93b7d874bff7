"""Episodes as data, at scale: re-grading recorded episodes, and the fidelity of branches.

    python benchmarks/episodes.py regrade [--episodes 10000] [--threads 4] [--keep FILE] [--rounds 1]
    python benchmarks/episodes.py fidelity [--triples 1000] [--seed 0]

**regrade.** Records ``--episodes`` single-shot episodes (``RecordEpisodes``, ``--threads``
envs stepping at once into one file) over four families' bundled tasks: PythonFunction
(codegym-py and HumanEval), StdioProgram and OutputPrediction. Each submission is the task's
reference or a broken one (an empty answer, a wrong value), marked with its sample number so
that no two are the same. Then, in one run, `codegym.episodes.regrade` of the file against
`codegym.Scorer.score` of the same submissions (batch scoring, the baseline), and reports the
agreement (goal: 100%) and the throughput ratio (goal: at least 1, within the noise of one run).

**fidelity.** Random (task, prefix, action) triples over four families and modes (agent-mode
PythonFunction and StdioProgram: random shell commands; refine-mode PythonFunction and
StdioProgram: random submissions). For each: play the prefix, snapshot, take a noise step,
restore, take the action (and submit, in agent mode); fork the snapshot and take the same;
replay the prefix in a fresh env and take the same. The three observations, rewards, flags and
grades must be equal (goal: every triple).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import codegym
from codegym.episodes import RecordEpisodes, fork, regrade, release, restore, snapshot

FAMILIES = [
    ("codegym/PythonFunction-v0", {"tasks": "codegym-py"}),
    ("codegym/PythonFunction-v0", {"tasks": "humaneval"}),
    ("codegym/StdioProgram-v0", {}),
    ("codegym/OutputPrediction-v1", {}),
]


# --- regrade -----------------------------------------------------------------------------------


def submissions(env_id: str, kwargs: dict[str, Any], count: int) -> list[tuple[str, str]]:
    """``count`` (task id, answer) pairs: references and broken answers, each one distinct."""
    tasks = list(gym.make(env_id, **kwargs).get_wrapper_attr("tasks"))
    pairs = []
    for n in range(count):
        task = tasks[n % len(tasks)]
        reference = task.reference or ""
        if env_id.startswith("codegym/OutputPrediction"):
            pairs.append((task.id, reference if n % 3 else f"{n}"))
        elif n % 3 == 0:
            pairs.append((task.id, f"# sample {n}\n"))  # (broken: no solution at all)
        else:
            pairs.append((task.id, f"{reference}\n# sample {n}\n"))
    return pairs


def record(path: Path, env_id: str, kwargs: dict[str, Any], pairs: list[tuple[str, str]], threads: int) -> None:
    """Play each pair as a single-shot episode, ``threads`` envs at once, into ``path``."""
    lock = threading.Lock()
    work = iter(pairs)

    def play() -> None:
        env = RecordEpisodes(gym.make(env_id, mode="single", **kwargs), path)
        while True:
            with lock:
                pair = next(work, None)
            if pair is None:
                break
            env.reset(options={"task_id": pair[0]})
            env.step(pair[1])
        env.close()

    workers = [threading.Thread(target=play) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def bench_regrade(episodes: int, threads: int, keep: Path | None, rounds: int) -> bool:
    per_family = episodes // len(FAMILIES)
    groups = [(env_id, kwargs, submissions(env_id, kwargs, per_family)) for env_id, kwargs in FAMILIES]
    with tempfile.TemporaryDirectory() as scratch:
        path = keep or Path(scratch, "episodes.jsonl")
        if not path.exists():
            started = time.perf_counter()
            for env_id, kwargs, pairs in groups:
                record(path, env_id, kwargs, pairs, threads)
            print(f"recorded {sum(len(p) for *_, p in groups)} episodes in {time.perf_counter() - started:.1f} s "
                  f"({path.stat().st_size / 1e6:.1f} MB)")  # fmt: skip
        batch_s, regrade_s = 0.0, 0.0
        found = None
        for _ in range(max(1, rounds)):  # (alternating, so that a change in the machine's load falls on both)
            started = time.perf_counter()
            for env_id, kwargs, pairs in groups:
                with codegym.Scorer(env_id, **kwargs) as scorer:
                    scorer.score(pairs)
            batch_s += time.perf_counter() - started
            started = time.perf_counter()
            found = regrade(path)
            regrade_s += time.perf_counter() - started
    assert found is not None
    total = found.submissions * max(1, rounds)
    print(f"batch scoring (Scorer.score): {total / batch_s:8.1f} submissions/s")
    print(f"codegym regrade:              {total / regrade_s:8.1f} submissions/s   "
          f"ratio {batch_s / regrade_s:.2f} (goal >= 1)")  # fmt: skip
    print(f"episodes {found.episodes}, re-graded {found.submissions}, agreed {found.agreed} "
          f"({100 * found.agreed / max(1, found.submissions):.2f}%), skipped {len(found.skipped)}")  # fmt: skip
    for one in found.disagreements[:10]:
        print(f"  DISAGREE {one.task_id}: {one.recorded} -> {one.now} {one.tests[:3]}")
    return found.agreed == found.submissions == found.episodes


# --- fidelity ----------------------------------------------------------------------------------

SHELL = [
    "echo {n} >> log.txt",
    "rm -f *.py",
    "ls -R | head -20; cat log.txt 2>&1",
    "mkdir -p d{n} && echo {n} > d{n}/f && find . -type f | sort",
    "python3 -c 'print({n} * 7)'",
    "printf 'print({n})\\n' > solution.py && cat solution.py",
    "sed -i 's/return/return  /' *.py 2>&1; wc -c *.py",
]


def bash(command: str) -> str:
    return "<tool_call>" + json.dumps({"name": "bash", "arguments": {"command": command}}) + "</tool_call>"


SUBMIT = '<tool_call>{"name": "submit", "arguments": {}}</tool_call>'


def outcome(step: tuple[Any, ...]) -> tuple[Any, ...]:
    observation, reward, terminated, truncated, info = step
    grade = info.get("grade")
    verdict = None if grade is None else (grade.status, tuple((t.name, t.passed) for t in grade.tests))
    shown = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in observation.items()}
    return shown, float(reward), terminated, truncated, verdict


class Setting:
    """A family in a mode, with how to draw its prefixes and actions."""

    def __init__(self, env_id: str, kwargs: dict[str, Any], mode: str) -> None:
        self.name = f"{env_id.split('/')[1]}[{kwargs.get('tasks', 'bundled')}] {mode}"
        self.mode = mode
        self.make: Callable[[], gym.Env] = lambda: gym.make(env_id, mode=mode, max_episode_steps=12, **kwargs)
        self.env, self.fresh = self.make(), self.make()
        self.tasks = list(self.env.get_wrapper_attr("tasks"))

    def action(self, rng: random.Random, task: Any, *, may_solve: bool = True) -> str:
        if self.mode == "agent":
            return bash(rng.choice(SHELL).format(n=rng.randrange(100)))
        reference = task.reference or ""
        wrong = ["", "print(1)\n", "def f(:\n", f"import sys\nsys.exit({rng.randrange(1, 9)})\n"]
        return rng.choice([reference, f"{reference}\n# {rng.randrange(100)}\n", *wrong] if may_solve else wrong)

    def tail(self, env: gym.Env, action: str) -> list[tuple[Any, ...]]:
        """The action's step (and, in agent mode, a submit's)."""
        steps = [outcome(env.step(action))]
        if self.mode == "agent" and not (steps[0][2] or steps[0][3]):
            steps.append(outcome(env.step(SUBMIT)))
        return steps


def triple(setting: Setting, rng: random.Random) -> bool:
    task = rng.choice(setting.tasks)
    prefix = [setting.action(rng, task, may_solve=False) for _ in range(rng.randrange(1, 4))]  # (a solved one ends)
    action = setting.action(rng, task)
    env, fresh = setting.env, setting.fresh
    env.reset(options={"task_id": task.id})
    for step in prefix:
        env.step(step)
    taken = snapshot(env)
    env.step(setting.action(rng, task) if setting.mode == "refine" else bash("rm -rf * && echo noise > log.txt"))
    restore(env, taken)
    restored = setting.tail(env, action)
    [branch] = fork(env, 1, snapshot=taken)
    forked = setting.tail(branch, action)
    branch.close()
    release(env, taken)
    fresh.reset(options={"task_id": task.id})
    for step in prefix:
        fresh.step(step)
    replayed = setting.tail(fresh, action)
    return restored == forked == replayed


def bench_fidelity(triples: int, seed: int) -> bool:
    settings = [
        Setting("codegym/PythonFunction-v0", {"tasks": "codegym-py"}, "agent"),
        Setting("codegym/StdioProgram-v0", {}, "agent"),
        Setting("codegym/PythonFunction-v0", {"tasks": "humaneval"}, "refine"),
        Setting("codegym/StdioProgram-v0", {}, "refine"),
    ]
    rng = random.Random(seed)
    equal = {setting.name: [0, 0] for setting in settings}
    started = time.perf_counter()
    for n in range(triples):
        setting = settings[n % len(settings)]
        same = triple(setting, rng)
        equal[setting.name][0] += same
        equal[setting.name][1] += 1
    print(f"{triples} (task, prefix, action) triples in {time.perf_counter() - started:.0f} s")
    for name, (same, total) in equal.items():
        print(f"  {name:40} {same:5}/{total} restored == forked == fresh replay")
    return all(same == total for same, total in equal.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("regrade")
    one.add_argument("--episodes", type=int, default=10_000)
    one.add_argument("--threads", type=int, default=4)
    one.add_argument("--keep", type=Path, help="the recorded file: made if missing, else re-graded as it is")
    one.add_argument("--rounds", type=int, default=1, help="batch scoring and regrade, alternately, this often")
    two = commands.add_parser("fidelity")
    two.add_argument("--triples", type=int, default=1000)
    two.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "regrade":
        ok = bench_regrade(args.episodes, args.threads, args.keep, args.rounds)
    else:
        ok = bench_fidelity(args.triples, args.seed)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
