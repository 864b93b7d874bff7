"""`PythonFunctionEnv`: write a Python function, judged by unit tests across a process boundary."""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from codegym.envs.python_function import grader, suite_checks
from codegym.envs.python_function.bigcodebench import public_suite
from codegym.envs.python_function.harness import CANDIDATE, STEPS, SUITE_STEP, harness_for, recorder_for, suite_for
from codegym.envs.python_function.tasks import load_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import InvalidTask, SandboxError
from codegym.executor import Executor, Harness, Job, Limits, RunResult, Step
from codegym.grade import Grade, Status
from codegym.requirements import HUMANEVAL_TASKS, Requirements
from codegym.task import Quarantine, Task, TaskSet

if TYPE_CHECKING:
    from codegym.harness.mode import HarnessSpec

HARNESS = "codegym.envs.python_function.harness"
SUITE = "codegym.envs.python_function.suite"
DEFAULT_LIMITS = Limits(cpu_s=5.0, wall_s=8.0, memory_bytes=512 << 20, processes=16)
# Which of a task's libraries the sandbox's Python can import (asked once per env, for all).
PROBE = """\
import importlib.util

def installed(names):
    found = []
    for name in names:
        try:
            found.append(importlib.util.find_spec(name) is not None)
        except (ImportError, ValueError):
            found.append(False)
    return found
"""


