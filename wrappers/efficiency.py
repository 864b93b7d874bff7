"""`EfficiencyReward`: the speedup of a correct submission against the task's reference, for
families that judge correctness only (Mercury's and EffiBench's use of HumanEval-style and
LeetCode-style tasks).

This is the one wrapper that runs code: measuring is its purpose, and the measurement is
off the env's grading path unless this wrapper asks for it. It never changes the verdict: it
meters a submission its env graded ``OK``, on the task's hidden tests' inputs, against the
task's reference, with `codegym.meter` (the same count as ``codegym/Optimize-v0``), and adds
the speedup to the grade's metrics and a ``speedup`` term to the reward.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, SupportsFloat

import gymnasium as gym
from codegym.wrappers.reward import RewardTerm, speedup_term

from codegym.grade import Grade, Status
from codegym.task import TaskSet

FAMILIES = ("PythonFunction", "StdioProgram")
MEASURED = ("speedup", "cost", "reference_cost")


class EfficiencyReward(RewardTerm):
    """Add ``weight * log(speedup)`` (``mode="log"``) or ``weight`` when the speedup exceeds
    ``p`` (``mode="fast_p"``) to a correct submission's reward, the speedup measured as
    instructions counted against the task's reference.

    Works on StdioProgram tasks in Python, C or C++ and on PythonFunction tasks judged by
    calls (EvalPlus, LiveCodeBench functional, APPS call-based: see
    `codegym.envs.optimize.convert`). Where no speedup can be measured (another language, a
    task without a reference, a run the meter cannot count) the term is 0 and
    ``info["reward_notes"]["speedup"]`` says why.
    """

    def __init__(self, env: gym.Env, weight: float = 1.0, mode: str = "log", p: float = 1.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, weight=weight, mode=mode, p=p)
        super().__init__(env)
        if mode not in ("log", "fast_p"):
            raise ValueError(f"mode must be 'log' or 'fast_p', got {mode!r}")
        family = getattr(env.unwrapped, "family", None)
        if family not in FAMILIES:
            raise ValueError(f"EfficiencyReward meters {' and '.join(FAMILIES)} tasks; this env is {family!r}")
        self.weight, self.mode, self.p = weight, mode, p
        self._meter: Any = None
        self._reasons: dict[str, str] = {}
        self._lock = threading.Lock()

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        grade = info.get("grade")
        if "infra_error" in info or grade is None:
            return observation, reward, terminated, truncated, info
        note = None
        if grade.status is Status.OK:
            grade, note = self._measured(str(info["task_id"]), str(info.get("code", "")), grade)
        components = dict(info.get("reward_components") or {"correct": float(reward)})
        components["speedup"] = speedup_term(grade, self.weight, self.mode, self.p)
        info = {**info, "grade": grade, "reward_components": components}
        if note:
            info["reward_notes"] = {**info.get("reward_notes", {}), "speedup": note}
        return observation, float(sum(components.values())), terminated, truncated, info

    def _measured(self, task_id: str, code: str, grade: Grade) -> tuple[Grade, str | None]:
        meter, reason = self._meter_for(task_id)
        if meter is None:
            return grade, reason
        measured = meter.measure_speedup(meter.tasks.get(task_id), code)
        if measured.status is not Status.OK:
            return grade, f"the meter could not count this run: {measured.status.value} {measured.message}"
        metrics = {**grade.metrics, **{k: measured.metrics[k] for k in MEASURED}}
        profile = tuple(d for d in measured.diagnostics if d.code == "profile")
        return dataclasses.replace(grade, metrics=metrics, diagnostics=(*grade.diagnostics, *profile)), None

    def _meter_for(self, task_id: str) -> tuple[Any, str | None]:
        """The Optimize env that meters this env's tasks (made once), or why ``task_id`` cannot be."""
        from codegym.envs.optimize.convert import as_optimization
        from codegym.envs.optimize.env import OptimizeEnv

        core = self.env.unwrapped
        with self._lock:
            if self._meter is None:
                converted = [as_optimization(task) for task in core.tasks]  # type: ignore[attr-defined]
                kept = [task for task in converted if not isinstance(task, str)]
                tasks = list(core.tasks)  # type: ignore[attr-defined]
                self._reasons = {t.id: why for t, why in zip(tasks, converted, strict=True) if isinstance(why, str)}
                if not kept:
                    return None, next(iter(self._reasons.values()), "no task can be metered")
                choice = getattr(core, "_executor_choice", None)  # (the env's backend, or its executor)
                self._meter = OptimizeEnv(TaskSet(kept, name="metered"), executor=choice)
        if task_id in self._reasons:
            return None, self._reasons[task_id]
        return self._meter, None
