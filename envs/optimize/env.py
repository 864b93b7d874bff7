"""`OptimizeEnv`: make a correct but slow program faster, scored by a deterministic cost."""

from __future__ import annotations

import hashlib
import json
import math
import statistics
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from codegym.envs.optimize import grader
from codegym.envs.optimize.grader import Baseline
from codegym.envs.optimize.tasks import BUNDLED, DRIVER_MARK, load_tasks, with_driver
from codegym.envs.optimize.workspace import profile_script
from codegym.envs.stdio_program.languages import Language
from codegym.envs.stdio_program.languages import language as language_named
from codegym.envs.stdio_program.workspace import runner_script

from codegym import meter
from codegym.agent import AgentEpisode, AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.grade import Grade, Status
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet

Measure = Literal["instructions", "wall"]
RewardKind = Literal["log_speedup", "fast_p", "correct"]
MEASURES = ("instructions", "wall")
# Student's t at 95% (two-sided) by degrees of freedom, for the wall measure's interval.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093}  # fmt: skip
REWARDS = ("log_speedup", "fast_p", "correct")
RUN_LIMITS = Limits(cpu_s=2.0, wall_s=4.0, memory_bytes=256 << 20, processes=16, output_bytes=1 << 20)
COMPILE_LIMITS = Limits(cpu_s=20.0, wall_s=30.0, memory_bytes=1 << 30, processes=64, output_bytes=1 << 20,
                        file_size_bytes=64 << 20)  # fmt: skip
# A metered run of the reference may take this long (valgrind runs a program 20-50 times slower);
# a submission's metered runs get METER_SLACK times the reference's CPU time, at least METER_FLOOR_S.
CALIBRATION_LIMITS = Limits(cpu_s=120.0, wall_s=240.0, memory_bytes=1 << 30, processes=8, output_bytes=64 << 20)
METER_SLACK = 3.0
METER_FLOOR_S = 5.0
MIN_SPEEDUP = 1.1  # what `codegym validate` asks of a task's faster solution
SOLVED_SPEEDUP = 0.99  # "as fast as the reference": its own count moves by up to about 0.5% between runs
GENERATOR = r"""
import json, random, sys
namespace = {"__name__": "generator"}
exec(compile(open("generator.py").read(), "generator.py", "exec"), namespace)
seed, size, count = (int(a) for a in sys.argv[1:4])
inputs = []
for i in range(count):
    made = namespace["generate"](size, random.Random(seed * 1000 + i))
    if isinstance(made, (list, tuple)):  # (a function task's calls: one JSON list of arguments a line)
        made = "".join(json.dumps(list(args)) + "\n" for args in made)
    if not isinstance(made, str):
        raise SystemExit("generate(size, rng) must return the input as a str (or a list of argument lists)")
    inputs.append(made)
sys.stdout.write(json.dumps(inputs))
"""


@dataclass(frozen=True)
class _Launched:
    """What `OptimizeEnv.grade` takes: the job's result and how it was built (and, for the
    wall measure, the timing of the reference and the program run in turn)."""

    result: RunResult | None
    compiled_here: bool
    key: str
    compile_failure: RunResult | None = None
    timing: grader.Timing | None = None
    table: meter.native.Table | None = None  # (a native build's, for its meter)


