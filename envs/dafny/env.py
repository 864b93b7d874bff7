"""`DafnyEnv`: make a Dafny program verify, with proof hints or with bodies of one's own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from codegym.envs.dafny import gate as gates
from codegym.envs.dafny import grader
from codegym.envs.dafny.lexer import LexError
from codegym.envs.dafny.program import Assembly, assemble
from codegym.envs.dafny.tasks import BUNDLED, Kind, load_tasks

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup, FamilyTool
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.grade import Grade, Status
from codegym.task import Quarantine, Task, TaskSet
from codegym.verifier.dafny import LIMITS, Dafny

SUBMISSION = "program.dfy"  # the graded file of an agent episode


class DafnyEnv(CodeEnv):
    """Make a Dafny program verify: put back its proof hints (DafnyBench-style ``hints``), or
    write the bodies of a fixed specification (vericoding-style ``impl``).

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
    ``obligations``.

    ## Episode end
    ``mode="single"``: after one answer; ``mode="refine"``: when it verifies (truncated only
    by ``max_episode_steps``); ``mode="agent"`` (see `codegym.agent`): tool calls in a
    workspace holding ``TASK.md`` and ``program.dfy`` (the program as given), with a
    ``verify`` tool that checks the file as the grader does; terminated at ``submit``, which
    grades ``program.dfy``.

    ## Registered configurations
    ``codegym/Dafny-v0`` with ``tasks="codegym-dafny"`` (the bundled programs) and
    ``task_kind="hints"`` (default) or ``"impl"``; ``tasks=<folder>`` loads DafnyBench's
    ``ground_truth``/``hints_removed`` layout, vericoding files or verified programs; rows
    (``id``, ``program``, optional ``hints_removed``, ``description``) are taken too.

    ## How it is judged
    1. The gate (`gate.check`, on the host) refuses constructs that verify without proof
       (``assume``, ``{:axiom}``, ``{:verify false}``, ``decreases *``, bodiless lemmas with
       postconditions, ``include``, new modules, ...): ``HACK`` with the construct and its line.
    2. The env assembles the file it verifies (`program.assemble`) from the task's trusted
       program: the answer gives only the bodies and ``decreases`` clauses of the open methods
       and lemmas, and new declarations of its own; every signature and specification clause,
       and every function and predicate of the task, stays the task's. A lemma ``ensures
       false`` (the canary) is appended.
    3. One sandboxed step runs ``dafny /compile:0 /trace`` (`codegym.verifier.dafny`); the
       grader reads each procedure's outcome from the trace. The canary must fail: if it
       verifies, the context is inconsistent (``HACK``). A procedure past its time, or a
       run past the limits, is ``TLE``, never verified.
    """

    family: ClassVar[str] = "Dafny"

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

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        assembly = self.assembly(task, code)
        if assembly is None:
            return Job(steps=(Step(argv=("true",)),))  # nothing of a refused answer runs
        return self.verifier.job({grader.PROGRAM: assembly.text}, limits or self.limits)

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        assembly = self.assembly(task, code)
        if assembly is None:
            return grader.grade(gates.check(code), None, None)
        return grader.grade(gates.check(code), assembly, self.verifier.read(result))

    def reward_components(self, grade: Grade) -> dict[str, float]:
        verified = 1.0 if grade.status is Status.OK else 0.0
        if self.partial_credit and grade.status is Status.WA:
            return {"verified": 0.5 * float(grade.metrics.get("verified_fraction", 0.0))}
        return {"verified": verified}

    def agent_setup(self, task: Task) -> AgentSetup:
        instructions = (
            f"Edit {SUBMISSION} until it verifies. The `verify` tool checks it as the grader does (the gate, the "
            "task's own specification with your bodies, Dafny 2.3) and prints each error on your file's lines; "
            f"`dafny /compile:0 {SUBMISSION}` runs in the shell too. Call `submit` when it verifies: {SUBMISSION} "
            "is graded as it is then."
        )
        files = {"TASK.md": task.prompt.encode(), SUBMISSION: str(task.metadata["given"]).encode()}
        return AgentSetup(files=files, submission=SUBMISSION, instructions=instructions)

    def agent_tools(self) -> tuple[FamilyTool, ...]:
        description = (
            f"Verify {SUBMISSION} of the workspace as the grader does: the gate, then Dafny on the task's own "
            "specification with the file's bodies. Prints the verdict and Dafny's errors on the file's own lines. "
            "Does not end the episode."
        )
        return (FamilyTool("verify", description, self._verify_tool),)

    def _verify_tool(self, episode: AgentEpisode, arguments: Mapping[str, Any]) -> tuple[str, int]:
        """The ``verify`` tool: the grade ``submit`` would give now, without its reward."""
        assert self.task is not None
        grade, problem = self.evaluate_task(self.task, episode.read_submission())
        if "infra_error" in problem:
            raise SandboxError(problem["infra_error"])
        return grade.feedback(), 0 if grade.status is Status.OK else 1

    def check_solutions(self, task: Task) -> str | None:
        """A task whose program verifies as given has nothing to ask for."""
        given = str(task.metadata["given"])
        grade, _ = self.evaluate(task, given)
        if grade.status is Status.OK:
            return "the program verifies as given: there is nothing for the agent to add"
        return None

    # --- the parts -------------------------------------------------------------------------------

    def assembly(self, task: Task, code: str) -> Assembly | None:
        """The file verified for ``code``, or None when the gate refuses it."""
        if not gates.check(code).passed:
            return None
        metadata = task.metadata
        try:
            return assemble(str(metadata["trusted"]), str(metadata["given"]), code, metadata["open"])
        except LexError:
            return None
