"""`PythonFunctionEnv`: write a Python function, judged by unit tests across a process boundary."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import ClassVar

from codegym.envs.python_function import grader
from codegym.envs.python_function.harness import CANDIDATE, STEPS, harness_for
from codegym.envs.python_function.tasks import load_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.executor import Executor, Harness, Job, Limits, RunResult
from codegym.grade import Grade
from codegym.task import Quarantine, Task, TaskSet

HARNESS = "codegym.envs.python_function.harness"
DEFAULT_LIMITS = Limits(cpu_s=5.0, wall_s=8.0, memory_bytes=512 << 20, processes=16)


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
    ``codegym/PythonFunction-v0`` with ``tasks="codegym-py"`` (default), ``"humaneval"``, or
    a path to an MBPP-format / codegym-format JSONL file.

    ## How it is judged
    The submission runs in the local sandbox and serves calls over a pipe; the tests run in
    a separate grader process that holds the expected values, so nothing the submission does
    in its own process (patching, frame inspection, exit tricks, fake output) can pass a test.
    """

    family: ClassVar[str] = "PythonFunction"
    preload: ClassVar[tuple[str, ...]] = (CANDIDATE, HARNESS)

    def __init__(
        self,
        tasks: str | Path | TaskSet = "codegym-py",
        *,
        mode: Mode = "single",
        limits: Limits = DEFAULT_LIMITS,
        time_limits: ReferenceTimeLimits | None = None,
        public_tests: int = 1,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        super().__init__(
            load_tasks(tasks, public=public_tests),
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
        self._last_harness: tuple[Task, Limits, Harness] | None = None
        self.validate_on_load(validate)

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        limits = limits or self.limits_for(task)
        program, _ = assemble(task, code)
        return Job(
            steps=STEPS,
            files={"solution.py": program.encode()},
            limits=limits,
            harness=self._harness(task, limits),
            preload=self.preload,
        )

    def _harness(self, task: Task, limits: Limits) -> Harness:
        """The task's tests for the harness. Kept for the last task object: an RL loop
        grades many candidates of one task in a row."""
        last = self._last_harness
        if last is not None and last[0] is task and last[1] == limits:
            return last[2]
        harness = harness_for(
            task.metadata["entry_point"],
            task.metadata.get("test_prelude", ""),
            [{"name": t.name, "code": t.code, "setup": t.setup} for t in task.tests],
            limits.wall_s,
        )
        self._last_harness = (task, limits, harness)
        return harness

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        _, offset = assemble(task, code)
        return grader.grade(task, result, line_offset=offset)

    def agent_setup(self, task: Task) -> AgentSetup:
        entry = task.metadata["entry_point"]
        statement = f"{task.prompt.rstrip()}\n\nImplement `{entry}` in solution.py.\n"
        return AgentSetup(
            files={
                "TASK.md": statement.encode(),
                "solution.py": task.prompt.encode(),
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
