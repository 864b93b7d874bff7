"""`PyContractsEnv`: write a Python function that meets a hidden contract, checked by hidden
tests and by CrossHair's search for counterexamples."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from codegym.envs.pycontracts import gate as gates
from codegym.envs.pycontracts import grader, report, sandbox
from codegym.envs.pycontracts.assembly import CONDITION_MODULES, Assembly, Budget, assemble, runner_spec
from codegym.envs.pycontracts.probes import probes
from codegym.envs.pycontracts.replay import replayer_for
from codegym.envs.pycontracts.tasks import BUNDLED, load_tasks
from codegym.envs.python_function.harness import STEPS, harness_for, recorder_for

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup, FamilyTool
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.grade import Grade, Status
from codegym.requirements import Module, Requirements
from codegym.task import Quarantine, Task, TaskSet

DEFAULT_LIMITS = Limits(cpu_s=5.0, wall_s=8.0, memory_bytes=512 << 20, processes=16)
# Each path may take per_path_timeout; a search's CPU cap leaves room for every one of its paths
# to take it, so that a search is cut (TLE) only where the answer's code hangs between paths.
BUDGET = Budget(max_iterations=12, per_condition_timeout=8.0, per_path_timeout=0.5)
DIFF_BUDGET = Budget(max_iterations=16, per_condition_timeout=10.0, per_path_timeout=0.5)
# CrossHair's step: the total budget of all its searches (a run past it is TLE, never a pass).
CROSSHAIR_LIMITS = Limits(cpu_s=30.0, wall_s=60.0, memory_bytes=1 << 30, processes=16)
MAX_CASES = 8  # inputs replayed at most (distinct ones, in the order CrossHair found them)


class PyContractsEnv(CodeEnv):
    """Write a Python function from its description, signature and examples; hidden tests and
    CrossHair judge it against a hidden contract (PEP 316 pre- and postconditions) and a
    reference solution.

    ## Action space
    `UnicodeText`: Python source defining the function (and any helpers), raw or in a fenced
    ```python block.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (description, signature, examples; never
    the contract), feedback (failing examples; each counterexample CrossHair found and the
    replay confirmed: the input, the reference's output and the function's, and which
    postcondition (by number, never its text) that breaks, or an exception; the gate's
    refusals), status, one test per hidden test and per contract unit (counted apart, as
    "Contract checks"), pass rate and attempt count.

    ## Rewards
    1.0 iff every test passes and no counterexample to a postcondition, no exception and no
    difference from the reference was found and confirmed, within CrossHair's budget; else
    0.0. ``partial_credit=True``: ``0.5 x`` the fraction of tests and contract units passed,
    for ``WA``. CrossHair searches, it does not prove: 1.0 means that none was found.

    ## Episode end
    ``mode="single"``, ``"refine"`` (terminated when ``OK``) or ``"agent"``: a workspace with
    ``TASK.md``, ``solution.py`` (the signature) and ``examples.py`` (the examples, run with
    ``python3 examples.py``), a ``verify`` tool that grades ``solution.py`` as ``submit``
    would (the counterexamples included), and ``submit``.

    ## Registered configurations
    ``codegym/PyContracts-v1`` with ``tasks="codegym-contracts"`` (the bundled tasks); a folder
    of task files or rows (see `codegym.envs.pycontracts.tasks`). ``budget`` and
    ``diff_budget`` set CrossHair's search per postcondition and for the diff (None: no diff),
    ``crosshair_limits`` the sandbox's limits on all of CrossHair's searches together.

    ## How it is judged
    1. The gate (`gate.check`) refuses, before anything runs, what would let the answer reach
       CrossHair, which shares its process: ``# crosshair:`` comments, imports beyond a few
       pure standard modules, reflection, dunder names, classes, a docstring contract of its
       own: ``HACK`` with the construct and its line.
    2. One sandboxed job runs the hidden tests (the answer in one process, the tests in the
       harness, as `PythonFunctionEnv` does), then CrossHair on a module the harness writes
       (`assembly`): a wrapper carrying the hidden contract around the answer, the answer and
       the reference side by side for the diff, and a canary; the contract and the
       reference reach CrossHair on its standard input, never as files.
    3. Every input CrossHair reports is replayed concretely in a fresh sandbox (the answer,
       and the reference for the diff) and judged by the harness's own evaluation of the
       contract; only a confirmed counterexample is ``WA``. A canary not refuted or a report
       without the episode's nonce is ``HACK``; a search cut by its CPU time, or a run past
       the sandbox's limits, is ``TLE``, never a pass (`grader`).
    """

    family: ClassVar[str] = "PyContracts"
    requires: ClassVar[Requirements] = Requirements(modules=(Module("crosshair", "contracts"),))
    preload: ClassVar[tuple[str, ...]] = sandbox.PRELOAD
    submission: ClassVar[str] = "solution.py"

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Mapping[str, Any]] = BUNDLED,
        *,
        budget: Budget = BUDGET,
        diff_budget: Budget | None = DIFF_BUDGET,
        partial_credit: bool = False,
        mode: Mode = "single",
        limits: Limits = DEFAULT_LIMITS,
        crosshair_limits: Limits = CROSSHAIR_LIMITS,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        if executor not in (None, "local") and not isinstance(executor, Executor):
            raise ValueError(f"executor must be None, 'local' or an Executor (a ContractsExecutor), got {executor!r}")
        super().__init__(load_tasks(tasks), limits=limits, mode=mode, executor=executor,
                         on_infra_error=on_infra_error, render_mode=render_mode, agent=agent,
                         on_task_error=on_task_error, quarantine=quarantine)  # fmt: skip
        self.budget, self.diff_budget = budget, diff_budget
        self.partial_credit = partial_credit
        self.crosshair_limits = crosshair_limits
        self.validate_on_load(validate)

    def find_executor(self) -> Executor:
        choice = self._executor_choice
        return choice if isinstance(choice, Executor) else sandbox.shared_executor()

    # --- one answer --------------------------------------------------------------------

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        """The job of the hidden tests and CrossHair, for a fresh assembly of ``task``."""
        return self.check_job(task, code, self._assemble(task), limits or self.limits)

    def launch(self, task: Task, code: str) -> Future[Any]:
        """The gate, then the check job, then (when CrossHair reported inputs) the replay of
        each on the answer and on the reference: a future of the `grader.Runs`."""
        self.check_task_once(task)
        runs: Future[grader.Runs] = Future()
        refused = gates.check(code, str(task.metadata["entry_point"]))
        if not refused.passed:
            runs.set_result(grader.Runs(refused))
            return runs
        assembly = self._assemble(task)
        executor = self.executor_for(task)
        checked = executor.submit(self.check_job(task, code, assembly, self.limits))

        def then(done: Future[RunResult]) -> None:
            try:
                first = grader.Runs(refused, assembly, done.result(), diff=self.diff_budget is not None)
                self._replay(task, code, first, executor, runs)
            except BaseException as e:
                runs.set_exception(e)

        checked.add_done_callback(then)
        return runs

    def grade(self, task: Task, code: str, result: grader.Runs) -> Grade:  # type: ignore[override]
        return grader.grade(task, result)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        if self.partial_credit and grade.status is Status.WA:
            return {"correct": 0.5 * float(grade.metrics.get("verified_fraction", 0.0))}
        return {"correct": 1.0 if grade.status is Status.OK else 0.0}

    def _assemble(self, task: Task) -> Assembly:
        return assemble(task, nonce=secrets.randbelow(10**9) + 10**9, tag=secrets.token_hex(16))

    def check_job(self, task: Task, code: str, assembly: Assembly, limits: Limits) -> Job:
        """The hidden tests (step 0: the answer serves the harness's calls), then CrossHair on
        ``assembly`` (step 1, given the spec on its standard input); ``solution.py`` is
        protected, so the second step reads the answer the first one ran."""
        tests = [{"name": t.name, "code": t.code, "setup": t.setup} for t in task.tests]
        spec = runner_spec(task, assembly, self.budget, self.diff_budget)
        crosshair = Step(argv=("python", "-m", sandbox.RUNNER), stdin=spec, limits=self.crosshair_limits)
        return Job(steps=(*STEPS, crosshair), files={self.submission: code.encode()}, limits=limits,
                   harness=harness_for(assembly.entry_point, "", tests, limits.wall_s), preload=self.preload,
                   protected=(self.submission,))  # fmt: skip

    def _replay(self, task: Task, code: str, runs: grader.Runs, executor: Executor, done: Future[grader.Runs]) -> None:
        """Read CrossHair's report; replay its inputs (at most `MAX_CASES`) and the task's
        boundary probes (`probes`), run the reference on them, then finish ``done``."""
        check = runs.check
        if check is None or len(check.steps) < 2 or check.steps[1].skipped or runs.assembly is None:
            done.set_result(runs)
            return
        params = [name for name, _ in task.metadata["params"]]
        found = report.read(check.steps[1], runs.assembly.tag, runs.assembly, params)
        inputs = {f.key: f.args for f in found.findings if f.key is not None and f.args is not None}
        searched = list(inputs.values())[:MAX_CASES]
        boundary = [p for p in probes(task.id, [a for _, a in task.metadata["params"]]) if p not in searched]
        cases = tuple(tuple(c) for c in (*searched, *boundary))
        runs = replace(runs, report=found, cases=cases, probed=len(boundary))
        if not cases or found.ended != "complete" or not found.canary:
            done.set_result(runs)
            return
        jobs = {"replay": executor.submit(self.replay_job(task, code, cases)),
                "reference": executor.submit(self.reference_job(task, cases))}  # fmt: skip
        _when_all(jobs, lambda results: done.set_result(replace(runs, **results)), done)

    def replay_job(self, task: Task, code: str, cases: Sequence[Sequence[Any]]) -> Job:
        """``code`` run on each of ``cases`` (argument lists) in a fresh sandbox, the contract
        judged by the harness (`codegym.envs.pycontracts.replay`)."""
        metadata = task.metadata
        harness = replayer_for(str(metadata["entry_point"]), [name for name, _ in metadata["params"]],
                               list(metadata["pre"]), list(metadata["post"]), [list(c) for c in cases],
                               CONDITION_MODULES, self.limits.wall_s)  # fmt: skip
        return Job(steps=STEPS, files={self.submission: code.encode()}, limits=self.limits, harness=harness,
                   preload=self.preload)  # fmt: skip

    def reference_job(self, task: Task, cases: Sequence[Sequence[Any]]) -> Job:
        """The reference run on each of ``cases`` in a sandbox of its own (its results, for the diff)."""
        harness = recorder_for(str(task.metadata["entry_point"]), [list(c) for c in cases], self.limits.wall_s)
        return Job(steps=STEPS, files={self.submission: (task.reference or "").encode()}, limits=self.limits,
                   harness=harness, preload=self.preload)  # fmt: skip

    # --- what `codegym validate` asks beyond the reference's own grade -------------------

    def check_solutions(self, task: Task) -> str | None:
        """The stub must not pass; every test written ``assert f(<literals>) == ...`` must
        meet the preconditions, and the reference's result on it every postcondition (the
        hidden tests and the contract agree)."""
        grade, _ = self.evaluate(task, str(task.metadata["given"]))
        if grade.status is Status.OK:
            return "its stub passes: there is nothing for the agent to write"
        inputs: Mapping[str, list[Any]] = task.metadata["inputs"]
        if not inputs:
            return None
        result = self.executor_for(task).run(self.replay_job(task, task.reference or "", list(inputs.values())))
        seen = grader.replayed(result)
        for (name, args), case in zip(inputs.items(), seen, strict=False):
            if not case.get("met"):
                return f"the input of {name} {args!r} breaks precondition {int(case.get('unmet', 0)) + 1}"
            if case.get("broken") or case.get("raised") or case.get("gone"):
                why = case.get("broken") or case.get("raised") or case.get("gone")
                return f"on the input of {name} the reference breaks its contract: {why}"
        if len(seen) != len(inputs):
            return f"the replay of its tests' inputs stopped after {len(seen)} of {len(inputs)}"
        return None

    # --- agent mode ----------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        examples = "\n".join(t.code for t in task.public_tests)
        script = f"from solution import *  # noqa: F403\n\n{examples}\nprint('the examples pass')\n"
        files = {"TASK.md": task.prompt.encode(), self.submission: str(task.metadata["given"]).encode(),
                 "examples.py": script.encode()}  # fmt: skip
        instructions = (
            f"Write the function in {self.submission}. `python3 examples.py` runs the examples; the `verify` tool "
            f"grades {self.submission} as `submit` will (the gate, the hidden tests, then CrossHair's search for "
            "counterexamples to the hidden contract) and shows each counterexample it confirms. Call `submit` when "
            "it passes."
        )
        return AgentSetup(files=files, submission=self.submission, instructions=instructions)

    def agent_tools(self) -> tuple[FamilyTool, ...]:
        description = (
            f"Grade {self.submission} of the workspace as submit would: the gate, the hidden tests, then CrossHair's "
            "search for counterexamples to the hidden contract. Prints the verdict and each confirmed "
            "counterexample. Does not end the episode."
        )
        return (FamilyTool("verify", description, self._verify_tool),)

    def _verify_tool(self, episode: AgentEpisode, arguments: Mapping[str, Any]) -> tuple[str, int]:
        assert self.task is not None
        grade, problem = self.evaluate_task(self.task, episode.read_submission())
        if "infra_error" in problem:
            raise SandboxError(problem["infra_error"])
        return grade.feedback(), 0 if grade.status is Status.OK else 1


def _when_all(jobs: Mapping[str, Future[RunResult]], then: Callable[[dict[str, RunResult]], None],
              done: Future[Any]) -> None:  # fmt: skip
    """Call ``then`` with every job's result once all are in (``done`` takes an error), from
    the thread that finished the last: no worker thread ever waits on another's job."""
    left = [len(jobs)]
    lock = threading.Lock()

    def one(_: Future[RunResult]) -> None:
        with lock:
            left[0] -= 1
            if left[0]:
                return
        try:
            then({name: job.result() for name, job in jobs.items()})
        except BaseException as e:
            done.set_exception(e)

    for job in jobs.values():
        job.add_done_callback(one)
