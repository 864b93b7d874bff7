"""`VerilogEnv`: write an RTL module from a spec, judged by simulation against a reference."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, Literal

from codegym.envs.verilog import gate as gates
from codegym.envs.verilog import grader, testbench
from codegym.envs.verilog.runner import COMPILED, IVERILOG
from codegym.envs.verilog.tasks import interface_block, load_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import InvalidTask
from codegym.executor import Executor, Job, Limits, RunResult, Step, StepResult
from codegym.grade import Diagnostic, Grade, Status
from codegym.requirements import Module, Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet

LintPolicy = Literal["failure", "always", "never"]
SIM_LIMITS = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=512 << 20, processes=8, output_bytes=1 << 20)
LINT_LIMITS = Limits(cpu_s=10.0, wall_s=20.0, memory_bytes=1 << 30, processes=8, output_bytes=256 << 10)
VERILATOR = ("verilator", "--lint-only", "-Wall", "-Wno-DECLFILENAME", "-Wno-EOFNEWLINE", "--top-module", "TopModule",
             "solution.sv")  # fmt: skip
RUNNER = "codegym.envs.verilog.runner"
SUBMISSION = "TopModule.sv"  # the graded file of an agent episode
PUBLIC_BENCH = "tests/tb_interface.sv"
# An external testbench's reference runs once, under the env's limits raised to these: a limit
# a correct reference needs is raised for the task's submissions (`VerilogEnv.limits_for`), so
# that no task is dropped for it. A submission gets this multiple of the reference run's CPU
# time plus the floor, where that is more than the env's limits.
REFERENCE_CPU_S = 60.0
REFERENCE_WALL_S = 120.0
REFERENCE_MULTIPLE = 2.0
REFERENCE_FLOOR_S = 1.0


@dataclass(frozen=True)
class ReferenceRun:
    """What an external testbench's reference run measured: the samples per phase of a
    complete run, and its CPU and wall-clock seconds."""

    samples: dict[str, int]
    cpu_s: float
    wall_s: float


class VerilogEnv(CodeEnv):
    """Write a Verilog/SystemVerilog module ``TopModule`` from a natural-language spec.

    ## Action space
    `UnicodeText`: the design's source, raw or in a fenced ```verilog block.

    ## Observation space
    `codegym.spaces.observation_space`: the spec with ``TopModule``'s interface, feedback
    (gate, iverilog and Verilator diagnostics with file, line, column and code; per output
    and phase (reset, directed, random): mismatching samples, the time and inputs of the
    first mismatch, expected and got values), status, per-(output, phase) pass/fail, pass
    rate and attempt count.

    ## Rewards
    1.0 iff every sample of every output matches the reference over the full expected
    number of samples, else 0.0. ``info["grade"].metrics`` holds ``mismatch_ratio``,
    ``samples`` and ``mismatches`` for partial-credit wrappers; ``.resources`` the compile
    and simulation times.

    ## Episode end
    ``mode="single"``: after one submission; ``mode="refine"``: when solved (truncated only
    by ``max_episode_steps``). ``mode="agent"`` (see `codegym.agent`): tool calls in a
    workspace holding ``TASK.md``, ``TopModule.sv`` (the interface with an empty body),
    ``tests/tb_interface.sv`` and ``./run_tests``; terminated at ``submit``, which grades
    ``TopModule.sv`` as a single-shot step would. The problems show no input/output examples
    and the reference is hidden, so the public check is the interface: ``./run_tests``
    compiles the design with a testbench that only connects its ports (the grader's
    iverilog flags), fails on errors and port warnings, and simulates 10 ns with every input
    0, printing the outputs. Behaviour is judged by the hidden testbench at submit.

    ## Registered configurations
    ``codegym/Verilog-v1`` with ``tasks="codegym-verilog"`` (the bundled original problems);
    ``tasks=<folder>`` loads a VerilogEval v2 folder.

    ## How it is judged
    1. The static gate (`gate.check`, on the host, pyslang) rejects forbidden constructs
       (``HACK``: ending the run, file or plusarg access, hierarchical references into the
       testbench, using or redefining the reference, driving inputs, ``include``, bind,
       DPI, force), and errors or an interface mismatch (``CE``). Nothing of a rejected
       design runs.
    2. One sandboxed step (`runner`, in a warm worker): ``iverilog -g2012`` compiles the
       testbench, the reference and the design (the design's file last, so its directives
       cannot reach the harness); the compiled image is opened as stdin, every file of the
       work dir is deleted, and the step becomes ``vvp`` with a fresh nonce plusarg. The
       step's ``limits`` cover compilation and simulation together (compiling takes
       milliseconds); they stop a hung simulation (``TLE``), and a compile that does not
       finish within them is ``CE``.
    3. The grader (`grader.grade`) reads only nonce-tagged lines and requires every phase's
       exact sample count.
    4. ``lint="failure"`` (default) runs ``verilator --lint-only`` in a second sandboxed job
       only when the design failed (CE, WA, TLE), where its warnings help; ``"always"`` or
       ``"never"`` as named.
    """

    family: ClassVar[str] = "Verilog"
    requires: ClassVar[Requirements] = Requirements(
        tools=(Tool("iverilog", "iverilog"), Tool("vvp", "iverilog"), Tool("verilator", "verilator")),
        modules=(Module("pyslang", "verilog"),),
    )
    preload: ClassVar[tuple[str, ...]] = (RUNNER,)

    def __init__(
        self,
        tasks: str | Path | TaskSet = "codegym-verilog",
        *,
        mode: Mode = "single",
        limits: Limits = SIM_LIMITS,
        lint: LintPolicy = "failure",
        time_limits: ReferenceTimeLimits | None = None,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        if lint not in ("failure", "always", "never"):
            raise ValueError(f"lint must be 'failure', 'always' or 'never', got {lint!r}")
        super().__init__(
            load_tasks(tasks),
            limits=limits,
            time_limits=time_limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.lint = lint
        self._measured: dict[str, ReferenceRun] = {}
        self._lock = threading.Lock()
        self.validate_on_load(validate)

    # --- hooks -------------------------------------------------------------------------------

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        if not self.check(task, code).passed:
            return Job(steps=(Step(argv=("true",)),))  # nothing of a rejected design runs
        return self.simulation_job(task, code, limits or self.limits_for(task))

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        report = self.check(task, code)
        if not report.passed:
            return grader.grade(report, None, expected=None)
        expected, bench = self.expected_samples(task), task.metadata["bench"]
        verdict = grader.grade(report, result, expected=expected, bench=bench)
        if self.lint == "always" or (self.lint == "failure" and verdict.status in (Status.CE, Status.WA, Status.TLE)):
            verdict = replace(verdict, diagnostics=(*verdict.diagnostics, *self.run_lint(code)))
        return verdict

    def check_task(self, task: Task) -> None:
        self.expected_samples(task)  # an external testbench's reference runs once, here

    def evaluate(self, task: Task, code: str) -> tuple[Grade, dict[str, str]]:
        report = self.check(task, code) if task.invalid is None else None  # (one the loader could not read is IE)
        if report is not None and not report.passed:  # judged without a sandbox run
            return grader.grade(report, None, expected=None), {}
        return super().evaluate(task, code)

    def agent_setup(self, task: Task) -> AgentSetup:
        ports = task.metadata["ports"]
        return AgentSetup(
            files={
                "TASK.md": f"{task.prompt.rstrip()}\n\nWrite the module in {SUBMISSION}.\n".encode(),
                SUBMISSION: f"{interface_block(ports)}\n\nendmodule\n".encode(),
                PUBLIC_BENCH: testbench.interface_bench(ports).encode(),
                "run_tests": run_tests_script().encode(),
            },
            submission=SUBMISSION,
            executables=("run_tests",),
            instructions=(
                f"Write TopModule in {SUBMISSION}, keeping its interface. ./run_tests compiles it with iverilog "
                "as the grader does and checks that it fits the interface; it cannot check what it computes: "
                "at submit a hidden testbench compares it with a hidden reference. iverilog and vvp are "
                "installed, for testbenches of your own."
            ),
        )

    # --- the parts ---------------------------------------------------------------------------

    def check(self, task: Task, code: str) -> gates.GateReport:
        """The static gate's report on ``code`` for ``task`` (cached by `gates.check`)."""
        return gates.check(code, task.metadata["ports"], task.metadata["harness_names"])

    def expected_samples(self, task: Task) -> dict[str, int]:
        """Samples per phase of a complete run: from the problem, or measured once from the
        reference for an external testbench."""
        if task.metadata["expected"] is not None:
            return dict(task.metadata["expected"])
        return dict(self.reference_run(task).samples)

    def reference_run(self, task: Task) -> ReferenceRun:
        """An external testbench's reference run, measured once (under the env's limits
        raised to `REFERENCE_CPU_S` and `REFERENCE_WALL_S`).

        Raises:
            InvalidTask: The reference did not compile, hit a limit (named, with its value),
                failed, or does not pass its own testbench.
        """
        with self._lock:  # held while measuring: concurrent first steps simulate it once
            if task.id not in self._measured:
                self._measured[task.id] = self._measure_reference(task)
            return self._measured[task.id]

    def limits_for(self, task: Task) -> Limits:
        """The env's limits (or `ReferenceTimeLimits`'), raised for an external testbench
        whose reference needs more: ``REFERENCE_FLOOR_S + REFERENCE_MULTIPLE x`` its CPU
        time, and the wall-clock time in the env's proportion (a correct design must not be
        ``TLE`` where the reference is not)."""
        if task.metadata.get("expected", {}) is not None or "harness" not in task.metadata:
            return super().limits_for(task)
        measured = self.reference_run(task)
        limits = needed_limits(self.limits, measured.cpu_s)
        if self.time_limits is None:
            return limits
        return self.time_limits.derive(limits, measured.cpu_s, measured.wall_s)

    def run_lint(self, code: str) -> tuple[Diagnostic, ...]:
        """Verilator's lint warnings on the design, from a sandbox of their own."""
        job = Job(steps=(Step(argv=VERILATOR),), files={"solution.sv": code.encode()}, limits=LINT_LIMITS)
        step = self.executor.run(job).steps[0]
        if step.limit is not None:
            return (Diagnostic("verilator exceeded its limits; no lint results", severity="note", code="lint"),)
        return grader.parse_verilator((step.stderr + step.stdout).decode(errors="replace"))

    def simulation_job(self, task: Task, code: str, limits: Limits) -> Job:
        """The compile-and-simulate job of ``code``, whatever the gate says (``build_job``
        only builds it for designs the gate passed; tests use it to check the later layers on
        their own). One step (`runner`) under ``limits``, compilation included."""
        nonce = f"+{grader.NONCE_PLUSARG}={secrets.token_hex(16)}"
        return Job(
            steps=(Step(argv=("python", "-m", RUNNER, str(limits.wall_s), nonce)),),
            files={"tb.sv": task.metadata["harness"].encode(), "solution.sv": code.encode()},
            limits=limits,
            preload=self.preload,
        )

    def _measure_reference(self, task: Task) -> ReferenceRun:
        reference = task.reference or ""
        limits = replace(self.limits, cpu_s=max(self.limits.cpu_s, REFERENCE_CPU_S),
                         wall_s=max(self.limits.wall_s, REFERENCE_WALL_S))  # fmt: skip
        result = self.executor.run(self.simulation_job(task, reference, limits))
        simulate = result.steps[0]
        if not simulate.ok:
            raise InvalidTask(reference_failure(simulate, limits))
        nonce = grader.nonce_of(simulate) or ""
        report = grader.external_report(grader.tagged_lines(simulate.stdout, nonce))
        if grader.imitations(simulate.stdout, nonce):  # every design would be flagged HACK
            raise InvalidTask("its testbench prints report lines its tag does not cover")
        if report.timeout:
            raise InvalidTask("its testbench reports a timeout (TIMEOUT) when it simulates the reference")
        if not report.complete:
            raise InvalidTask("its testbench ended before reporting the reference's mismatches")
        if sum(report.errors.values()):
            mismatches = ", ".join(f"{name}: {count}" for name, count in report.errors.items() if count)
            raise InvalidTask(f"its reference does not pass its own testbench (mismatched samples: {mismatches})")
        return ReferenceRun(dict(report.samples), simulate.cpu_s, simulate.wall_s)


