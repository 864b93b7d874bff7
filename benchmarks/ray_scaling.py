"""Ray backend scaling: throughput with two local workers (actors) against one.

    python benchmarks/ray_scaling.py [--jobs 16] [--cpu-s 0.5] [--rounds 2]

Starts a local Ray cluster (2 CPUs, no dashboard, bound to 127.0.0.1), then runs the same
batch of CPU-bound jobs (each spins for ``--cpu-s`` seconds in the sandbox) through a
RayExecutor with one actor and through one with two, each holding a one-worker local backend.
The two alternate for ``--rounds`` rounds; prints the best jobs per second of each and the
speed-up (goal: at least 1.7x). The speed-up is bounded
by the free cores: on a machine that others are using, it is lower.
"""

from __future__ import annotations

import argparse
import time

import ray

from codegym.executor import Job, Limits, Step
from codegym.executor.ray import LOCAL_CLUSTER, RayExecutor


def spin(cpu_s: float) -> Job:
    source = f"import time\nend = time.process_time() + {cpu_s}\nwhile time.process_time() < end:\n    pass\n"
    source += "print('done')"
    return Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()}, limits=Limits(cpu_s=10))


def throughput(nodes: int, jobs: int, cpu_s: float) -> float:
    with RayExecutor(nodes=nodes, workers_per_node=1, cpus_per_node=1) as executor:
        for future in [executor.submit(spin(0.01)) for _ in range(4 * nodes)]:  # start every worker
            future.result()
        started = time.perf_counter()
        results = [f.result() for f in [executor.submit(spin(cpu_s)) for _ in range(jobs)]]
        elapsed = time.perf_counter() - started
    assert all(r.steps[0].stdout == b"done\n" for r in results)
    return jobs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--cpu-s", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    ray.init(**LOCAL_CLUSTER)
    try:  # alternate, and keep each one's best round: others' load on the machine comes in bursts
        rounds = [
            (throughput(1, args.jobs, args.cpu_s), throughput(2, args.jobs, args.cpu_s)) for _ in range(args.rounds)
        ]
    finally:
        ray.shutdown()
    one, two = max(r[0] for r in rounds), max(r[1] for r in rounds)
    print(f"1 worker : {one:6.2f} jobs/s")
    print(f"2 workers: {two:6.2f} jobs/s")
    print(f"speed-up 2 vs 1: {two / one:.2f}x (goal >= 1.7x)")


if __name__ == "__main__":
    main()
