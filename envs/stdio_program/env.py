"""`StdioProgramEnv`: a whole program in any configured language, judged on hidden inputs."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from codegym.envs.stdio_program import grader
from codegym.envs.stdio_program.languages import Language
from codegym.envs.stdio_program.languages import language as language_named
from codegym.envs.stdio_program.tasks import INCLUDE_GENERATED, load_tasks
from codegym.envs.stdio_program.workspace import STUBS, runner_script

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import SandboxError, UngradableSubmission
from codegym.executor import Executor, Job, Limits, RunResult, Step, StepResult
from codegym.grade import Grade
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet

if TYPE_CHECKING:
    from codegym.harness.mode import HarnessSpec

# The programs each language's compile and run commands start (languages.yaml), and their Debian packages.
LANGUAGE_TOOLS = (
    ("gcc", "gcc", "c"),
    ("g++", "g++", "cpp"),
    ("rustc", "rustc", "rust"),
    ("go", "golang-go", "go"),
    ("javac", "openjdk-17-jdk-headless", "java"),
    ("java", "openjdk-17-jdk-headless", "java"),
    ("node", "nodejs", "javascript"),
    ("ruby", "ruby", "ruby"),
    ("luac5.4", "lua5.4", "lua"),
    ("lua5.4", "lua5.4", "lua"),
    ("ocamlopt", "ocaml-nox", "ocaml"),
    ("gfortran", "gfortran", "fortran"),
    ("Rscript", "r-base-core", "r"),
)

CHECKER_LIMITS = Limits(cpu_s=10.0, wall_s=20.0, memory_bytes=512 << 20)
RUN_LIMITS = Limits(cpu_s=2.0, wall_s=4.0, memory_bytes=256 << 20, processes=16, output_bytes=1 << 20)
COMPILE_LIMITS = Limits(cpu_s=20.0, wall_s=30.0, memory_bytes=1 << 30, processes=64, output_bytes=1 << 20,
                        file_size_bytes=64 << 20, disk_bytes=256 << 20)  # fmt: skip

# A problem's own time limit was set for its judge's machine and language: here it becomes
# TIME_FLOOR_S + TIME_SCALE x the limit of CPU time (the floor for a runtime's start-up, the
# scale for a slower or busier machine), and WALL_PER_CPU x that of wall time. Its memory limit
# is kept, but never under MEMORY_FLOOR_BYTES (an interpreter's own). MAX_CPU_S and
# MAX_MEMORY_BYTES keep one problem from holding a worker for long, or its memory.
TIME_SCALE = 1.25
TIME_FLOOR_S = 0.25
WALL_PER_CPU = 2.0
MEMORY_FLOOR_BYTES = 128 << 20
MAX_CPU_S = 10.0
MAX_MEMORY_BYTES = 1 << 30


@dataclass(frozen=True)
class ProblemLimits:
    """How a task's own limits (``Task.metadata["limits"]``: a CodeContests, TACO or
    Codeforces problem's time and memory limits) become the limits its submissions run
    under: CPU seconds ``time_floor_s + time_scale * time_s`` (at most ``max_cpu_s``), wall
    seconds ``wall_per_cpu`` times that, memory ``memory_bytes`` (at least
    ``memory_floor_bytes``, at most ``max_memory_bytes``). They take the place of the env's
    ``limits`` (and of its ``time_limits`` calibration) for those two; processes, output and
    disk stay the env's. A task without limits of its own runs under the env's."""

    time_scale: float = TIME_SCALE
    time_floor_s: float = TIME_FLOOR_S
    wall_per_cpu: float = WALL_PER_CPU
    memory_floor_bytes: int = MEMORY_FLOOR_BYTES
    max_cpu_s: float = MAX_CPU_S
    max_memory_bytes: int = MAX_MEMORY_BYTES

    def __post_init__(self) -> None:
        if self.time_scale <= 0 or self.time_floor_s < 0 or self.wall_per_cpu < 1 or self.max_cpu_s <= 0:
            raise ValueError(
                "ProblemLimits needs time_scale > 0, time_floor_s >= 0, wall_per_cpu >= 1 and max_cpu_s > 0, got "
                f"{self.time_scale}, {self.time_floor_s}, {self.wall_per_cpu} and {self.max_cpu_s}"
            )
        if not 0 < self.memory_floor_bytes <= self.max_memory_bytes:
            raise ValueError(
                f"ProblemLimits needs 0 < memory_floor_bytes <= max_memory_bytes, got {self.memory_floor_bytes} "
                f"and {self.max_memory_bytes}"
            )

    def derive(self, base: Limits, own: Mapping[str, Any]) -> Limits:
        """``base`` with a problem's ``own`` limits (``time_s``, ``memory_bytes``) in place."""
        limits = base
        if own.get("time_s"):
            cpu = min(self.max_cpu_s, self.time_floor_s + self.time_scale * float(own["time_s"]))
            limits = replace(limits, cpu_s=cpu, wall_s=cpu * self.wall_per_cpu)
        if own.get("memory_bytes"):
            memory = min(self.max_memory_bytes, max(self.memory_floor_bytes, int(own["memory_bytes"])))
            limits = replace(limits, memory_bytes=memory)
        return limits


