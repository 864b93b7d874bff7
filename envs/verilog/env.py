"""`VerilogEnv`: write an RTL module from a spec, judged by simulation against a reference."""

from __future__ import annotations

import secrets
import threading
from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Literal

from codegym.envs.verilog import gate as gates
from codegym.envs.verilog import grader
from codegym.envs.verilog.tasks import load_tasks

from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits
from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.grade import Diagnostic, Grade, Status
from codegym.task import Task, TaskSet

LintPolicy = Literal["failure", "always", "never"]
SIM_LIMITS = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=512 << 20, processes=8, output_bytes=1 << 20)
LINT_LIMITS = Limits(cpu_s=10.0, wall_s=20.0, memory_bytes=1 << 30, processes=8, output_bytes=256 << 10)
VERILATOR = ("verilator", "--lint-only", "-Wall", "-Wno-DECLFILENAME", "-Wno-EOFNEWLINE", "--top-module", "TopModule",
             "solution.sv")  # fmt: skip
RUNNER = "codegym.envs.verilog.runner"


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
    by ``max_episode_steps``).

    ## Registered configurations
    ``codegym/Verilog-v0`` with ``tasks="codegym-verilog"`` (the bundled original problems);
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
        )
        self.lint = lint
        self._expected: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()

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

    def evaluate(self, task: Task, code: str) -> tuple[Grade, str | None]:
        report = self.check(task, code)
        if not report.passed:  # judged without a sandbox run
            return grader.grade(report, None, expected=None), None
        return super().evaluate(task, code)

    # --- the parts ---------------------------------------------------------------------------

    def check(self, task: Task, code: str) -> gates.GateReport:
        """The static gate's report on ``code`` for ``task`` (cached by `gates.check`)."""
        return gates.check(code, task.metadata["ports"], task.metadata["harness_names"])

    def expected_samples(self, task: Task) -> dict[str, int]:
        """Samples per phase of a complete run: from the problem, or measured once from the
        reference for an external testbench."""
        if task.metadata["expected"] is not None:
            return dict(task.metadata["expected"])
        with self._lock:  # held while measuring: concurrent first steps simulate it once
            if task.id not in self._expected:
                self._expected[task.id] = self._measure_reference(task)
            return self._expected[task.id]

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

    def _measure_reference(self, task: Task) -> dict[str, int]:
        reference = task.reference or ""
        result = self.executor.run(self.simulation_job(task, reference, self.limits))
        simulate = result.steps[0]
        if not simulate.ok:
            output = simulate.stderr.decode(errors="replace")[-2000:]
            raise SandboxError(f"the reference of {task.id} did not compile and run cleanly:\n{output}")
        nonce = grader.nonce_of(simulate) or ""
        report = grader.external_report(grader.tagged_lines(simulate.stdout, nonce))
        if grader.imitations(simulate.stdout, nonce):  # every design would be flagged HACK
            raise SandboxError(f"the testbench of {task.id} prints report lines its tag does not cover")
        if not report.complete or sum(report.errors.values()) or report.timeout:
            raise SandboxError(f"the reference of {task.id} does not pass its own testbench: {report}")
        return dict(report.samples)