class PythonFunctionEnv(CodeEnv):
    """Write a Python function from its signature and docstring.

    ## Action space
    `UnicodeText`: Python source (the whole function, or the body that completes the
    prompt), raw or inside a fenced ```python block of a chat answer.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt, rendered feedback (for public tests:
    call, expected and got; for hidden tests: pass/fail counts only), diagnostics
    (SyntaxError with line and column, runtime errors with the submission's own frames),
    status, per-test pass/fail, pass rate and attempt count. Timings and peak memory are in
    ``info["grade"].resources``.

    ## Rewards
    1.0 when every test, hidden ones included, passes; else 0.0. ``info["grade"]`` holds
    the whole `Grade` (``.metrics["pass_rate"]`` etc.) for reward-shaping wrappers.

    ## Episode end
    ``mode="single"``: terminated after the one submission. ``mode="refine"``: terminated
    when solved; truncated only by ``max_episode_steps``. ``mode="agent"`` (see
    `codegym.agent`): tool calls in a workspace holding ``TASK.md``, ``solution.py`` (the
    prompt's stub), the public tests in ``tests/test_public.py`` and ``./run_tests``;
    terminated at ``submit``, which grades ``solution.py`` as a single-shot step would.

    ## Limits
    ``limits`` (default: 5 s CPU, 8 s wall, 512 MiB, 16 processes) bound every run;
    ``time_limits=ReferenceTimeLimits()`` tightens the time limits per task from the
    reference solution's measured time.

    ## Registered configurations
    ``codegym/PythonFunction-v0`` with ``tasks="codegym-py"`` (default), ``"humaneval"``, a
    JSONL / JSON / Parquet file, or rows in memory (a list of dicts, a ``datasets.Dataset``):
    HumanEval, HumanEval+, MultiPL-E, HumanEval-X, MBPP (and MBPP+), EvalPlus releases,
    LiveCodeBench functional, APPS/TACO call-based and BigCodeBench rows, each detected from
    its fields (see `codegym.envs.python_function.tasks`). ``mbpp_challenge=True`` adds MBPP's
    challenge tests (hidden); ``bigcodebench_split`` picks BigCodeBench's ``"complete"``
    (default) or ``"instruct"`` prompt; ``evalplus_inputs="base"`` keeps EvalPlus's base
    inputs only.

    ## How it is judged
    The submission runs in the local sandbox and serves calls over a pipe; the tests run in
    a separate grader process that holds the expected values, so nothing the submission does
    in its own process (patching, frame inspection, exit tricks, fake output) can pass a test.
    EvalPlus's expected outputs are its reference's: they are computed once per task and env,
    by running the reference in the sandbox on first use. BigCodeBench's unittest suites run
    in the submission's process, harness-owned (see `codegym.envs.python_function.suite`):
    weaker, and said so there; a task whose libraries the sandbox cannot import is ``IE``.
    """

    family: ClassVar[str] = "PythonFunction"
    requires: ClassVar[Requirements] = Requirements(modules=(HUMANEVAL_TASKS,))
    preload: ClassVar[tuple[str, ...]] = (CANDIDATE, HARNESS)

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Task] | Any = "codegym-py",
        *,
        mode: Mode = "single",
        limits: Limits = DEFAULT_LIMITS,
        time_limits: ReferenceTimeLimits | None = None,
        public_tests: int = 1,
        mbpp_challenge: bool = False,
        bigcodebench_split: Literal["complete", "instruct"] = "complete",
        evalplus_inputs: Literal["base", "plus"] = "plus",
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
        loaded = load_tasks(tasks, public=public_tests, mbpp_challenge=mbpp_challenge,
                            bigcodebench_split=bigcodebench_split, evalplus_inputs=evalplus_inputs)  # fmt: skip
        super().__init__(
            loaded,
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
        self._last_harness: tuple[Task, Limits, Harness] | None = None
        self._outputs: dict[str, dict[str, Any]] = {}  # task id -> its reference's output per test
        self._importable: dict[str, bool] = {}  # library -> whether the sandbox imports it
        self._reference_lock = threading.Lock()
        self.validate_on_load(validate)

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        limits = limits or self.limits_for(task)
        suite = "suite" in task.metadata
        if suite and suite_checks.findings(code):  # `grade` refuses it: run nothing of it
            return Job(steps=(Step(argv=("true",)),), limits=limits)
        program, _ = assemble(task, code)
        return Job(
            steps=(SUITE_STEP,) if suite else STEPS,
            files={"solution.py": program.encode()},
            limits=limits,
            harness=self._harness(task, limits),
            preload=(*self.preload, SUITE) if suite else self.preload,
        )

    def check_task(self, task: Task) -> None:
        """Raise `InvalidTask` when the sandbox cannot import a library the task needs, or its
        reference cannot give the expected outputs (EvalPlus: computed here, once)."""
        if task.metadata.get("needs"):
            self._check_libraries(task)
        if task.metadata.get("expected_from_reference"):
            self._reference_outputs(task)

    def _harness(self, task: Task, limits: Limits) -> Harness:
        """The task's tests for the harness. Kept for the last task object: an RL loop
        grades many candidates of one task in a row."""
        last = self._last_harness
        if last is not None and last[0] is task and last[1] == limits:
            return last[2]
        if "suite" in task.metadata:
            names = {t.name for t in task.tests}
            classes = [(cls, [p for p in pairs if p[0] in names]) for cls, pairs in task.metadata["suite"]["classes"]]
            harness = suite_for(task.metadata["suite"]["source"], classes, limits.wall_s)
        else:
            callable_ = task.metadata.get("callable", task.metadata["entry_point"])
            harness = harness_for(
                callable_, task.metadata.get("test_prelude", ""), self._test_specs(task), limits.wall_s
            )
        self._last_harness = (task, limits, harness)
        return harness

    def _test_specs(self, task: Task) -> list[dict[str, Any]]:
        """Each test as the harness runs it: code, or a call with its expected value."""
        calls = task.metadata.get("calls") or {}
        outputs = self._reference_outputs(task) if task.metadata.get("expected_from_reference") else {}
        compare, atol = task.metadata.get("compare", "exact"), float(task.metadata.get("atol", 0.0))
        specs = []
        for test in task.tests:
            call = calls.get(test.name)
            if call is None:
                specs.append({"name": test.name, "code": test.code, "setup": test.setup})
                continue
            expected = outputs[test.name] if test.name in outputs else call.get("expected")
            specs.append({"name": test.name, "code": test.code, "args": list(call["args"]), "expected": expected,
                          "compare": compare, "atol": atol})  # fmt: skip
        return specs

    # --- what a task needs before its submissions are judged --------------------------------

    def _reference_outputs(self, task: Task) -> dict[str, Any]:
        """The task's reference's return value for each call test, computed in the sandbox
        on first use and kept (raises `InvalidTask` when the reference cannot give them)."""
        with self._reference_lock:
            if task.id not in self._outputs:
                self._outputs[task.id] = self._record_reference(task)
            return self._outputs[task.id]

    def _record_reference(self, task: Task) -> dict[str, Any]:
        if not task.reference:
            raise InvalidTask("it has no reference solution to compute its expected outputs with")
        calls = task.metadata["calls"]
        program, _ = assemble(task, task.reference)
        callable_ = task.metadata.get("callable", task.metadata["entry_point"])
        harness = recorder_for(callable_, [list(call["args"]) for call in calls.values()], self.limits.wall_s)
        job = Job(steps=STEPS, files={"solution.py": program.encode()}, limits=self.limits, harness=harness,
                  preload=self.preload)  # fmt: skip
        return grader.recorded(list(calls), self.executor_for(task).run(job))

    def _check_libraries(self, task: Task) -> None:
        needs: Sequence[str] = task.metadata["needs"]
        with self._reference_lock:
            if any(lib not in self._importable for lib in needs):  # ask for every task's at once
                wanted = {lib for t in self.tasks for lib in t.metadata.get("needs", ())} | set(needs)
                self._importable.update(self._probe(task, sorted(wanted - set(self._importable))))
        missing = [lib for lib in needs if not self._importable[lib]]
        if missing:
            raise InvalidTask(
                f"it needs libraries that the sandbox cannot import: {', '.join(missing)} (the local backend's "
                "sandbox shows the standard library only: grade it on an executor whose Python has them, such "
                "as a Docker image with them installed)"
            )

    def _probe(self, task: Task, libraries: list[str]) -> dict[str, bool]:
        harness = recorder_for("installed", [[libraries]], self.limits.wall_s)
        job = Job(steps=STEPS, files={"solution.py": PROBE.encode()}, limits=self.limits, harness=harness,
                  preload=self.preload)  # fmt: skip
        try:
            found = grader.recorded(["probe"], self.executor_for(task).run(job))["probe"]
        except InvalidTask as e:
            raise SandboxError(f"the sandbox could not say which libraries it has: {e}") from e
        return dict(zip(libraries, map(bool, found), strict=True))

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        refused = suite_checks.findings(code) if "suite" in task.metadata else []
        if refused:
            message = "refused before running: a solution run beside its tests may not " + "; ".join(refused[:5])
            return Grade(Status.HACK, message=message)
        _, offset = assemble(task, code)
        return grader.grade(task, result, line_offset=offset)

    def agent_setup(self, task: Task) -> AgentSetup:
        entry = task.metadata["entry_point"]
        statement = f"{task.prompt.rstrip()}\n\nImplement `{entry}` in solution.py.\n"
        return AgentSetup(
            files={
                "TASK.md": statement.encode(),
                "solution.py": str(task.metadata.get("stub", task.prompt)).encode(),
                "tests/test_public.py": public_test_script(task).encode(),
                "run_tests": b'#!/bin/sh\nexec python3 tests/test_public.py "$@"\n',
            },
            submission="solution.py",
            executables=("run_tests",),
            instructions=(
                f"Write `{entry}` in solution.py. ./run_tests runs the public tests (tests/test_public.py) "
                "against it; hidden tests decide the grade."
            ),
        )


PUBLIC_TESTS = """\
\"\"\"The public tests of the task: ./run_tests runs them against solution.py.\"\"\"
import os
import sys
import traceback

sys.path.insert(0, os.getcwd())
PRELUDE = {prelude!r}
TESTS = {tests!r}
namespace = {{}}
exec(PRELUDE, namespace)
from solution import {entry}  # noqa: E402

namespace["{entry}"] = namespace["candidate"] = {entry}
failed = 0
for name, setup, code in TESTS:
    try:
        exec(setup, namespace)
        exec(code, namespace)
        print(f"PASS {{name}}: {{code}}")
    except Exception:
        failed += 1
        print(f"FAIL {{name}}: {{code}}")
        traceback.print_exc(limit=-2, file=sys.stdout)
print(f"{{len(TESTS) - failed}} of {{len(TESTS)}} public tests passed")
sys.exit(1 if failed else 0)
"""


def public_test_script(task: Task) -> str:
    """A script that runs ``task``'s public tests against ``solution.py`` (its hidden tests
    never leave the harness)."""
    if "suite" in task.metadata:
        return public_suite(task)
    tests = [(t.name, t.setup, t.code) for t in task.public_tests]
    return PUBLIC_TESTS.format(prelude=task.metadata.get("test_prelude", ""), tests=tests,
                               entry=task.metadata["entry_point"])  # fmt: skip


def assemble(task: Task, code: str) -> tuple[str, int]:
    """The program the sandbox runs, and how many lines of task code precede ``code``.

    A submission that defines the entry point is placed after the task's prefix (its
    imports and helpers stay available); anything else is taken as the completion of the
    prompt, the HumanEval convention.
    """
    prefix: str = task.metadata.get("prefix", "")
    if not prefix:
        return code, 0
    head = prefix.rstrip("\n") + "\n\n" if _defines(code, task.metadata["entry_point"]) else prefix
    return head + code, head.count("\n")


def _defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)