class OptimizeEnv(CodeEnv):
    """Make a correct but slow program faster without changing what it prints.

    ## Action space
    `UnicodeText`: the faster program's source (a whole stdin/stdout program in the task's
    language), raw or in a fenced block.

    ## Observation space
    `codegym.spaces.observation_space`: the spec, the slow program and its public tests; after
    a step, the feedback (the status, the speedup and the count it came from, failing tests,
    and the program's hot spots: its costliest lines with their text and its costliest
    functions, as ``note [profile]`` diagnostics), per-test results and pass rate.

    ## Rewards
    0 unless every test passes and every benchmark run prints the reference's output; then
    ``correct`` (1.0) plus a ``speedup`` term from ``speedup = cost(reference) / cost(program)``
    on the hidden benchmark inputs: ``reward="log_speedup"`` (default) adds
    ``clip(ln(speedup), -1, ln(max_speedup))``; ``"fast_p"`` adds 0 when the speedup exceeds
    ``p`` and -1 otherwise; ``"correct"`` adds nothing. ``info["grade"].metrics`` holds
    ``speedup``, ``cost`` and ``reference_cost``.

    ## The cost
    ``measure="instructions"``: instructions counted on the benchmark inputs, which do not
    move with machine load (see `codegym.meter`): machine instructions under valgrind's
    cachegrind for C and C++ (threads included; new processes are refused), a division
    counted as 30 and each mispredicted branch adding 60 (`codegym.meter.native`); for Python,
    bytecode instructions and the items builtins iterate over and compare, counted in C by a
    trace function and wrapped type slots the program cannot reach (new threads and processes
    are refused). The benchmark inputs are made by the task's hidden
    generator at grade time (``bench_seed``; sizes times ``bench_scale``), in a sandbox of
    their own, and the reference's cost on them is measured once per task.

    ``measure="wall"``: wall-clock time instead, as the runner measures it around the
    program's process (no new thread or process). After the tests, the reference and the
    program run in turn (the order alternating), a pair at a time, until the 95% interval of
    the ratio is within ``wall_precision`` or ``wall_budget_s`` is spent (``wall_pairs``:
    the least and most pairs); the speedup is the geometric mean of the pairs' ratios, and
    ``speedup_low`` and ``speedup_high`` its interval. It moves with machine load: prefer
    ``"instructions"`` for a reward.

    ## Episode end
    ``mode="single"``: after one submission; ``mode="refine"``: never by itself (a faster
    program is always possible): bound it with ``max_episode_steps``. ``mode="agent"`` (see
    `codegym.agent`): tool calls in a workspace holding ``TASK.md``, the slow program (in
    ``main.py``, ``main.c`` or ``main.cpp``) to edit, the public tests, ``./run_tests`` and
    ``./profile`` (the grader's count on the shown inputs, with the costliest lines and
    functions); terminated at ``submit``, which grades the program as a step would.

    ## Registered configurations
    ``codegym/Optimize-v0`` with ``tasks="codegym-optimize"`` (every language);
    ``language="python"``, ``"c"`` or ``"cpp"`` keeps the tasks of one.
    """

    family: ClassVar[str] = "Optimize"
    requires: ClassVar[Requirements] = Requirements(
        tools=(
            Tool("valgrind", "valgrind", needed_for="C and C++ tasks (the instruction count)"),
            Tool("gcc", "gcc", needed_for="C tasks"),
            Tool("g++", "g++", needed_for="C++ tasks"),
        )
    )
    preload: ClassVar[tuple[str, ...]] = (*meter.PRELOAD, "py_compile")

    def __init__(
        self,
        tasks: str | Path | TaskSet | Any = BUNDLED,
        *,
        language: str | None = None,
        measure: Measure = "instructions",
        reward: RewardKind = "log_speedup",
        p: float = 1.0,
        max_speedup: float = 100.0,
        bench_scale: float = 1.0,
        bench_seed: int = 0,
        wall_precision: float = 0.05,
        wall_budget_s: float = 20.0,
        wall_pairs: tuple[int, int] = (3, 15),
        mode: Mode = "single",
        limits: Limits = RUN_LIMITS,
        compile_limits: Limits = COMPILE_LIMITS,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if max_speedup <= 1 or p <= 0 or bench_scale <= 0:
            raise ValueError(f"need max_speedup > 1, p > 0 and bench_scale > 0, got {max_speedup}, {p}, {bench_scale}")
        task_set = load_tasks(tasks)
        if language is not None:
            kept = [t for t in task_set if t.language == language]
            if not kept:
                raise ValueError(f"no task in {task_set.name!r} is in language {language!r}")
            task_set = TaskSet(kept, name=f"{task_set.name}[{language}]")
        super().__init__(task_set, limits=limits, mode=mode, executor=executor, on_infra_error=on_infra_error,
                         render_mode=render_mode, agent=agent, on_task_error=on_task_error,
                         quarantine=quarantine)  # fmt: skip
        self.measure: Measure = measure
        self.reward_kind: RewardKind = reward
        self.p, self.max_speedup = p, max_speedup
        self.bench_scale, self.bench_seed = bench_scale, bench_seed
        if not (wall_precision > 0 and wall_budget_s > 0 and 2 <= wall_pairs[0] <= wall_pairs[1] <= 20):
            raise ValueError(f"need wall_precision > 0, wall_budget_s > 0 and 2 <= wall_pairs <= 20, got "
                             f"{wall_precision}, {wall_budget_s}, {wall_pairs}")  # fmt: skip
        self.wall_precision, self.wall_budget_s, self.wall_pairs = wall_precision, wall_budget_s, wall_pairs
        self._timers: ThreadPoolExecutor | None = None
        self.compile_limits = compile_limits
        self._baselines: dict[tuple[str, float], tuple[Baseline, tuple[str, ...], float]] = {}
        self._builds: dict[str, tuple[bytes, meter.native.Table]] = {}
        self._lock = threading.Lock()
        self.validate_on_load(validate)

    def find_executor(self) -> Executor:
        """The executor, made to preload the meter's runner (also one passed in: another
        env's, when `codegym.wrappers.EfficiencyReward` meters that env's tasks)."""
        executor = super().find_executor()
        if hasattr(executor, "ensure_preloaded"):
            executor.ensure_preloaded(self.preload)  # type: ignore[attr-defined]
        return executor

    # --- the prompt ----------------------------------------------------------------------

    def render_prompt(self, task: Task) -> str:
        language = language_named(task.language)
        examples = "\n\n".join(
            f"Input:\n{t.code.rstrip()}\nOutput:\n{(t.expected or '').rstrip()}" for t in task.public_tests
        )
        entry = task.metadata.get("entry_point")
        if entry:
            return (
                f"{task.prompt.rstrip()}\n\nThis Python code is correct but slow:\n\n"
                f"```python\n{(task.reference or '').rstrip()}\n```\n\n"
                "Examples (each input line is a call's arguments as JSON, each output line its result):\n\n"
                f"{examples}\n\n"
                f"Write a faster version with the same {entry} that returns exactly what this one returns. Speed is "
                f"measured as {self._unit(language)} on larger hidden inputs."
            )
        return (
            f"{task.prompt.rstrip()}\n\nThis {language.name} program is correct but slow:\n\n"
            f"```{language.name}\n{(task.reference or '').rstrip()}\n```\n\n"
            f"Examples:\n\n{examples}\n\n"
            f"Write a faster program in {language.name} that prints exactly what this one prints for every input. "
            f"Speed is measured as {self._unit(language)} on larger hidden inputs."
        )

    # --- agent mode ----------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        """The slow program to start from (a function task's with its driver, which
        ``submit`` takes off again), the public tests, ``./run_tests`` and ``./profile``."""
        language = language_named(task.language)
        entry = task.metadata.get("entry_point")
        checker = task.metadata.get("checker", {"kind": "tokens"})
        runner = runner_script(language, checker, self.limits.wall_s, self.compile_limits.wall_s)
        files = {
            "TASK.md": self.render_prompt(task).encode(),
            language.file: program(task, task.reference or "").encode(),
            "run_tests": runner.encode(),
            "profile": profile_script(language).encode(),
        }
        for i, test in enumerate(task.public_tests, start=1):
            files |= {f"tests/{i}.in": (test.code or "").encode(), f"tests/{i}.out": (test.expected or "").encode()}
        driver = " (keep the driver at its end: it calls your function on each input line)" if entry else ""
        return AgentSetup(
            files=files,
            submission=language.file,
            executables=("run_tests", "profile"),
            instructions=(
                f"{language.file} holds the slow program{driver}: make it faster without changing its output. "
                "./run_tests builds and runs it on tests/N.in as the grader does; ./profile counts what the grader "
                "counts on those inputs and shows the costliest lines and functions. Add tests/NAME.in of your own "
                "to profile larger inputs. The grade: hidden tests, then the count on larger hidden inputs."
            ),
            processes=max(self.compile_limits.processes, 16),
        )

    def agent_submission(self, task: Task, episode: AgentEpisode) -> str:
        """The workspace's program, less the driver a function task's workspace shows."""
        code = episode.read_submission()
        marker = code.find(DRIVER_MARK)
        return code[:marker] if task.metadata.get("entry_point") and marker >= 0 else code

    # --- the reference, measured once ----------------------------------------------------

    def _unit(self, language: Language) -> str:
        return "seconds of wall-clock time" if self.measure == "wall" else f"{meter.UNITS[_kind(language)]} executed"

    def check_task(self, task: Task) -> None:
        self._baseline(task)

    def _baseline(self, task: Task) -> tuple[Baseline, tuple[str, ...], float]:
        key = (task.id, self.bench_scale)  # (bench_scale is a curriculum's knob: its inputs are its own)
        with self._lock:
            known = self._baselines.get(key)
        if known is not None:
            return known
        inputs = self._bench_inputs(task)
        language = language_named(task.language)
        launched = self._run(task, language, program(task, task.reference or ""), inputs, with_tests=False,
                             limits=CALIBRATION_LIMITS).result()  # fmt: skip
        if launched.result is None:
            raise InvalidTask(f"its reference does not compile: {_compile_error(launched.compile_failure)}")
        readings = grader.read_all(launched.result, launched.result.steps, launched.key, self._kind(language),
                                   language.file, launched.table)  # fmt: skip
        for index, (step, reading) in enumerate(zip(launched.result.steps, readings, strict=True)):
            if step.limit is not None or not reading.ok:
                why = f"the {step.limit} limit" if step.limit else reading.failure
                raise InvalidTask(f"its reference failed its metered run on benchmark input {index + 1}: {why}")
        cpu = max(step.cpu_s for step in launched.result.steps)
        baseline = (Baseline(tuple(readings), self._unit(language)), inputs, cpu)
        with self._lock:
            return self._baselines.setdefault(key, baseline)

    def _bench_inputs(self, task: Task) -> tuple[str, ...]:
        """The benchmark inputs, from the task's generator in a sandbox of its own (without
        one: its largest hidden tests' inputs)."""
        count = int(task.metadata["bench_inputs"])
        if not task.metadata.get("generator"):
            hidden = sorted((t.code or "" for t in task.hidden_tests), key=len, reverse=True)
            return tuple(hidden[:count])
        size = max(1, round(int(task.metadata["bench_size"]) * self.bench_scale))
        seed = zlib.crc32(f"{self.bench_seed}:{task.id}".encode())
        argv = ("python", "-c", GENERATOR, str(seed), str(size), str(count))
        files = {"generator.py": str(task.metadata["generator"]).encode()}
        limits = Limits(cpu_s=30.0, wall_s=60.0, memory_bytes=1 << 30, output_bytes=256 << 20)
        step = self.executor_for(task).run(Job(steps=(Step(argv=argv),), files=files, limits=limits)).steps[0]
        if not step.ok:
            detail = step.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"limit {step.limit}"]
            raise InvalidTask(f"its benchmark generator failed: {detail[0][:300]}")
        inputs = json.loads(step.stdout)
        return tuple(inputs)

    # --- a submission --------------------------------------------------------------------

    def launch(self, task: Task, code: str) -> Future[Any]:
        self.check_task_once(task)
        _, inputs, cpu = self._baseline(task)
        meter_limits = _meter_limits(cpu)
        language = language_named(task.language)
        if self.measure == "wall":
            with self._lock:
                self._timers = self._timers or ThreadPoolExecutor(4, thread_name_prefix="codegym-wall")
            return self._timers.submit(self._timed, task, language, program(task, code), inputs, meter_limits)
        return self._run(task, language, program(task, code), inputs, with_tests=True, limits=meter_limits)

    def _timed(self, task: Task, language: Language, code: str, inputs: tuple[str, ...], limits: Limits) -> _Launched:
        """The wall measure: the tests and one timed run per benchmark input (its output checked
        against the reference's), then the reference and the program timed in turn, a pair at
        a time (the order alternating), until the ratio's 95% interval is within
        ``wall_precision`` or ``wall_budget_s`` is spent."""
        first = self._run(task, language, code, inputs, with_tests=True, limits=limits).result()
        untimed = replace(first, timing=grader.Timing.untimed())  # (what the grade is before any timing)
        if first.result is None or self.grade_checked(task, code, untimed).status is not Status.OK:
            return untimed
        reference = program(task, task.reference or "")
        logs: list[float] = []
        times: tuple[list[float], list[float]] = ([], [])
        deadline = time.monotonic() + self.wall_budget_s
        least, most = self.wall_pairs
        for pair in range(most):
            order = ((0, reference), (1, code)) if pair % 2 == 0 else ((1, code), (0, reference))
            for which, source in order:
                seconds = self._time(task, language, source, inputs, limits)
                if seconds is None:
                    return replace(first, timing=grader.Timing.failed("a timed run did not finish cleanly"))
                times[which].append(seconds)
            logs.append(math.log(times[0][-1] / times[1][-1]))
            if len(logs) >= least and (
                _half_width(logs) <= math.log1p(self.wall_precision) or time.monotonic() > deadline
            ):
                break
        mean, half = statistics.fmean(logs), _half_width(logs)
        timing = grader.Timing(math.exp(mean), math.exp(mean - half), math.exp(mean + half), len(logs),
                               statistics.median(times[0]), statistics.median(times[1]))  # fmt: skip
        return replace(first, timing=timing)

    def _time(self, task: Task, language: Language, code: str, inputs: tuple[str, ...], limits: Limits) -> float | None:
        launched = self._run(task, language, code, inputs, with_tests=False, limits=limits).result()
        if launched.result is None:
            return None
        readings = grader.read_all(launched.result, launched.result.steps, launched.key, self._kind(language),
                                   language.file, launched.table)  # fmt: skip
        if any(not r.ok for r in readings) or any(s.limit for s in launched.result.steps):
            return None
        return sum(r.wall_s for r in readings)

    def _kind(self, language: Language) -> meter.Kind:
        kind = _kind(language)
        return (
            "python-wall"
            if kind == "python" and self.measure == "wall"
            else ("native-wall" if self.measure == "wall" else kind)
        )

    def measure_speedup(self, task: Task, code: str) -> Grade:
        """Meter ``code`` on ``task``'s benchmark inputs only, against the reference (no tests:
        for `codegym.wrappers.EfficiencyReward`, whose env has judged it already). ``OK`` with
        the speedup metrics, or why it could not be measured."""
        self.check_task_once(task)
        _, inputs, cpu = self._baseline(task)
        language = language_named(task.language)
        launched = self._run(task, language, program(task, code), inputs, with_tests=False,
                             limits=_meter_limits(cpu)).result()  # fmt: skip
        return self.grade(replace(task, tests=()), code, launched)

    def _run(self, task: Task, language: Language, code: str, inputs: tuple[str, ...], *, with_tests: bool,
             limits: Limits) -> Future[_Launched]:  # fmt: skip
        """Build ``code`` (once per source), then run the job: the tests (``with_tests``),
        then one metered run per benchmark input."""
        done: Future[_Launched] = Future()
        if _kind(language) == "python":
            done.set_result(self._job(task, language, code, None, inputs, with_tests, limits))
            return done
        digest = _build_key(language.name, code)
        with self._lock:
            build = self._builds.get(digest)
        if build is not None:
            done.set_result(self._job(task, language, code, build, inputs, with_tests, limits))
            return done
        job = Job(steps=meter.build_steps(language.compile, language.file), files={language.file: code.encode()},
                  limits=self.compile_limits, collect=("main", meter.TABLE_FILE),
                  preload=(meter.ANNOTATOR,))  # fmt: skip

        def built(future: Future[RunResult]) -> None:
            try:
                result = future.result()
                files = result.files
                if not all(step.ok for step in result.steps) or "main" not in files or meter.TABLE_FILE not in files:
                    done.set_result(_Launched(None, True, "", compile_failure=result))
                    return
                build = (files["main"], meter.native.Table.from_json(files[meter.TABLE_FILE]))
                with self._lock:
                    self._builds[digest] = build
                done.set_result(self._job(task, language, code, build, inputs, with_tests, limits,
                                          compile_result=result))  # fmt: skip
            except BaseException as e:
                done.set_exception(e)

        self.executor_for(task).submit(job).add_done_callback(built)
        return done

    def _job(self, task: Task, language: Language, code: str, build: tuple[bytes, meter.native.Table] | None,
             inputs: tuple[str, ...], with_tests: bool, limits: Limits,
             compile_result: RunResult | None = None) -> _Launched:  # fmt: skip
        key = meter.new_key()
        kind = self._kind(language)
        native = kind.startswith("native")
        files = {"main": build[0]} if build is not None else {language.file: code.encode()}
        files |= {f"bench{i}.in": text.encode() for i, text in enumerate(inputs)}
        steps: list[Step] = []
        if with_tests:
            if not native:  # (a syntax check: a parse error is CE with its line)
                steps.append(Step(argv=language.compile, limits=self.compile_limits))
            run = ("./main",) if native else language.run
            steps += [Step(argv=run, stdin=(t.code or "").encode(), stop_on_failure=False) for t in task.tests]
        command = ("./main",) if native else ()
        steps += [replace(meter.metered_step(kind, f"bench{i}.in", key, command), limits=limits)
                  for i in range(len(inputs))]  # fmt: skip
        profiles = tuple(meter.profile_file(f"bench{i}.in") for i in range(len(inputs))) if kind == "native" else ()
        job = Job(steps=tuple(steps), files=files, limits=self.limits, preload=self.preload,
                  executables=("main",) if native else (), collect=profiles)  # fmt: skip
        result = self.executor_for(task).run(job)
        if compile_result is not None and with_tests:
            result = replace(result, steps=(compile_result.steps[0], *result.steps))
        table = build[1] if build is not None else None
        return _Launched(result, with_tests and (not native or compile_result is not None), key, table=table)

    def binary(self, task: Task, code: str) -> bytes | None:
        """The built program of ``code`` (C, C++) if this env has built it."""
        with self._lock:
            build = self._builds.get(_build_key(task.language, program(task, code)))
        return None if build is None else build[0]

    def grade(self, task: Task, code: str, result: _Launched) -> Grade:  # type: ignore[override]
        language = language_named(task.language)
        if result.result is None:
            assert result.compile_failure is not None
            steps = result.compile_failure.steps
            failed = replace(result.compile_failure, steps=tuple(s for s in steps if not s.ok)[:1] or steps[:1])
            return grader.stdio.grade(task, language, failed, compiled_here=True)
        baseline = self._baseline(task)[0]
        return grader.grade(task, language, result.result, compiled_here=result.compiled_here, key=result.key,
                            baseline=baseline, source=program(task, code), kind=self._kind(language),
                            timing=result.timing, table=result.table)  # fmt: skip

    def close(self) -> None:
        with self._lock:
            timers, self._timers = self._timers, None
        if timers is not None:
            timers.shutdown(wait=False, cancel_futures=True)
        super().close()

    def check_solutions(self, task: Task) -> str | None:
        """The task's faster solution (``fast``) must pass and be at least `MIN_SPEEDUP` times
        as fast as the reference."""
        fast = task.metadata.get("fast")
        if not fast:
            return None
        grade, problem = self.evaluate_task(task, str(fast))
        if grade.status is not Status.OK:
            return f"its faster solution scores {grade.status.value}: {problem.get('task_error') or grade.message}"
        speedup = grade.metrics.get("speedup", 0.0)
        if speedup < MIN_SPEEDUP:
            return (
                f"its faster solution is not measurably faster: {speedup:.3f}x the reference (at least {MIN_SPEEDUP}x)"
            )
        return None

    # --- the reward ----------------------------------------------------------------------

    def solved(self, grade: Grade) -> bool:
        """Correct (``OK``) and at least as fast as the reference: a speedup of at least
        `SOLVED_SPEEDUP` (1, less the count's own noise on the reference); with
        ``measure="wall"``, a 95% interval of the speedup that reaches 1."""
        if grade.status is not Status.OK:
            return False
        if "speedup_high" in grade.metrics:
            return grade.metrics["speedup_high"] >= 1.0
        return grade.metrics.get("speedup", 0.0) >= SOLVED_SPEEDUP

    def refine_ends(self, grade: Grade) -> bool:
        return False  # (a faster program is always possible: refine ends by max_episode_steps)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """``correct``, plus the ``speedup`` term of a correct submission."""
        components = super().reward_components(grade)
        speedup = grade.metrics.get("speedup")
        if grade.status is Status.OK and speedup is not None and self.reward_kind != "correct":
            if self.reward_kind == "log_speedup":
                components["speedup"] = min(math.log(self.max_speedup), max(-1.0, math.log(max(speedup, 1e-12))))
            else:
                components["speedup"] = 0.0 if speedup > self.p else -1.0
        return components


