"""`DafnyEnv`: make a Dafny program verify, with proof hints or with bodies of one's own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from codegym.envs.dafny import gate as gates
from codegym.envs.dafny import grader
from codegym.envs.dafny.lexer import LexError
from codegym.envs.dafny.program import Assembly, assemble, strip_spec
from codegym.envs.dafny.spec import SpecCases, assemble_answer
from codegym.envs.dafny.tasks import BUNDLED, Kind, load_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask
from codegym.executor import Executor, Job, Limits, RunResult
from codegym.grade import Grade, Status
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet
from codegym.verifier import GateReport, VerifierReport
from codegym.verifier.dafny import LIMITS, Dafny
from codegym.verifier.env import VerifierEnv


@dataclass(frozen=True)
class Runs:
    """What `DafnyEnv.grade` takes: the verification job's result, and the second run's
    (`DafnyEnv.rerun_job`) where `grader.verify_again` asked for one."""

    first: RunResult
    again: RunResult | None = None


class DafnyEnv(VerifierEnv[Assembly]):
    """Make a Dafny program verify: put back its proof hints (DafnyBench-style ``hints``),
    write the bodies of a fixed specification (vericoding-style ``impl``), or write the
    specification of a fixed implementation (``spec``).

    ## Action space
    `UnicodeText`: the whole program, raw or in a fenced ```dafny block.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (the description, the verifier's version
    and dialect, the program as given), feedback (Dafny's errors on the answer's own lines,
    the failing assertion's text, the gate's refusals with their lines), status, one test per
    procedure (verified or not), pass rate and attempt count.

    ## Rewards
    1.0 iff every procedure of the assembled program verifies (and the canary does not),
    else 0.0; with ``partial_credit=True``, a program that does not fully verify earns
    ``0.5 x`` the fraction of its procedures that verified (never for ``HACK``, ``CE`` or a
    timeout). ``info["grade"].metrics`` holds ``verified_fraction``, ``procedures`` and
    ``obligations``. A ``spec`` answer earns, once the program verifies against it, the
    fraction of held mutants it rules out (``kill_rate``, with ``mutants`` and ``killed``;
    see `codegym.envs.dafny.spec`).

    ## Episode end
    ``mode="single"``: after one answer; ``mode="refine"``: when it verifies (truncated only
    by ``max_episode_steps``); ``mode="agent"`` (see `codegym.agent`): tool calls in a
    workspace holding ``TASK.md`` and ``program.dfy`` (the program as given), with a
    ``verify`` tool that checks the file as the grader does; terminated at ``submit``, which
    grades ``program.dfy``.

    ## Registered configurations
    ``codegym/Dafny-v1`` with ``tasks="codegym-dafny"`` (the bundled programs) and
    ``task_kind="hints"`` (default), ``"impl"`` or ``"spec"``; ``tasks=<folder>`` loads
    DafnyBench's layout (a clone, or its ``DafnyBench/dataset``: ``ground_truth/<stem>.dfy``
    and ``hints_removed/<stem>_no_hints.dfy``), vericoding files or verified
    programs (with ``<stem>.spec.json`` for ``spec``); rows (``id``, ``program``, optional
    ``hints_removed``, ``description``, ``spec_cases``) are taken too.

    ## How it is judged
    1. The gate (`gate.check`, on the host) refuses constructs that verify without proof
       (``assume``, ``{:axiom}``, ``{:verify false}``, ``decreases *``, bodiless lemmas with
       postconditions, ``include``, new modules, ...): ``HACK`` with the construct and its line.
    2. The env assembles the file it verifies (`program.assemble`) from the task's trusted
       program: the answer gives only the bodies and ``decreases`` clauses of the open methods
       and lemmas, and new declarations of its own; every signature and specification clause,
       and every function and predicate of the task, stays the task's (a ``spec`` answer
       gives the target's ``requires`` and ``ensures`` instead of bodies, and the env appends
       its kill checks). A lemma ``ensures false`` (the canary) is appended.
    3. One sandboxed step runs ``dafny /compile:0 /trace`` (`codegym.verifier.dafny`); the
       grader reads each procedure's outcome from the trace. The canary must fail: if it
       verifies, the context is inconsistent (``HACK``). A procedure past its time, or a
       run past the limits, is ``TLE``, never verified.
    4. A lemma more changes what Z3 does on a fragile proof, so when a procedure was not
       verified (or the run was stopped) and the canary was not proved, the program is
       verified again without the canary (`rerun_job`, `grader.verify_again`): a procedure
       verified in either run is verified; the first run's canary stands (or, where that run
       never reached it, the canary checked alone in the second).
    """

    family: ClassVar[str] = "Dafny"
    requires: ClassVar[Requirements] = Requirements(tools=(Tool("dafny", "dafny"),))
    submission: ClassVar[str] = "program.dfy"
    tool_name: ClassVar[str] = "Dafny 2.3"
    shell_command: ClassVar[str] = "dafny /compile:0 program.dfy"

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Mapping[str, Any]] = BUNDLED,
        *,
        task_kind: Kind = "hints",
        partial_credit: bool = False,
        time_limit_s: int = 20,
        mode: Mode = "single",
        limits: Limits = LIMITS,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        super().__init__(
            load_tasks(tasks, task_kind),
            limits=limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.task_kind = task_kind
        self.partial_credit = partial_credit
        self.verifier = Dafny(time_limit_s=time_limit_s)
        self.validate_on_load(validate)

    # --- hooks -------------------------------------------------------------------------------

    def gate(self, code: str) -> GateReport:
        return gates.check(code)

    def assemble(self, task: Task, code: str) -> Assembly | None:
        metadata = task.metadata
        try:
            if metadata["kind"] != "spec":
                return assemble(str(metadata["trusted"]), str(metadata["given"]), code, metadata["open"])
            cases = SpecCases.from_json(metadata["spec"], task.id)
            return assemble_answer(str(metadata["trusted"]), code, metadata["open"][0], cases)
        except LexError:
            return None

    def verification_job(self, task: Task, assembly: Assembly, limits: Limits) -> Job:
        return self.verifier.job({grader.PROGRAM: assembly.text}, limits)

    def rerun_job(self, assembly: Assembly, first: VerifierReport, limits: Limits) -> Job:
        """The second run (`grader.verify_again`): the program without the canary, as bare
        Dafny verifies it, then, where the first run never reached the canary (it was
        stopped), the canary alone in the program beside it. Each step has ``limits``."""
        files = {grader.PROGRAM: assembly.program}
        if first.outcome_of(assembly.canary) is not None:
            return self.verifier.job(files, limits)
        return self.verifier.job({**files, grader.CANARY: assembly.text}, limits, only=(grader.CANARY, assembly.canary))

    def launch(self, task: Task, code: str) -> Future[Any]:
        """The verification job, then, when `grader.verify_again` asks for it, the
        `rerun_job`: a future of the `Runs` that `grade` takes."""
        first = super().launch(task, code)
        assembly = self.assembly(task, code)
        runs: Future[Runs] = Future()
        executor = self.executor_for(task)

        def settle(result: RunResult, again: Future[RunResult]) -> None:
            try:
                runs.set_result(Runs(result, again.result()))
            except BaseException as e:
                runs.set_exception(e)

        def then(done: Future[RunResult]) -> None:
            try:
                result = done.result()
                report = self.verifier.read(result)
                if assembly is None or not grader.verify_again(assembly, report):
                    runs.set_result(Runs(result))
                    return
                again = executor.submit(self.rerun_job(assembly, report, self.limits))
                again.add_done_callback(lambda finished: settle(result, finished))
            except BaseException as e:
                runs.set_exception(e)

        first.add_done_callback(then)
        return runs

    def grade(self, task: Task, code: str, result: RunResult | Runs) -> Grade:
        """The grade of ``result``: `launch`'s `Runs`, or one run's result (the second run is
        then not made)."""
        runs = result if isinstance(result, Runs) else Runs(result)
        assembly = self.assembly(task, code)
        if assembly is None:
            return grader.grade(self.gate(code), None, None)
        again = None if runs.again is None else self.verifier.read(runs.again)
        return grader.grade(self.gate(code), assembly, self.verifier.read(runs.first), again)

    def judge(self, gate: GateReport, assembly: Assembly | None, result: RunResult | None) -> Grade:
        return grader.grade(gate, assembly, None if result is None else self.verifier.read(result))

    # --- spec tasks --------------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        """The workspace; a spec task's instructions name the method to specify. A task that
        cannot be graded (`Task.invalid`) raises `InvalidTask` with ``on_task_error="raise"``;
        else its instructions say why, and ``submit`` grades it ``IE``, as every family does."""
        setup = super().agent_setup(task)
        try:
            self.check_task_once(task)
        except InvalidTask as e:
            if self.on_task_error == "raise":
                raise
            return replace(setup, instructions=f"Task {task.id} cannot be graded (not your fault): {e}. "
                                               "`submit` ends the episode with an IE grade.")  # fmt: skip
        if task.metadata["kind"] != "spec":
            return setup
        target = task.metadata["open"][0]
        instructions = (
            f"Write the requires and ensures clauses of {target} in {self.submission} (its body is fixed). The "
            "`verify` tool checks the file as the grader does: the implementation must verify against your "
            "specification, and it says how many held mutants of the implementation the specification rules out "
            f"(the reward is that share). Call `submit` when done: {self.submission} is graded as it is then."
        )
        return replace(setup, instructions=instructions)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        if "mutants" not in grade.metrics:
            return super().reward_components(grade)
        return {"kills": float(grade.metrics["kill_rate"]) if grade.status is Status.OK else 0.0}

    def solved(self, grade: Grade) -> bool:
        """A spec answer is solved when it verifies and rules out every held mutant (kill
        rate 1); a hints or impl answer when it verifies (``OK``)."""
        if "mutants" not in grade.metrics:
            return super().solved(grade)
        return grade.status is Status.OK and grade.metrics.get("kill_rate", 0.0) >= 1.0

    def check_solutions(self, task: Task) -> str | None:
        """A hints or impl task that verifies as given has nothing to ask for; a spec task's
        own specification must rule out every held mutant (its reference is solved: kill
        rate 1, which `mutants` makes so by keeping only the mutants it rules out), and its
        preconditions with ``ensures true`` none."""
        if task.metadata["kind"] != "spec":
            return super().check_solutions(task)
        trusted = str(task.metadata["trusted"])
        grade, _ = self.evaluate(task, trusted)
        if grade.status is not Status.OK:
            return f"its own specification is {grade.status.value}: {grade.message}"
        if not self.solved(grade):
            killed, held = int(grade.metrics.get("killed", 0.0)), int(grade.metrics.get("mutants", 0.0))
            return (f"its own specification rules out {killed} of its {held} held mutants (all expected: the "
                    "others are right by it, so no answer is solved); remake its spec data with `python -m "
                    "codegym.envs.dafny.mutants <file>`, which keeps only the mutants it rules out")  # fmt: skip
        vacuous, _ = self.evaluate(task, strip_spec(trusted, task.metadata["open"][0], ["ensures"]))
        if float(vacuous.metrics.get("killed", 0.0)) > 0:  # (a WA is 0 too: a caller may need the ensures)
            return f"with `ensures true` it rules out {vacuous.metrics['killed']:.0f} mutants (none expected)"
        return None
