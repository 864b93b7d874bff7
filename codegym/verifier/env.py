"""`VerifierEnv`: the part every formal-verification family shares.

A family says how to read an answer and what to verify (four hooks); this class runs the
rest the same way for each: a refused answer runs nothing, the reward (with optional partial
credit), agent mode with a ``verify`` tool that checks the workspace's file as the grader
does, and `codegym validate`'s check that no task verifies as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from codegym.agent import AgentEpisode, AgentSetup, FamilyTool
from codegym.core import CodeEnv
from codegym.error import SandboxError
from codegym.executor import Job, Limits, RunResult, Step
from codegym.grade import Grade, Status
from codegym.task import Task
from codegym.verifier import GateReport

A = TypeVar("A")  # a family's assembly: the file it verifies for an answer


class VerifierEnv(CodeEnv, Generic[A]):
    """Base class of the verifier families (see `codegym.envs.dafny`, `codegym.envs.whyml`).

    A family implements four hooks:

    - ``gate``: the gate's report on an answer;
    - ``assemble``: the file to verify for an answer the gate passed (None: it cannot be
      assembled, and is graded as the gate's report says);
    - ``verification_job``: the sandbox job that verifies an assembly;
    - ``judge``: the grade, from the gate's report, the assembly and the job's result (both
      None for a refused answer).

    ``metadata["given"]`` of each task is what the agent is shown (and the workspace's
    file in agent mode).
    """

    submission: ClassVar[str] = "program"  # the graded file of an agent episode
    tool_name: ClassVar[str] = "the verifier"  # what the verify tool runs, for its description
    shell_command: ClassVar[str] = ""  # how the shell runs the verifier on the file, for the instructions
    partial_credit: bool = False

    # --- a family's hooks ------------------------------------------------------------------------

    def gate(self, code: str) -> GateReport:
        raise NotImplementedError

    def assemble(self, task: Task, code: str) -> A | None:
        raise NotImplementedError

    def verification_job(self, task: Task, assembly: A, limits: Limits) -> Job:
        raise NotImplementedError

    def judge(self, gate: GateReport, assembly: A | None, result: RunResult | None) -> Grade:
        raise NotImplementedError

    # --- CodeEnv's hooks -------------------------------------------------------------------------

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        assembly = self.assembly(task, code)
        if assembly is None:
            return Job(steps=(Step(argv=("true",)),))  # nothing of a refused answer runs
        return self.verification_job(task, assembly, limits or self.limits)

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        assembly = self.assembly(task, code)
        return self.judge(self.gate(code), assembly, result if assembly is not None else None)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        if self.partial_credit and grade.status is Status.WA:
            return {"verified": 0.5 * float(grade.metrics.get("verified_fraction", 0.0))}
        return {"verified": 1.0 if grade.status is Status.OK else 0.0}

    def check_solutions(self, task: Task) -> str | None:
        """A task that verifies as given has nothing to ask for."""
        grade, _ = self.evaluate(task, str(task.metadata["given"]))
        if grade.status is Status.OK:
            return "it verifies as given: there is nothing for the agent to add"
        return None

    def agent_setup(self, task: Task) -> AgentSetup:
        shell = f"; `{self.shell_command}` runs in the shell too" if self.shell_command else ""
        instructions = (
            f"Edit {self.submission} until it verifies. The `verify` tool checks it as the grader does (the gate, "
            f"then {self.tool_name} on the task's own specification) and prints each error on your file's lines"
            f"{shell}. Call `submit` when it verifies: {self.submission} is graded as it is then."
        )
        files = {"TASK.md": task.prompt.encode(), self.submission: str(task.metadata["given"]).encode()}
        return AgentSetup(files=files, submission=self.submission, instructions=instructions)

    def agent_tools(self) -> tuple[FamilyTool, ...]:
        description = (
            f"Verify {self.submission} of the workspace as the grader does: the gate, then {self.tool_name} on the "
            "task's own specification. Prints the verdict and the errors on the file's own lines. Does not end "
            "the episode."
        )
        return (FamilyTool("verify", description, self._verify_tool),)

    # --- the parts -------------------------------------------------------------------------------

    def assembly(self, task: Task, code: str) -> A | None:
        """The file verified for ``code``, or None when the gate refuses it."""
        return self.assemble(task, code) if self.gate(code).passed else None

    def _verify_tool(self, episode: AgentEpisode, arguments: Mapping[str, Any]) -> tuple[str, int]:
        """The ``verify`` tool: the grade ``submit`` would give now, without its reward."""
        assert self.task is not None
        grade, problem = self.evaluate_task(self.task, episode.read_submission())
        if "infra_error" in problem:
            raise SandboxError(problem["infra_error"])
        return grade.feedback(), 0 if grade.status is Status.OK else 1
