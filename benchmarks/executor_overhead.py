"""Per-job overhead of the docker backend (warm containers) against the local backend.

    python benchmarks/executor_overhead.py [--jobs 200]

The same trivial jobs run one at a time on a one-worker LocalExecutor and a one-worker
DockerExecutor (started, image built if missing, and warmed before timing): a Python step
in the warm interpreter, a shell command, and a PythonFunction grading job (harness plus
candidate over the channel). Prints the median and p95 per job of each backend and the ratio
docker / local of the medians (goal: at most 3x). Needs a running Docker daemon (started
when none answers, as root).
"""

from __future__ import annotations

import argparse
import statistics
import time

import codegym  # noqa: F401  (registers the envs whose jobs are measured)
from codegym.executor import Executor, Job, Step
from codegym.executor.docker import DockerExecutor, start_daemon, stop_daemon
from codegym.executor.local import LocalExecutor

PRELOAD = ("codegym.envs.python_function.candidate", "codegym.envs.python_function.harness")


def jobs() -> dict[str, Job]:
    import gymnasium as gym

    env = gym.make("codegym/PythonFunction-v0").unwrapped
    env.reset(seed=0)
    task = env.task
    return {
        "python": Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": b"print(sum(range(100)))"}),
        "shell": Job(steps=(Step(argv=("sh", "-c", "echo ok")),)),
        "python_function": env.build_job(task, task.reference or ""),
    }


def timings(executor: Executor, job: Job, count: int) -> list[float]:
    for _ in range(10):  # warm
        executor.run(job)
    out = []
    for _ in range(count):
        started = time.perf_counter()
        result = executor.run(job)
        out.append(time.perf_counter() - started)
        assert result.steps[0].exit_code == 0, result
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.95 * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    args = parser.parse_args()
    daemon = start_daemon()
    try:
        with LocalExecutor(workers=1, preload=PRELOAD) as local, DockerExecutor(workers=1, preload=PRELOAD) as docker:
            header = ("job", "local median", "local p95", "docker median", "docker p95", "ratio")
            print("{:<16} {:>13} {:>10} {:>14} {:>11} {:>6}".format(*header))
            ratios = []
            for name, job in jobs().items():
                here = timings(local, job, args.jobs)
                there = timings(docker, job, args.jobs)
                ratio = statistics.median(there) / statistics.median(here)
                ratios.append(ratio)
                print(
                    f"{name:<16} {statistics.median(here) * 1e3:>10.2f} ms {p95(here) * 1e3:>7.2f} ms "
                    f"{statistics.median(there) * 1e3:>11.2f} ms {p95(there) * 1e3:>8.2f} ms {ratio:>5.2f}x"
                )
            print(f"docker (warm) / local per-job time: worst {max(ratios):.2f}x (goal <= 3x)")
    finally:
        if daemon is not None:
            stop_daemon(daemon)


if __name__ == "__main__":
    main()
