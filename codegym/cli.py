"""The ``codegym`` command: list envs and task sets, score sample files, validate task sets,
run a demo, and check what sandbox this machine allows (``doctor``)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from math import comb
from pathlib import Path
from typing import Any

import gymnasium as gym

import codegym

DEFAULT_ENV = "codegym/PythonFunction-v0"
EXECUTOR_HELP = "the sandbox backend: local (default), docker (dockerd is started when none answers), ray"


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator for ``c`` correct out of ``n`` samples."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="codegym", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="registered envs and built-in task sets")
    score = commands.add_parser("score", help="score a JSONL of {task_id, completion}")
    score.add_argument("samples", type=Path)
    score.add_argument("--env", default=DEFAULT_ENV)
    score.add_argument("--tasks", help="task set; inferred from the task ids when omitted")
    score.add_argument("-k", default="1,10,100", help="comma-separated k for pass@k")
    score.add_argument("--out", type=Path, help="where to write per-sample results (default: SAMPLES_results.jsonl)")
    score.add_argument("--executor", help=EXECUTOR_HELP)
    check = commands.add_parser(
        "validate", help="run every task's reference; report valid, invalid (with why) and flaky tasks"
    )
    check.add_argument("env", help="a registered env id, e.g. codegym/Verilog-v0")
    check.add_argument("--tasks", help="the task source (a bundled set's name, a file or a folder)")
    check.add_argument("--runs", type=int, default=3, help="gradings of each reference (runs that disagree: flaky)")
    check.add_argument("--quarantine", type=Path, help="write the tasks that are not valid here (quarantine=FILE)")
    check.add_argument("--executor", help=EXECUTOR_HELP)
    demo = commands.add_parser("demo", help="score HumanEval's canonical solutions and broken variants of them")
    demo.add_argument("--out", type=Path, default=Path("codegym_demo_samples.jsonl"))
    doctor = commands.add_parser(
        "doctor", help="which sandbox isolation tier runs here, why not the stronger ones, and what would enable them"
    )
    doctor.add_argument(
        "--isolation", help="a tier to try instead of the strongest available (full, userns, container)"
    )
    repo = importlib.import_module("codegym.envs.repo_repair.cli")  # (the family's own commands)
    repo.add_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "repo":
        return repo.main(args)
    if args.command == "list":
        return _list()
    if args.command == "doctor":
        return _doctor(args.isolation)
    if args.command == "validate":
        return _validate(args.env, args.tasks, args.runs, args.quarantine, args.executor)
    if args.command == "demo":
        _write_demo_samples(args.out)
        return _score(args.out, DEFAULT_ENV, "humaneval", "1,2", None)
    return _score(args.samples, args.env, args.tasks, args.k, args.out, args.executor)


def _start_docker() -> None:
    """Start dockerd when none answers (root only), or exit saying how to get one."""
    from codegym.error import SandboxError
    from codegym.executor.docker import start_daemon

    try:
        start_daemon()
    except SandboxError as e:
        raise SystemExit(f"codegym: the docker backend needs a Docker daemon: {e}") from None


TASK_SETS = {
    "PythonFunction": "codegym-py, humaneval, or an MBPP/codegym JSONL file",
    "OutputPrediction": "generated (count=, seed=, knobs=), codegym-py, humaneval, or a CRUXEval-format JSONL file",
    "StdioProgram": "codegym-stdio, or an APPS/CodeContests/LiveCodeBench/plain JSON(L) file",
    "TritonKernel": "codegym-triton, or a folder of KernelBench problem files",
    "Verilog": "codegym-verilog, or a folder in the VerilogEval v2 layout",
    "TestGeneration": "any PythonFunction task set (codegym-py, humaneval, an MBPP/HumanEval file)",
    "RepoRepair": "bundled (7 PyPI libraries), a task file from `codegym repo build`, or SWE-bench JSONL",
}


def _list() -> int:
    for env_id in sorted(i for i in gym.registry if i.startswith("codegym/")):
        family = env_id.removeprefix("codegym/").rsplit("-v", 1)[0]
        print(f"{env_id:28} tasks: {TASK_SETS.get(family, 'see the env docstring')}")
    return 0


def _doctor(requested: str | None) -> int:
    """Print the isolation probe's report, then start a worker in the chosen tier and run a
    program in it: a tier is only reported as working once it has run something."""
    from codegym.error import SandboxError
    from codegym.executor import Job, Step
    from codegym.executor.isolation import probe
    from codegym.executor.local import LocalExecutor

    print(probe().render())
    print()
    try:
        with LocalExecutor(workers=1, isolation=requested) as executor:
            result = executor.run(Job(files={"check.py": b"print(6 * 7)"}, steps=(Step(("python", "check.py")),)))
    except SandboxError as e:
        print(f"the sandbox does not run here: {e}")
        return 1
    ran = result.steps[0].stdout == b"42\n"
    verdict = "ok" if ran else "FAILED"
    print(f"ran a program in the {result.isolation!r} tier (limits by cgroup {result.cgroup}): {verdict}")
    return 0 if ran else 1


def _validate(env_id: str, tasks: str | None, runs: int, quarantine: Path | None, executor: str | None) -> int:
    """Print the validation's report; exit status 0 when every task is valid, 1 otherwise."""
    kwargs = {k: v for k, v in {"tasks": tasks, "executor": executor}.items() if v is not None}
    report = codegym.validate(env_id, runs=runs, progress=True, **kwargs)
    print(report.render())
    if quarantine is not None:
        report.write_quarantine(quarantine)
        print(f"quarantine file ({len(report.quarantined)} tasks): {quarantine}")
    return 0 if not report.quarantined else 1