def needed_limits(limits: Limits, reference_cpu_s: float) -> Limits:
    """``limits``, raised where a reference run that took ``reference_cpu_s`` of CPU needs more
    (see `REFERENCE_MULTIPLE`); the wall-clock limit keeps its proportion to the CPU limit."""
    needed = REFERENCE_FLOOR_S + REFERENCE_MULTIPLE * reference_cpu_s
    if needed <= limits.cpu_s:
        return limits
    return replace(limits, cpu_s=needed, wall_s=max(limits.wall_s, needed * limits.wall_s / limits.cpu_s))


def reference_failure(step: StepResult, limits: Limits) -> str:
    """Why a reference's run failed, in words: never empty, and without the runner's own
    marker line (``@@codegym-compiled@@``)."""
    compiled = grader.compile_report(step.stderr)
    if compiled is not None and compiled[1] not in ("0", "timeout"):
        output = compiled[0].strip() or "no output"
        return f"its reference did not compile (iverilog exited with status {compiled[1]}): {output[-2000:]}"
    if step.limit is not None:
        where = "compile" if compiled is None or compiled[1] == "timeout" else "simulation"
        return (
            f"its reference's {where} hit the {step.limit} limit ({limits.value_of(step.limit)}) after "
            f"{step.cpu_s:.1f} s of CPU time and {step.wall_s:.1f} s of wall-clock time: raise `limits`"
        )
    if compiled is None or compiled[1] == "timeout":
        return f"its reference did not finish compiling within {limits.wall_s:g} s"
    after = step.stderr.decode(errors="replace")
    after = "\n".join(line for line in after.splitlines() if not line.startswith(COMPILED)).strip()
    printed = (after + "\n" + step.stdout.decode(errors="replace")).strip()[-2000:] or "it printed nothing"
    how = f"was killed by signal {step.signal}" if step.signal is not None else f"exited with status {step.exit_code}"
    return f"its reference's simulation {how}: {printed}"


