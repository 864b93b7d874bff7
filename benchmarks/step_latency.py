"""Step latency: how long ``env.step`` takes beyond the submitted program's own run time.

    python benchmarks/step_latency.py [--steps 300] [--pause-ms 20] [--pin-workers]

One env, sequential steps (reset + step, as a single-episode agent would), a trivial
program with one test, timed two ways:

- paced: the agent sleeps ``--pause-ms`` before each step, standing in for its policy's
  turn (generation takes far longer in an RL loop). Each worker has finished the cleanup of
  its last step by then: this is the latency an agent sees.
- back to back: no pause at all. Each step then also competes for the two cores with the
  cleanup of the step before (killing its processes, forking and confining the next spare):
  a tight loop's worst case. Many submissions at once belong to `codegym.Scorer`.

The program's own run time is measured in the same run by executing the same program and
test in-process with no sandbox (the test compiled once, as the harness caches its tests'
code), paced as the steps are: after a pause of the same length, the program's own compile
and run also start with cold caches (on a shared 2-core VM, 20 ms is enough for them to
lose most of what they held), so the paced overhead is compared like with like. The
overhead is the difference of the medians. Prints, for each way, the median and p95 of the
step, the program's own time, and the overhead. ``--pin-workers`` runs the env on a
``LocalExecutor(pin_workers=True)`` (a machine the pool has to itself) instead of the default.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import codegym  # noqa: F401
from codegym.executor.local import LocalExecutor
from codegym.task import Task, TaskSet, TestCase

PROGRAM = "def answer():\n    return 42\n"
TEST = "assert answer() == 42"
TASK = Task(
    id="bench/answer",
    family="PythonFunction",
    prompt='def answer() -> int:\n    """Return 42."""\n',
    tests=(TestCase("test_00", TEST, hidden=False),),
    metadata={"entry_point": "answer", "prefix": "", "test_prelude": ""},
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def own_time(repeats: int, pause_s: float) -> list[float]:
    """The program's compile and run, and its test's run: what the step does for the program.
    (The test is compiled once, as the harness caches its tests' code.)"""
    test = compile(TEST, "test", "exec")
    times = []
    for _ in range(repeats):
        time.sleep(pause_s)
        started = time.perf_counter()
        namespace: dict = {}
        exec(compile(PROGRAM, "solution", "exec"), namespace)
        exec(test, namespace)
        times.append(time.perf_counter() - started)
    return times


def timed_steps(env: gym.Env, steps: int, pause_s: float) -> list[float]:
    latencies = []
    for _ in range(steps):
        env.reset()
        time.sleep(pause_s)
        started = time.perf_counter()
        _, reward, *_ = env.step(PROGRAM)
        latencies.append(time.perf_counter() - started)
        assert reward == 1.0
    return latencies


def report(title: str, latencies: list[float], own: list[float]) -> None:
    ms = 1000.0
    print(title)
    median, p95 = statistics.median(latencies) * ms, percentile(latencies, 0.95) * ms
    print(f"  step latency   : median {median:.2f} ms, p95 {p95:.2f} ms")
    print(f"  program's own  : median {statistics.median(own) * ms:.3f} ms")
    overhead = [t - statistics.median(own) for t in latencies]
    median, p95 = statistics.median(overhead) * ms, percentile(overhead, 0.95) * ms
    print(f"  step overhead  : median {median:.2f} ms, p95 {p95:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--pause-ms", type=float, default=20.0, help="the agent's turn before each paced step")
    parser.add_argument("--pin-workers", action="store_true", help="keep each worker on a CPU of its own")
    args = parser.parse_args()
    executor = LocalExecutor(pin_workers=True) if args.pin_workers else None
    env = gym.make("codegym/PythonFunction-v0", tasks=TaskSet([TASK]), executor=executor)
    timed_steps(env, 20, 0.0)  # start the workers, warm every cache
    paced = timed_steps(env, args.steps, args.pause_ms / 1000)
    back_to_back = timed_steps(env, args.steps, 0.0)
    print(f"{args.steps} steps of a trivial program (one test), each way")
    own_paced = own_time(args.steps, args.pause_ms / 1000)
    report(f"paced ({args.pause_ms:g} ms of the agent's time before each step):", paced, own_paced)
    report("back to back:", back_to_back, own_time(args.steps, 0.0))
    env.close()
    if executor is not None:
        executor.close()


if __name__ == "__main__":
    main()