class StdioProgramEnv(CodeEnv):
    """Write a whole program that reads stdin and writes stdout, in any configured language.

    ## Action space
    `UnicodeText`: the program's source, raw or in a fenced block.

    ## Observation space
    `codegym.spaces.observation_space`: the statement, feedback (compiler diagnostics; for
    public tests an excerpt of input, expected and got; for hidden tests pass/fail counts
    only), status, per-test pass/fail, pass rate and attempt count.

    ## Rewards
    1.0 when every test passes, else 0.0; ``info["grade"]`` has per-test outcomes and times.

    ## Episode end
    ``mode="single"``: after one submission; ``mode="refine"``: when solved (truncated only by
    ``max_episode_steps``). ``mode="agent"`` (see `codegym.agent`): tool calls in a workspace
    holding ``TASK.md``, the language's source file (``main.py``, ``main.c``, ``Main.java``...:
    a stub that builds and solves nothing), the public tests as ``tests/N.in`` and
    ``tests/N.out``, and ``./run_tests``, which builds the source with the language's own
    commands and compares outputs as the grader does; terminated at ``submit``, which grades
    the source file as a single-shot step would.

    ## Registered configurations
    ``codegym/StdioProgram-v0`` with ``tasks="codegym-stdio"`` and ``language="python"``;
    any language of ``languages.yaml`` (``language="rust"``...); ``tasks=`` any JSON/JSONL
    file, list of dicts or ``datasets.Dataset`` in CodeContests, TACO, APPS, LiveCodeBench,
    Codeforces or plain form (see `codegym.envs.stdio_program.tasks`).

    ## How it is judged
    A compile step (with its own limits) and then one fresh sandboxed process per test, stdin
    from the test; outputs are compared outside the sandbox with the task's checker. Builds
    are cached by (language, toolchain version, source). A problem's own time and memory
    limits are honoured, scaled by ``problem_limits`` (`ProblemLimits`; None: the env's
    ``limits`` for every task); ``include_generated=False`` leaves out CodeContests'
    generated tests.
    """

    family: ClassVar[str] = "StdioProgram"
    requires: ClassVar[Requirements] = Requirements(
        tools=tuple(
            Tool(command, package, needed_for=f"language={name!r}") for command, package, name in LANGUAGE_TOOLS
        )
    )
    preload: ClassVar[tuple[str, ...]] = ("py_compile",)

    def __init__(
        self,
        tasks: str | Path | TaskSet | Any = "codegym-stdio",
        *,
        language: str = "python",
        mode: Mode = "single",
        limits: Limits = RUN_LIMITS,
        compile_limits: Limits = COMPILE_LIMITS,
        time_limits: ReferenceTimeLimits | None = None,
        public_tests: int = 1,
        include_generated: bool = INCLUDE_GENERATED,
        problem_limits: ProblemLimits | None = ProblemLimits(),
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        harness: HarnessSpec | str | None = None,
        model: str | None = None,
        validate: bool | int = False,
    ) -> None:
        super().__init__(
            load_tasks(tasks, public=public_tests, include_generated=include_generated),
            limits=limits,
            time_limits=time_limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
            harness=harness,
            model=model,
        )
        self.language: Language = language_named(language)
        self.problem_limits = problem_limits
        self.compile_limits = compile_limits
        self._builds: dict[tuple[str, str, str], dict[str, bytes]] = {}
        self._versions: dict[str, str] = {}
        self._lock = threading.Lock()
        self.validate_on_load(validate)

    def limits_for(self, task: Task) -> Limits:
        """The task's own limits scaled by ``problem_limits`` when it has some, else the
        env's (or those calibrated on its reference, with ``time_limits``)."""
        own = task.metadata.get("limits")
        if self.problem_limits is None or not own:
            return super().limits_for(task)
        return self.problem_limits.derive(self.limits, own)

    def render_prompt(self, task: Task) -> str:
        return f"{task.prompt.rstrip()}\n\nWrite the program in {self.language.name}."

    def agent_setup(self, task: Task) -> AgentSetup:
        language = self.language
        checker = task.metadata.get("checker", {"kind": "tokens"})
        runner = runner_script(language, checker, self.limits_for(task).wall_s, self.compile_limits.wall_s)
        statement = f"{task.prompt.rstrip()}\n\nWrite the program in {language.name}, in {language.file}.\n"
        files = {
            "TASK.md": statement.encode(),
            language.file: STUBS.get(language.name, "").encode(),
            "run_tests": runner.encode(),
        }
        for i, test in enumerate(task.public_tests, start=1):
            files |= {f"tests/{i}.in": (test.code or "").encode(), f"tests/{i}.out": (test.expected or "").encode()}
        return AgentSetup(
            files=files,
            submission=language.file,
            executables=("run_tests",),
            instructions=(
                f"Write the program in {language.file}. ./run_tests builds it as the grader does and runs it on "
                "each tests/N.in, comparing its output with tests/N.out (./run_tests N runs one); add tests/NAME.in "
                "and tests/NAME.out of your own to try more cases. Hidden tests decide the grade."
            ),
            sockets=language.sockets,
            processes=max(language.processes or 0, self.compile_limits.processes),
            memory_slack_bytes=language.memory_slack_mib << 20,
        )

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        language = self._language_for(task, code)
        limits = limits or self.limits_for(task)
        if language.processes:
            limits = replace(limits, processes=max(limits.processes, language.processes))
        files = {language.file: code.encode()}
        steps: list[Step] = []
        build = self._builds.get(self._build_key(language, code)) if language.compile else None
        if build is not None:
            files.update(build)
        elif language.compile:
            compile_limits = replace(
                self.compile_limits, processes=max(self.compile_limits.processes, limits.processes)
            )
            steps.append(
                Step(
                    argv=language.compile,
                    limits=compile_limits,
                    env=tuple(language.env.items()),
                    sockets=language.sockets,
                    memory_slack_bytes=language.memory_slack_mib << 20,
                )
            )
        steps += [
            Step(
                argv=language.run,
                stdin=(t.code or "").encode(),
                env=tuple(language.env.items()),
                sockets=language.sockets,
                memory_slack_bytes=language.memory_slack_mib << 20,
            )
            for t in task.tests
        ]
        return Job(
            steps=tuple(steps),
            files=files,
            limits=limits,
            preload=self.preload,
            collect=language.artifacts if build is None else (),
            executables=tuple(name for name in (build or {}) if "." not in name),
        )

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        language = self._language_for(task, code)
        compiled_here = bool(language.compile) and len(result.steps) == len(task.tests) + 1
        if compiled_here and result.steps[0].ok and language.artifacts and result.files:
            key = self._build_key(language, code)
            with self._lock:
                self._builds[key] = dict(result.files)
        runs = result.steps[1:] if compiled_here else result.steps
        verdicts = self._run_checker(task, runs) if task.metadata["checker"]["kind"] == "program" else None
        return grader.grade(task, language, result, compiled_here=compiled_here, verdicts=verdicts)

    def _run_checker(self, task: Task, runs: tuple[StepResult, ...]) -> list[bool] | None:
        """The task's own checker, in a sandbox of its own: one step per test that ran."""
        if len(runs) != len(task.tests):
            return None  # the build failed: nothing to check
        files = {"checker.py": task.metadata["checker"]["source"].encode()}
        steps = []
        for i, (test, run) in enumerate(zip(task.tests, runs, strict=True)):
            files |= {f"{i}/input.txt": (test.code or "").encode(), f"{i}/expected.txt": (test.expected or "").encode(),
                      f"{i}/output.txt": run.stdout}  # fmt: skip
            argv = ("python", "checker.py", f"{i}/input.txt", f"{i}/expected.txt", f"{i}/output.txt")
            steps.append(Step(argv=argv, stop_on_failure=False))
        result = self.executor.run(Job(steps=tuple(steps), files=files, limits=CHECKER_LIMITS))
        if any(step.limit or step.signal for step in result.steps):
            raise UngradableSubmission("its checker crashed or ran out of limits on this submission's output")
        return [step.exit_code == 0 for step in result.steps]

    def _language_for(self, task: Task, code: str) -> Language:
        # A task's reference is in its own language; the agent writes in the env's.
        if code == task.reference and task.language != self.language.name:
            return language_named(task.language)
        return self.language

    def _build_key(self, language: Language, code: str) -> tuple[str, str, str]:
        return language.name, self._version(language), hashlib.sha256(code.encode()).hexdigest()

    def _version(self, language: Language) -> str:
        with self._lock:
            if language.name not in self._versions:
                step = self.executor.run(Job(steps=(Step(argv=language.version),))).steps[0]
                if not step.ok:
                    raise SandboxError(f"{language.name}: the version probe {' '.join(language.version)} failed")
                self._versions[language.name] = (step.stdout + step.stderr).decode(errors="replace").strip()
            return self._versions[language.name]
