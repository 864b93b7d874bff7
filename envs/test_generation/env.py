"""`TestGenerationEnv`: write tests for a function, scored by the mutants they kill."""

from __future__ import annotations

import ast
import inspect
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, ClassVar

from codegym.envs.python_function.harness import CANDIDATE
from codegym.envs.python_function.harness import __name__ as PYTHON_HARNESS
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation import check, grader
from codegym.envs.test_generation.harness import PRELOAD, job_for
from codegym.envs.test_generation.matrix import PassFailMatrix, pass_fail_matrix
from codegym.envs.test_generation.mutants import Mutant, Pool, PoolConfig, pools
from codegym.envs.test_generation.tasks import FAMILY, test_generation_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask
from codegym.executor import Executor, Job, Limits, RunResult
from codegym.grade import Grade
from codegym.requirements import HUMANEVAL_TASKS, Requirements
from codegym.task import Quarantine, Task, TaskSet

DEFAULT_LIMITS = Limits(cpu_s=10.0, wall_s=15.0, memory_bytes=512 << 20, processes=16)
WEIGHTS = ("valid", "kill_rate", "coverage")
POOL_BATCH = 16  # tasks whose pools are made together when one is missing


class TestGenerationEnv(CodeEnv):
    """Write unit tests for a Python function; the tests are run against mutants.

    ## Action space
    `UnicodeText`: a Python test file (raw, or a fenced ```python block of a chat answer):
    top-level ``assert`` statements and ``test_*`` functions (``Test*`` classes' ``test_*``
    methods too) calling the function under test by its name or as ``candidate``;
    ``pytest.raises``, ``pytest.approx`` and ``@pytest.mark.parametrize`` work.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (the function's signature and docstring,
    or with ``show_reference=True`` its reference implementation), feedback (each test that
    failed on the reference, with its line and error; then the mutants that survived: their
    diffs, or only how many of which kinds with ``show_survivors=False``), status and the
    per-test results on the reference.

    ## Rewards
    The weighted sum of the grade's ``valid``, ``kill_rate`` and ``coverage`` metrics
    (``reward_weights``; by default ``kill_rate`` alone), and 0 unless the tests are valid:
    every test passes on the reference. ``kill_rate`` is the fraction of the task's mutants
    that some test rejects; ``coverage`` (with ``coverage=True``) the fraction of the
    reference's lines the tests execute. ``assert True`` is valid and kills nothing.

    ## Episode end
    ``mode="single"``: terminated after the one submission. ``mode="refine"``: terminated
    when every mutant is killed. ``mode="agent"``: a workspace holding ``TASK.md`` and
    ``test_solution.py`` (the file graded at ``submit``); with ``show_reference=True`` also
    ``solution.py`` and ``./run_tests``, which runs the tests against it.

    ## How it is judged
    Each task has a pool of mutants of its reference (`codegym.envs.test_generation.mutants`),
    each rejected by the task's own tests. The tests run once against the reference, then,
    when valid, once against each mutant: each run is its own sandbox job in which the tests
    call the function through a proxy to a separate process that holds the program, so a
    test that inspects the function (source, code object, module, file, ``id``) sees the
    same proxy whichever program answers, and gains nothing. The tests' file is out of the
    program's reach, and the program's out of the tests'.

    ## Registered configurations
    ``codegym/TestGeneration-v1`` with ``tasks="codegym-py"`` (default), ``"humaneval"``,
    or any PythonFunction task source (an MBPP / HumanEval-format file, rows in memory).
    ``mutants`` (16) caps each pool; ``show_reference``; ``coverage``; ``reward_weights``.
    """

    __test__ = False  # (not a pytest class)
    family: ClassVar[str] = FAMILY
    requires: ClassVar[Requirements] = Requirements(modules=(HUMANEVAL_TASKS,))
    preload: ClassVar[tuple[str, ...]] = (*PRELOAD, CANDIDATE, PYTHON_HARNESS)

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Task] | Any = "codegym-py",
        *,
        show_reference: bool = False,
        mutants: int = 16,
        mutant_seed: int = 0,
        coverage: bool = False,
        reward_weights: Mapping[str, float] | None = None,
        show_survivors: bool = True,
        test_timeout_s: float = 2.0,
        mode: Mode = "single",
        limits: Limits = DEFAULT_LIMITS,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        weights = dict(reward_weights if reward_weights is not None else {"kill_rate": 1.0})
        unknown = set(weights) - set(WEIGHTS)
        if unknown:
            raise ValueError(f"reward_weights takes {list(WEIGHTS)}, got {sorted(unknown)}")
        if weights.get("coverage") and not coverage:
            raise ValueError("a coverage weight needs coverage=True (coverage is measured in a run of its own)")
        if test_timeout_s <= 0:
            raise ValueError(f"test_timeout_s must be positive, got {test_timeout_s}")
        functions = _functions(tasks)
        super().__init__(
            test_generation_tasks(functions, show_reference=show_reference),
            limits=limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent,
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.functions = {t.id: t for t in functions if t.id in self.tasks}
        self.show_reference = show_reference
        self.pool_config = PoolConfig(size=mutants, candidates=max(48, 3 * mutants), seed=mutant_seed)
        self.coverage = coverage
        self.reward_weights = weights
        self.show_survivors = show_survivors
        self.test_timeout_s = test_timeout_s
        self._pools: dict[str, Pool] = {}
        self._pool_lock = threading.Lock()
        self.validate_on_load(validate)

    # --- the mutants ------------------------------------------------------------------------

    def pool(self, task_id: str | int) -> tuple[Mutant, ...]:
        """The mutants of a task (made, or read from the cache, on first use)."""
        return self._pool(self.tasks.get(task_id)).mutants

    def _pool(self, task: Task) -> Pool:
        with self._pool_lock:
            if task.id not in self._pools:
                missing = [t for t in self.tasks if t.id not in self._pools and t.id != task.id]
                batch = [self.functions[task.id], *(self.functions[t.id] for t in missing[: POOL_BATCH - 1])]
                self._pools.update(pools(batch, self.pool_config, executor=self._executor_choice))
            return self._pools[task.id]

    def prepare(self) -> dict[str, int]:
        """Make every task's pool now (one batch on the warm workers); their sizes."""
        with self._pool_lock:
            missing = [self.functions[t.id] for t in self.tasks if t.id not in self._pools]
            if missing:
                self._pools.update(pools(missing, self.pool_config, executor=self._executor_choice))
        return {t.id: len(self._pools[t.id].mutants) for t in self.tasks}

    def check_task(self, task: Task) -> None:
        """Raise `InvalidTask` when the task's reference fails its own tests (no submission
        could be valid), or no mutant of it is rejected by them (nothing could be killed)."""
        pool = self._pool(task)
        if pool.invalid:
            raise InvalidTask(pool.invalid)
        if not pool.mutants:
            raise InvalidTask("no mutant of its reference is rejected by its own tests: there is nothing to kill")

    # --- judging ----------------------------------------------------------------------------

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        """The one job that runs the tests ``code`` against the task's reference and, when
        they pass there, against each of its mutants (and the coverage run, when asked for)."""
        programs = [str(task.metadata["program"]), *(m.program for m in self.pool(task.id))]
        return job_for(code, programs, str(task.metadata["entry_point"]), limits=limits or self.limits,
                       per_test_s=self.test_timeout_s, coverage=self.coverage)  # fmt: skip

    def launch(self, task: Task, code: str) -> Future[Any]:
        """Run the job of `build_job`: a future of the `grader.Runs` that `grade` takes (at
        once, running nothing, for tests that do not parse)."""
        self.check_task_once(task)
        runs: Future[grader.Runs] = Future()
        try:
            ast.parse(code)
        except SyntaxError as e:
            runs.set_result(grader.Runs(result=None, syntax_error=e))
            return runs
        mutants = self.pool(task.id)
        job = self.executor_for(task).submit(self.build_job_checked(task, code))

        def then(done: Future[RunResult]) -> None:
            try:
                runs.set_result(grader.Runs(done.result(), mutants))
            except BaseException as e:
                runs.set_exception(e)

        job.add_done_callback(then)
        return runs

    def grade(self, task: Task, code: str, result: grader.Runs) -> Grade:  # type: ignore[override]
        executable = grader.executable_lines(str(task.metadata["program"])) if self.coverage else None
        return grader.grade(result, executable=executable, show_survivors=self.show_survivors)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """Each weighted metric (``valid``, ``kill_rate``, ``coverage``); all 0 unless valid."""
        valid = grade.metrics.get("valid", 0.0) == 1.0
        return {name: weight * grade.metrics.get(name, 0.0) if valid else 0.0
                for name, weight in self.reward_weights.items()}  # fmt: skip

    def solved(self, grade: Grade) -> bool:
        """Solved when the tests are valid and kill every mutant (valid tests are ``OK``
        already); refine episodes end then."""
        return _all_killed(grade)

    def matrix(
        self, task_id: str | int, suites: Sequence[str], programs: Sequence[str] | None = None
    ) -> PassFailMatrix:
        """Every suite against every program on this env's workers (see `pass_fail_matrix`):
        by default the task's reference (column 0), then its mutants in pool order."""
        task = self.tasks.get(task_id)
        if programs is None:
            programs = [str(task.metadata["program"]), *(m.program for m in self.pool(task.id))]
        return pass_fail_matrix(suites, programs, str(task.metadata["entry_point"]), executor=self.executor_for(task),
                                limits=self.limits, test_timeout_s=self.test_timeout_s)  # fmt: skip

    # --- agent mode -------------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        entry = str(task.metadata["entry_point"])
        files = {"TASK.md": task.prompt.encode(), "test_solution.py": f"# Tests of {entry}.\n".encode()}
        instructions = f"Write tests of `{entry}` in test_solution.py; submit grades them."
        executables: tuple[str, ...] = ()
        if self.show_reference:
            files["solution.py"] = str(task.metadata["program"]).encode()
            files["codegym_check.py"] = inspect.getsource(check).encode()
            files["run_tests"] = f'#!/bin/sh\nexec python3 codegym_check.py {entry} "$@"\n'.encode()
            executables = ("run_tests",)
            instructions += " ./run_tests runs them against the reference, solution.py."
        return AgentSetup(files=files, submission="test_solution.py", executables=executables,
                          instructions=instructions)  # fmt: skip


def _functions(tasks: Any) -> TaskSet:
    if isinstance(tasks, TaskSet) and any(t.family == FAMILY for t in tasks):
        raise TypeError("pass PythonFunction tasks (the functions to test), not test-generation tasks")
    return load_tasks(tasks, public=0)


def _all_killed(grade: Grade) -> bool:
    metrics = grade.metrics
    return metrics.get("valid") == 1.0 and metrics.get("mutants_killed", 0.0) >= metrics.get("mutants", 0.0)