RUN_TESTS = """\
#!/bin/sh
# The public check of {submission}: compiled with {bench} as the grader
# compiles a design (the same iverilog flags), then simulated for 10 ns with every input 0.
# It checks that the design compiles and fits the interface; hidden tests check its
# behaviour at submit.
build=$(mktemp -d) || exit 2
trap 'rm -rf "$build"' EXIT
{compile} >"$build/log" 2>&1
status=$?
cat "$build/log"
if [ "$status" -ne 0 ]; then
  echo "FAIL: iverilog rejected {submission} (see above)"
  exit 1
fi
if grep -qi 'warning:.*port' "$build/log"; then
  echo "FAIL: TopModule's ports differ from the interface in TASK.md (see above); the grader rejects such a design"
  exit 1
fi
timeout 5 vvp -n "$build/sim.vvp"
status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: the simulation failed (exit status $status; 124: it did not finish within 5 s)"
  exit 1
fi
echo "(z: an output nothing drives; x: an unknown value, such as a register before its reset)"
echo "PASS: {submission} compiles and fits the interface (its behaviour is checked by hidden tests at submit)."
"""


def run_tests_script() -> str:
    """The workspace's ``run_tests``: the family's iverilog command (`runner.IVERILOG`) on the
    public interface testbench and the submission, then a short simulation."""
    files = {"sim.vvp": '"$build/sim.vvp"', "tb.sv": PUBLIC_BENCH, "solution.sv": SUBMISSION}
    command = " ".join(files.get(arg, arg) for arg in IVERILOG)
    return RUN_TESTS.format(submission=SUBMISSION, bench=PUBLIC_BENCH, compile=command)
