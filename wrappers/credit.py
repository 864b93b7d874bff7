"""Execution-grounded credit: where in the submission did it go wrong?"""

from __future__ import annotations

import json
from typing import Any, SupportsFloat

import gymnasium as gym

from codegym.executor import Job, Step
from codegym.grade import Grade, Status, TestOutcome
from codegym.task import Task

TRACER = "codegym.envs.python_function.tracer"


class DivergenceCredit(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """For a failed Python-function submission, locate the earliest execution divergence
    from the reference solution on the first failing test, and put the submission's source
    span there in ``info["credit"]``, so a trainer can place token-level advantage on it.

    The submission and the reference run under the same line tracing, inside the sandbox
    (see ``codegym.envs.python_function.tracer``). ``info["credit"]`` holds ``test``,
    ``line`` (1-based, in the submitted code), ``start_char``/``end_char`` (offsets into
    the submitted code), ``variable``, ``expected`` and ``got``; or None with
    ``info["credit_note"]`` saying why. The span is advice for training, not a verdict.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        super().__init__(env)
        if getattr(env.unwrapped, "family", None) != "PythonFunction":
            raise TypeError(f"DivergenceCredit needs a PythonFunction env, got {type(env.unwrapped).__name__}")

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        grade: Grade | None = info.get("grade")
        if grade is None or grade.status in (Status.OK, Status.IE):
            return observation, reward, terminated, truncated, info
        task: Task = self.env.unwrapped.tasks.get(info["task_id"])  # type: ignore[attr-defined]
        credit, note = self.locate(task, info["code"], grade)
        return observation, reward, terminated, truncated, {**info, "credit": credit, "credit_note": note}

    def locate(self, task: Task, code: str, grade: Grade) -> tuple[dict[str, Any] | None, str]:
        failing = next((t for t in grade.tests if not t.passed and t.call_args), None)
        if failing is None:
            return None, "no failing test reached the submission with arguments"
        if not task.reference:
            return None, f"task {task.id} has no reference solution"
        from codegym.envs.python_function.env import assemble

        program, offset = assemble(task, code)
        found = self._trace(task, program, failing)
        if found is None or found.get("line") is None:
            return None, "the submission's execution matched the reference's on that test"
        line = int(found["line"]) - offset
        lines = code.splitlines(keepends=True)
        if not 1 <= line <= len(lines):
            return None, "the divergence lies outside the submitted code"
        start = sum(len(text) for text in lines[: line - 1])
        end = start + len(lines[line - 1].rstrip("\n"))
        span = {
            "test": failing.name,
            "line": line,
            "start_line": line,
            "end_line": line,
            "start_char": start,
            "end_char": end,
        }
        return {
            **span,
            "variable": found.get("variable"),
            "expected": found.get("expected"),
            "got": found.get("got"),
        }, ""

    def _trace(self, task: Task, program: str, failing: TestOutcome) -> dict[str, Any] | None:
        env = self.env.unwrapped
        call = {"entry": task.metadata["entry_point"], "args": failing.call_args}
        job = Job(
            steps=(Step(argv=("python", "-m", TRACER)),),
            files={
                "candidate.py": program.encode(),
                "reference.py": (task.reference or "").encode(),
                "call.json": json.dumps(call).encode(),
            },
            limits=env.limits_for(task),  # type: ignore[attr-defined]
            preload=(TRACER,),
        )
        step = env.executor.run(job).steps[0]  # type: ignore[attr-defined]
        try:
            return json.loads(step.stdout.decode().strip().splitlines()[-1])["divergence"]
        except (ValueError, IndexError, KeyError, TypeError):
            return None
