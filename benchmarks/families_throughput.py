"""Items graded per second: TestGeneration and OutputPrediction against PythonFunction, one run.

    python benchmarks/families_throughput.py [--items 400] [--repeats 3]

Each family grades ``--items`` submissions with `codegym.Scorer` (deduplication off, every
item run) on the same warm local workers, one family after the other:

- PythonFunction (the baseline): codegym-py's references, and ``return None`` stubs;
- TestGeneration: codegym-py's own tests (valid: a run on the reference, then one per
  mutant, 16 at most) and ``assert True`` (valid, kills nothing: it calls nothing, so no
  mutant runs), half each; each task's mutant pool is made (or read from the cache) before
  the clock starts. Each item is one sandbox job, its runs each in processes of their own,
  and the mean pool size is printed too;
- OutputPrediction ``direction="output"`` (the literal compared in the trainer's process)
  and ``direction="input"`` (the code run on the predicted input in the sandbox), over its
  generated items: the recorded answers, answers computed before the clock starts.

Prints items/s for each and its ratio to PythonFunction's rate. PythonFunction's rate moves
from run to run on a shared machine, so PythonFunction and TestGeneration are measured
``--repeats`` times, each time one right after the other, and the median of the ratios is
printed too.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import gymnasium as gym

import codegym
from codegym.grade import Grade


def rate(env: gym.Env, submissions: list[tuple[str, str]]) -> tuple[float, list[Grade]]:
    """Items per second of grading ``submissions`` on ``env``'s warm workers, and the grades."""
    with codegym.Scorer(env, dedupe=False) as scorer:
        scorer.score(submissions[:8])  # (workers started, modules loaded)
        started = time.perf_counter()
        grades = scorer.score(submissions)
        elapsed = time.perf_counter() - started
    if any(g.status.value == "IE" for g in grades):
        raise SystemExit(f"{env.unwrapped.spec.id if env.unwrapped.spec else env}: an item was not graded")
    return len(submissions) / elapsed, grades


def cycle(pairs: list[tuple[str, str]], n: int) -> list[tuple[str, str]]:
    return list(itertools.islice(itertools.cycle(pairs), n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.repeats < 1 or args.items < 1:
        parser.error("--items and --repeats take positive integers")
    n = args.items

    functions = gym.make("codegym/PythonFunction-v0").unwrapped
    stub = [(t.id, f"def {t.metadata['entry_point']}(*args):\n    return None\n") for t in functions.tasks]
    function_items = cycle([*[(t.id, t.reference or "") for t in functions.tasks], *stub], n)
    tests = gym.make("codegym/TestGeneration-v1").unwrapped
    tests.prepare()  # type: ignore[attr-defined]
    valid = [t for t in tests.tasks if not tests.invalid_tasks.get(t.id) and tests.pool(t.id)]  # type: ignore[attr-defined]
    test_items = cycle([p for t in valid for p in ((t.id, t.reference or ""), (t.id, "assert True\n"))], n)

    pairs: list[tuple[float, float]] = []
    grades: list[Grade] = []
    for _ in range(args.repeats):
        baseline, _ = rate(functions, function_items)
        generation, grades = rate(tests, test_items)
        pairs.append((baseline, generation))
    pool = sum(g.metrics.get("mutants", 0.0) for g in grades) / len(grades)
    rates = {"PythonFunction": pairs[-1][0], "TestGeneration": pairs[-1][1]}

    for direction in ("output", "input"):
        env = gym.make("codegym/OutputPrediction-v1", direction=direction).unwrapped
        items = list(itertools.islice(env.tasks, min(n, len(env.tasks))))
        for task in items:
            env.check_task_once(task)  # (its answer, computed in the sandbox, before the clock)
        rates[f"OutputPrediction ({direction})"], _ = rate(env, cycle([(t.id, t.reference or "") for t in items], n))

    base = rates["PythonFunction"]
    print(f"{'family':32} {'items/s':>9} {'vs PythonFunction':>18}")
    for name, value in rates.items():
        print(f"{name:32} {value:9.1f} {value / base:17.2f}x")
    print(f"TestGeneration: one sandbox job per item: the tests on the reference, then (when they call the "
          f"function) on each of its mutants, {pool:.1f} on average")  # fmt: skip
    ratios = [generation / baseline for baseline, generation in pairs]
    each = ", ".join(f"{g:.1f}/{b:.1f} = {g / b:.3f}x" for b, g in pairs)
    print(
        f"TestGeneration vs PythonFunction, {len(pairs)} times one after the other: {each}; "
        f"median {statistics.median(ratios):.3f}x"
    )


if __name__ == "__main__":
    main()
