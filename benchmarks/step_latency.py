"""Step latency: how long ``env.step`` takes beyond the submitted program's own run time.

    python benchmarks/step_latency.py [--steps 300] [--pause-ms 20] [--pin-workers]
                                      [--isolation userns container] [--as-user NAME]

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

``--isolation TIER ...`` measures the sandbox's other isolation tiers side by side with
"full" (the baseline, measured in the same run): the steps of each are taken in turns of 50,
round robin over the tiers, so that a drift of the machine's speed falls on all alike, and
the overhead of each is printed with its ratio to full's. ``--as-user NAME`` runs the
"userns" tier's workers as that plain user (through setpriv, with Debian's python3), as on a
cluster; as root, "userns" is root's own (an identity-mapped user namespace).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

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


TURN = 50  # steps of one tier before the next tier's turn


def executor_for(tier: str, user: str | None) -> LocalExecutor:
    if tier == "userns" and user:
        launcher = ("setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--inh-caps=-all",
                    "--bounding-set=-all", "--")  # fmt: skip
        return LocalExecutor(isolation=tier, launcher=launcher, python="/usr/bin/python3")
    python = "/usr/bin/python3" if tier == "container" else None  # (its steps' uid must reach it)
    return LocalExecutor(isolation=tier, python=python)


def in_turns(
    envs: dict[str, gym.Env], steps: int, measure: Callable[[gym.Env, int], list[float]]
) -> dict[str, list[float]]:
    """``steps`` of each env's, taken in turns of TURN, round robin."""
    found: dict[str, list[float]] = {name: [] for name in envs}
    while any(len(v) < steps for v in found.values()):
        for name, env in envs.items():
            found[name] += measure(env, min(TURN, steps - len(found[name])))
    return found


def compare_tiers(tiers: list[str], args: argparse.Namespace) -> None:
    executors = {tier: executor_for(tier, args.as_user) for tier in ["full", *tiers]}
    envs = {
        tier: gym.make("codegym/PythonFunction-v0", tasks=TaskSet([TASK]), executor=executors[tier])
        for tier in executors
    }
    for tier, executor in executors.items():
        timed_steps(envs[tier], 20, 0.0)
        print(f"{tier}: {executor.isolation} tier, cgroup {executor.cgroup}, user map {executor.report.user_map}")
    pause = args.pause_ms / 1000
    for title, wait in (
        (f"paced ({args.pause_ms:g} ms of the agent's time before each step)", pause),
        ("back to back", 0.0),
    ):
        latencies = in_turns(envs, args.steps, lambda env, n, wait=wait: timed_steps(env, n, wait))
        own = statistics.median(own_time(args.steps, wait))
        overhead = {tier: statistics.median(values) - own for tier, values in latencies.items()}
        print(f"{title}: {args.steps} steps per tier, program's own {own * 1000:.3f} ms")
        for tier, values in latencies.items():
            p95 = percentile(values, 0.95) - own
            median, ratio = overhead[tier] * 1000, overhead[tier] / overhead["full"]
            print(f"  {tier:10}: step overhead median {median:.2f} ms, p95 {p95 * 1000:.2f} ms, {ratio:.2f}x full")
    for tier, env in envs.items():
        env.close()
        executors[tier].close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--pause-ms", type=float, default=20.0, help="the agent's turn before each paced step")
    parser.add_argument("--pin-workers", action="store_true", help="keep each worker on a CPU of its own")
    parser.add_argument("--isolation", nargs="+", choices=("userns", "container"), help="tiers to compare with full")
    parser.add_argument("--as-user", help="run the userns tier's workers as this plain user")
    args = parser.parse_args()
    if args.isolation:
        compare_tiers(args.isolation, args)
        return
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
