"""`WhyMLEnv`: implement a WhyML module against a fixed specification, with its proof."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from codegym.envs.whyml import gate as gates
from codegym.envs.whyml import grader
from codegym.envs.whyml.program import PROGRAM, Assembly, assemble
from codegym.envs.whyml.tasks import BUNDLED, load_tasks

from codegym.agent import AgentLimits
from codegym.core import InfraPolicy, Mode, TaskPolicy
from codegym.executor import Executor, Job, Limits, RunResult
from codegym.grade import Grade
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet
from codegym.verifier import GateReport
from codegym.verifier.env import VerifierEnv
from codegym.verifier.why3 import LIMITS, Why3


class WhyMLEnv(VerifierEnv[Assembly]):
    """Write a WhyML module ``Impl`` (bodies, loop invariants, variants) that meets a fixed
    specification, proved by Why3 with Z3.

    ## Action space
    `UnicodeText`: the whole ``module Impl ... end``, raw or in a fenced ```whyml block.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (the fixed ``Defs`` and ``Spec``, the
    ``Impl`` with its invariants and variants removed, the verifier and its dialect),
    feedback (each unproved goal on the answer's own line, the gate's refusals), status, one
    test per verification goal, pass rate and attempt count.

    ## Rewards
    1.0 iff every goal of ``Impl`` and of the refinement check is proved (and the canary is
    not), else 0.0; ``partial_credit=True``: ``0.5 x`` the proved fraction for ``WA``.

    ## Episode end
    ``mode="single"``, ``"refine"`` (terminated when it verifies) or ``"agent"``: a
    workspace with ``TASK.md`` and ``program.mlw`` (the module as given), a ``verify`` tool
    that checks it as the grader does, and ``why3`` in the shell; ``submit`` grades it.

    ## Registered configurations
    ``codegym/WhyML-v0`` with ``tasks="codegym-whyml"`` (the bundled modules); a folder of
    ``.mlw`` task files (``Defs``, ``Spec``, ``Impl``) or rows (``id``, ``program``).

    ## How it is judged
    1. The gate (`gate.check`) refuses ``axiom``, ``assume``, ``val``, ``any``,
       ``diverges``, ``partial``, ``clone``, ``meta``, other modules and ``use`` of anything
       but the standard library and ``Defs``: ``HACK`` with the construct and its line.
    2. The file verified is the task's ``Defs`` and ``Spec``, the answer, then the env's
       ``Check`` (``clone Spec with val f = Impl.f``: the answer's contracts must refine the
       specification's) and ``Canary`` (``goal canary: false``).
    3. One sandboxed job runs ``why3 prove -a split_vc`` on ``Impl`` and ``Check``, then the
       canary under a step limit (`codegym.verifier.why3`): the canary proved is
       ``HACK``; a goal past its time, or a run past the limits, is ``TLE``, never proved.
    """

    family: ClassVar[str] = "WhyML"
    requires: ClassVar[Requirements] = Requirements(tools=(Tool("why3", "why3"), Tool("z3", "z3")))
    submission: ClassVar[str] = "program.mlw"
    tool_name: ClassVar[str] = "Why3 1.5 with Z3"
    shell_command: ClassVar[str] = "why3 config detect; why3 prove -P z3 -a split_vc program.mlw"

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Mapping[str, Any]] = BUNDLED,
        *,
        partial_credit: bool = False,
        time_limit_s: int = 5,
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
            load_tasks(tasks),
            limits=limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.partial_credit = partial_credit
        self.verifier = Why3(time_limit_s=time_limit_s)
        self.validate_on_load(validate)

    def gate(self, code: str) -> GateReport:
        return gates.check(code)

    def assemble(self, task: Task, code: str) -> Assembly | None:
        defs = task.metadata["defs"]
        return assemble(str(defs) if defs else None, str(task.metadata["spec"]), code)

    def verification_job(self, task: Task, assembly: Assembly, limits: Limits) -> Job:
        return self.verifier.job({PROGRAM: assembly.text}, limits, theories=("Impl", "Check"))

    def judge(self, gate: GateReport, assembly: Assembly | None, result: RunResult | None) -> Grade:
        return grader.grade(gate, assembly, None if result is None else self.verifier.read(result))