def _score(
    samples: Path, env_id: str, tasks: str | None, ks: str, out: Path | None, executor: str | None = None
) -> int:
    records = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    if not records:
        print(f"{samples}: no samples", file=sys.stderr)
        return 2
    tasks = tasks or _infer_tasks(records[0]["task_id"])
    started = time.perf_counter()
    kwargs: dict[str, Any] = {"executor": executor} if executor else {}
    pairs = [(r["task_id"], r["completion"]) for r in records]
    with codegym.Scorer(env_id, tasks=tasks, **kwargs) as scorer:
        grades = scorer.score(pairs, progress=True)
        rewards = [scorer.env.reward(grade) for grade in grades]
    elapsed = time.perf_counter() - started
    out = out or samples.with_name(samples.stem + "_results.jsonl")
    with out.open("w") as handle:
        for record, grade, reward in zip(records, grades, rewards, strict=False):
            row = {**record, "status": grade.status.value, "passed": grade.passed, "pass_rate": grade.pass_rate,
                   "reward": reward, "metrics": dict(grade.metrics)}  # fmt: skip
            handle.write(json.dumps(row) + "\n")
    per_task: dict[str, list[bool]] = defaultdict(list)
    for record, grade in zip(records, grades, strict=False):
        per_task[record["task_id"]].append(grade.passed)
    print(f"scored {len(grades)} samples of {len(per_task)} tasks in {elapsed:.1f} s ({len(grades) / elapsed:.0f}/s)")
    print("status:", dict(Counter(g.status.value for g in grades).most_common()))
    print(f"mean reward: {sum(rewards) / len(rewards):.4f}")
    for k in (int(x) for x in ks.split(",")):
        if all(len(v) >= k for v in per_task.values()):
            value = sum(pass_at_k(len(v), sum(v), k) for v in per_task.values()) / len(per_task)
            print(f"pass@{k}: {value:.4f}")
    print(f"per-sample results: {out}")
    return 0


def _infer_tasks(task_id: str) -> str:
    if task_id.startswith("HumanEval/"):
        return "humaneval"
    if task_id.startswith("codegym-py/"):
        return "codegym-py"
    raise SystemExit(f"cannot infer the task set from task id {task_id!r}; pass --tasks")


def _write_demo_samples(path: Path) -> None:
    """Two samples per HumanEval task: the canonical solution, and a broken variant."""
    env = gym.make(DEFAULT_ENV, tasks="humaneval").unwrapped
    with path.open("w") as handle:
        for task in env.tasks:  # type: ignore[attr-defined]
            completion = task.metadata["completion"]
            broken = f"def {task.metadata['entry_point']}(*args, **kwargs):\n    return None\n"
            for code in (completion, broken):
                handle.write(json.dumps({"task_id": task.id, "completion": code}) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
