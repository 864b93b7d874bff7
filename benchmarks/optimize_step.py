"""Optimize-v0: what the meter costs. ``env.step`` of each bundled task's faster solution
(tests, then the metered benchmark runs) against running the same tests and the same
benchmark inputs without a meter (plain ``python main.py`` or ``./main`` steps, one job, on
the same workers), interleaved, per language and measure.

    python benchmarks/optimize_step.py [--repeats 3] [--language python] [--measure instructions]

The goal (issue 32): at most 5x for ``"instructions"`` on the bundled Python tasks.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from codegym.envs.optimize.env import OptimizeEnv, program
from codegym.envs.stdio_program.languages import language as language_named

from codegym.executor import Job, Step
from codegym.task import Task


def plain_job(env: OptimizeEnv, task: Task, code: str, inputs: tuple[str, ...]) -> Job:
    """The same tests and benchmark inputs, run as plain steps (the program built already)."""
    language = language_named(task.language)
    native = task.language != "python"
    run = ("./main",) if native else language.run
    stdins = [t.code or "" for t in task.tests] + list(inputs)
    steps = tuple(Step(argv=run, stdin=text.encode(), stop_on_failure=False) for text in stdins)
    binary = env.binary(task, code) if native else None
    files = {"main": binary or b""} if native else {language.file: program(task, code).encode()}
    return Job(steps=steps, files=files, limits=env.limits, executables=("main",) if native else ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--language", choices=("python", "c", "cpp"), action="append")
    parser.add_argument("--measure", choices=("instructions", "wall"), action="append")
    args = parser.parse_args()
    languages = args.language or ["python", "c", "cpp"]
    for measure in args.measure or ["instructions"]:
        for language in languages:
            env = OptimizeEnv(language=language, measure=measure)
            metered: dict[str, list[float]] = defaultdict(list)
            plain: dict[str, list[float]] = defaultdict(list)
            for task in env.tasks:
                fast = str(task.metadata["fast"])
                grade, _ = env.evaluate_task(task, fast)  # (calibrates the reference; builds the program)
                assert grade.status.value == "OK", (task.id, grade.message)
                _, inputs, _ = env._baseline(task)
                job = plain_job(env, task, fast, inputs)
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    env.evaluate_task(task, fast)
                    metered[task.id].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    result = env.executor.run(job)
                    plain[task.id].append(time.perf_counter() - started)
                    assert all(step.ok for step in result.steps), task.id
            ratios = [statistics.median(metered[t]) / statistics.median(plain[t]) for t in metered]
            step_s = statistics.median([statistics.median(v) for v in metered.values()])
            plain_s = statistics.median([statistics.median(v) for v in plain.values()])
            print(
                f"{measure:12} {language:6} {len(ratios):2} tasks: env.step {1000 * step_s:8.1f} ms, "
                f"without a meter {1000 * plain_s:7.1f} ms (medians); ratio per task: median "
                f"{statistics.median(ratios):.2f}x, max {max(ratios):.2f}x"
            )
            env.close()


if __name__ == "__main__":
    main()