def program(task: Task, code: str) -> str:
    """What runs for ``code``: itself, or for a function task, it and the driver that calls it
    (after the task's ``prefix``: the imports a LeetCode-style judge provides)."""
    entry = task.metadata.get("entry_point")
    if not entry:
        return code
    return with_driver(str(task.metadata.get("prefix") or "") + code, str(entry))


def _meter_limits(reference_cpu_s: float) -> Limits:
    """A submission's metered runs: `METER_SLACK` times the reference's CPU time, at least
    `METER_FLOOR_S`, at most the calibration's."""
    budget = min(CALIBRATION_LIMITS.cpu_s, max(METER_FLOOR_S, METER_SLACK * reference_cpu_s))
    return replace(CALIBRATION_LIMITS, cpu_s=budget, wall_s=2 * budget)


def _build_key(language: str, source: str) -> str:
    return hashlib.sha256(f"{language}\0{source}".encode()).hexdigest()


def _half_width(logs: list[float]) -> float:
    """The 95% interval's half width of the mean of ``logs``."""
    if len(logs) < 2:
        return math.inf
    return T95.get(len(logs) - 1, 1.96) * statistics.stdev(logs) / math.sqrt(len(logs))


def _kind(language: Language) -> meter.Kind:
    return "python" if language.name == "python" else "native"


def _compile_error(result: RunResult | None) -> str:
    if result is None or not result.steps:
        return "no build"
    return result.steps[0].stderr.decode(errors="replace").strip()[-300:]
