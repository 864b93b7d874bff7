"""`TritonKernelEnv`: replace a PyTorch model's forward with Triton kernels."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from codegym.envs.triton_kernel import grader, harness, integrity, sandbox, shrink, wire, workspace
from codegym.envs.triton_kernel.tasks import load_tasks

from codegym.agent import AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import InvalidTask, SandboxError
from codegym.executor import Executor, Harness, Job, Limits, RunResult, Step, StepResult
from codegym.grade import Grade, Status
from codegym.requirements import Module, Requirements
from codegym.task import Quarantine, Task, TaskSet

logger = logging.getLogger(__name__)

SIZING = "codegym.envs.triton_kernel.sizing"
REFERENCE = "codegym.envs.triton_kernel.reference"
CANDIDATE = "codegym.envs.triton_kernel.candidate"
HARNESS = "codegym.envs.triton_kernel.harness"
DEFAULT_LIMITS = Limits(
    cpu_s=60.0, wall_s=90.0, memory_bytes=2 << 30, processes=64, output_bytes=1 << 20,
    file_size_bytes=256 << 20, disk_bytes=512 << 20,
)  # fmt: skip
# On a GPU: CUDA's libraries are large (their pages count against the memory limit) and
# triton compiles its launcher with gcc at the first launch of each job.
GPU_LIMITS = Limits(
    cpu_s=300.0, wall_s=300.0, memory_bytes=16 << 30, processes=128, output_bytes=1 << 20,
    file_size_bytes=1 << 30, disk_bytes=4 << 30,
)  # fmt: skip
Device = Literal["auto", "cpu", "cuda"]
ShapesKind = Literal["auto", "small", "task"]
RewardKind = Literal["correct", "log_speedup", "fast_p"]
REWARDS = ("correct", "log_speedup", "fast_p")
NO_GPU_NOTE = (
    "no GPU: kernels ran in Triton's CPU interpreter, where time says nothing about GPU speed; no speedup was measured"
)

# Reference outputs by (task, problem source, device, shapes, seeds): shared by every env
# of the family in this process, so a task's reference runs once.
_references: dict[tuple[Any, ...], tuple[dict[str, Any], list[bytes]]] = {}
_references_lock = threading.Lock()
# The sizes each problem runs at, by (problem source, small): a `Shapes`, or the reason an
# `InvalidTask` gives (found once per process, like the reference outputs).
_shapes: dict[tuple[str, bool], shrink.Shapes | str] = {}
_shapes_lock = threading.Lock()


class TritonKernelEnv(CodeEnv):
    """Write Triton kernels that replace a PyTorch model's forward (KernelBench layout).

    ## Action space
    `UnicodeText`: a Python file defining ``class ModelNew`` whose forward launches Triton
    kernels, raw or in a fenced ```python block.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (the PyTorch ``Model`` to replace),
    feedback (compile errors with the offending line, per trial the max abs/rel error of
    each output, kernels launched), status, per-trial pass/fail, pass rate and attempt
    count. Timings are in ``info["timing"]`` and ``info["grade"].metrics`` (GPU only).

    ## Rewards
    Correctness gate times a speed term, by ``reward``: ``"correct"`` (1.0 when every trial
    matches), ``"log_speedup"`` (``max(0, 1 + ln(speedup))``) or ``"fast_p"`` (1.0 when the
    speedup exceeds ``p``). Without a GPU the speed term is absent: the reward is the gate
    and ``info["reward_notes"]["speedup"]`` says why. ``HACK`` and every failure earn 0.

    ## Episode end
    ``mode="single"``: after one submission; ``mode="refine"``: when correct (truncated only
    by ``max_episode_steps``). ``mode="agent"`` (see `codegym.agent`): tool calls in a
    workspace holding ``TASK.md`` (the prompt), ``problem.py`` (the ``Model`` the prompt
    shows), ``model_new.py`` (a stub whose forward raises) and ``./run_tests``, which runs
    ``tests/check.py``: torch and triton, the interpreter on the CPU, compare ``ModelNew``
    with ``Model`` on seeded inputs that are not the graded ones; terminated at ``submit``,
    which grades ``model_new.py`` as a single-shot step would (static checks, the graded
    seeds, timing on a GPU).

    ## Limits
    ``limits`` bound each run (reference and submission alike); by default 60 s CPU, 90 s
    wall, 2 GiB on the CPU, and 300 s, 300 s, 16 GiB on a GPU (CUDA's libraries and triton's
    launcher build count against them). An agent's commands get that memory too (torch
    alone takes about 300 MiB) unless ``agent`` says otherwise.

    ## Registered configurations
    ``codegym/TritonKernel-v0`` with ``tasks="codegym-triton"`` (the bundled problems), or a
    folder of KernelBench problem files.

    ## How it is judged
    The task's ``Model`` runs first, in a sandboxed job of its own, on each trial's seeded
    inputs; ``ModelNew`` then runs in another, on inputs regenerated from the same seeds,
    its outputs NaN-poisoned beforehand, and sends them as raw arrays to the harness, which
    alone holds the reference outputs and compares dtype, shape, strides and values. On a
    CPU kernels run in Triton's interpreter at small shapes (see Shapes) after a front-end
    compile for an NVIDIA target; on a GPU at the task's own shapes. Static checks of the source and run
    time checks in the submission's process (launch counts, aten operators, patched
    attributes, threads, streams, aliased or cached outputs) score cheating as ``HACK``.

    ## Shapes
    Small shapes are the problem's ``cpu_shapes`` where it has them; otherwise its size
    constants (the module-level integers ``get_inputs`` and ``get_init_inputs`` read) are
    shrunk until it fits `shrink.Budget` (see `codegym.envs.triton_kernel.shrink`), found
    once per problem by a sandboxed sizing job on PyTorch's meta device. Reference and
    submission run at the same sizes; ``info["shapes"]`` (reset and step) shows them. A
    problem that cannot be made to fit, or whose reference fails at its sizes, raises
    `InvalidTask` when graded (its submissions are ``IE``); one that evidently cannot be
    shrunk (sizes written inside ``get_inputs``) is logged when the env is built.

    Args:
        tasks: ``"codegym-triton"``, a folder of KernelBench problem files, or a `TaskSet`.
        device: ``"cpu"`` (interpreter), ``"cuda"``, or ``"auto"`` (cuda when one is visible).
        shapes: ``"small"`` (the problems' ``cpu_shapes``, else shrunk: see Shapes),
            ``"task"`` (their own sizes, always), or ``"auto"`` (small on the CPU, the task's
            on a GPU).
        reward: ``"correct"``, ``"log_speedup"`` or ``"fast_p"``.
        p: The speedup ``fast_p`` requires.
        trials: Seeded trials per evaluation.
        timing: Time reference and submission on a GPU (default: when ``reward`` needs it).
        static_checks: Refuse forbidden source constructs before running (only turned off to
            test the run-time checks alone).
        mode: ``"single"``, ``"refine"`` or ``"agent"`` (see Episode end).
        agent: The budgets of an agent episode (default: `AgentLimits` with each command's
            memory and processes raised to the runs' limits).
        executor: The family's own `TritonExecutor` by default (shared in the process); an
            `Executor` given here must provide torch and triton in its sandbox.
        limits, time_limits, on_infra_error, render_mode: See `CodeEnv` (``limits``: the
            family's defaults, more memory on a GPU, when None).
        on_task_error, quarantine, validate: What to do with tasks that cannot be graded
            (see `CodeEnv`): here, problems that cannot be sized for the CPU or whose
            reference fails at its sizes.
    """

    family: ClassVar[str] = "TritonKernel"
    requires: ClassVar[Requirements] = Requirements(
        modules=(Module("triton", "triton"), Module("torch", "triton")),
        gpu="timings and the speed term (without one, Triton's interpreter runs kernels on the CPU: correctness only)",
    )
    preload: ClassVar[tuple[str, ...]] = sandbox.runtime(interpret=True)

    def __init__(
        self,
        tasks: str | Path | TaskSet = "codegym-triton",
        *,
        device: Device = "auto",
        shapes: ShapesKind = "auto",
        reward: RewardKind = "correct",
        p: float = 1.0,
        trials: int = 3,
        timing: bool | None = None,
        static_checks: bool = True,
        mode: Mode = "single",
        limits: Limits | None = None,
        time_limits: ReferenceTimeLimits | None = None,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}")
        if shapes not in ("auto", "small", "task"):
            raise ValueError(f"shapes must be 'auto', 'small' or 'task', got {shapes!r}")
        if executor not in (None, "local") and not isinstance(executor, Executor):
            raise ValueError(f"executor must be None, 'local' or an Executor (a TritonExecutor), got {executor!r}")
        resolved = _resolve_device(device)
        limits = limits or (GPU_LIMITS if resolved == "cuda" else DEFAULT_LIMITS)
        super().__init__(
            load_tasks(tasks, trials=trials),
            limits=limits,
            time_limits=time_limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode=render_mode,
            agent=agent or agent_limits(limits),
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.device: str = resolved
        self.preload = sandbox.runtime(interpret=self.device == "cpu")  # type: ignore[misc]
        self.shapes: ShapesKind = shapes
        self.small = shapes == "small" or (shapes == "auto" and self.device == "cpu")
        if self.small:
            _warn_unshrinkable(self.tasks)
        self.reward_kind: RewardKind = reward
        self.p = p
        self.timing = (reward != "correct") if timing is None else timing
        self.static_checks = static_checks
        self.validate_on_load(validate)

    def find_executor(self) -> Executor:
        choice = self._executor_choice
        return choice if isinstance(choice, Executor) else sandbox.shared_executor(interpret=self.device == "cpu")

    # --- hooks ---------------------------------------------------------------------------

    def evaluate(self, task: Task, code: str) -> tuple[Grade, dict[str, str]]:
        findings = self.findings(code)
        if findings:  # refused before anything runs
            return grader.static_grade(task, findings), {}
        return super().evaluate(task, code)

    def check_task(self, task: Task) -> None:
        """Find the task's sizes and run its reference at them (once per process): an
        `InvalidTask` when either fails, before any submission is judged."""
        self.reference_outputs(task)

    def findings(self, code: str) -> list[integrity.Finding]:
        """What the static checks refuse in ``code`` (nothing when they are off)."""
        return integrity.check(code) if self.static_checks else []

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        limits = limits or self.limits_for(task)
        if self.findings(code):  # `grade` refuses it: run nothing of it (batch scoring calls this)
            return Job(steps=(Step(argv=("true",)),), limits=limits)
        header, blobs = self.reference_outputs(task)
        plan = {**self._plan(task), "output_specs": [[{"dtype": r["dtype"], "shape": r["shape"]} for r in t]
                                                     for t in header["trials"]]}  # fmt: skip
        payload = wire.pack({"plan": plan, "reference": header["trials"], "budget_s": limits.wall_s}, blobs)
        return Job(
            steps=(Step(argv=("python", "-m", CANDIDATE), channel=True, env=self._step_env()),),
            files={"solution.py": code.encode()},
            limits=limits,
            harness=Harness(f"{HARNESS}:grade", payload),
            preload=self.preload,
        )

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        findings = self.findings(code)
        if findings:
            return grader.static_grade(task, findings)
        return grader.grade(task, result)

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """``correct``, plus the `speed_term` of a correct submission that was timed. A
        `SpeedupReward` wrapper replaces that term rather than adding a second one."""
        components = super().reward_components(grade)
        term = self.speed_term(grade) if grade.status is Status.OK else None
        if term is not None:
            components["speedup"] = term
        return components

    def speed_term(self, grade: Grade) -> float | None:
        """The ``speedup`` term of a correct grade, None when no speedup was measured:
        ``ln(speedup)`` floored at -1, so that the reward ``1 + ln(speedup)`` is never
        negative; or, for fast_p, 0 when the speedup beats ``p`` and -1 when it does not."""
        speedup = grade.metrics.get("speedup")
        if self.reward_kind == "correct" or speedup is None or speedup <= 0:
            return None
        if self.reward_kind == "log_speedup":
            return max(-1.0, math.log(speedup))
        return 0.0 if speedup > self.p else -1.0

    def agent_setup(self, task: Task) -> AgentSetup:
        source: str = task.metadata["problem"]
        graded = [int(task.metadata["init_seed"]), *(int(t.code) for t in task.tests)]
        try:
            overrides = dict(self.shapes_for(task).overrides)
        except InvalidTask:  # (submit grades it IE; the workspace shows the problem as it is)
            overrides = {}
        check = workspace.check_script(
            site=[self._in_view(d) for d in sandbox.site_directories()], device=self.device, shapes=overrides,
            seeds=workspace.public_seeds(graded), tolerance=harness.TOLERANCE,
        )  # fmt: skip
        interpret = self.device == "cpu"
        sizes = ", ".join(f"{k}={v}" for k, v in overrides.items())
        how = [*(["kernels run in Triton's CPU interpreter"] if interpret else []),
               *([f"smaller sizes than problem.py's apply: {sizes}"] if overrides else [])]  # fmt: skip
        return AgentSetup(
            files={
                "TASK.md": f"{task.prompt.rstrip()}\n\nWrite that file as {workspace.SUBMISSION}.\n".encode(),
                workspace.PROBLEM: source.encode(),
                workspace.SUBMISSION: workspace.stub(source).encode(),
                workspace.CHECK: check.encode(),
                workspace.RUN_TESTS: workspace.run_tests(self._sandbox_python(), interpret=interpret).encode(),
            },
            submission=workspace.SUBMISSION,
            executables=(workspace.RUN_TESTS,),
            instructions=(
                f"Write ModelNew in {workspace.SUBMISSION}; {workspace.PROBLEM} holds the Model it replaces. "
                f"./run_tests ({workspace.CHECK}) compares their outputs on public seeded inputs"
                f"{' (' + '; '.join(how) + ')' if how else ''}. At submit the grader also enforces the rules "
                "and uses inputs it never shows."
            ),
        )

    def _sandbox_python(self) -> str:
        """The interpreter of the sandbox's commands: the executor's workers' (their view
        shows its installation), else this process's."""
        return self._in_view(os.path.realpath(getattr(self.executor, "python", None) or sys.executable))

    def _in_view(self, path: str) -> str:
        """Where the sandbox's commands find ``path`` of this machine (one under /tmp: elsewhere)."""
        in_view = getattr(self.executor, "path_in_view", None)
        return in_view(path) if in_view is not None else path

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        assert self.task is not None
        info["shapes"] = self._reported_shapes(self.task)
        return observation, info

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        grade: Grade | None = info.get("grade")
        if grade is None:  # an agent's step that graded nothing
            return observation, reward, terminated, truncated, info
        timing = {k: grade.metrics[k] for k in wire.TIMING_KEYS if k in grade.metrics}
        info["timing"] = timing or None
        info["device"] = self.device
        if self.task is not None:
            info["shapes"] = self._reported_shapes(self.task)
        if not timing and self.reward_kind != "correct":
            info["reward_notes"] = {"speedup": self._why_no_speedup(grade)}
        return observation, reward, terminated, truncated, info

    def _why_no_speedup(self, grade: Grade) -> str:
        if grade.status is not Status.OK:
            return "the submission is not correct, so it was not timed"
        if self.device != "cuda":
            return NO_GPU_NOTE
        return "timing is off for this env (timing=False)"

    # --- the task's sizes ---------------------------------------------------------------

    def shapes_for(self, task: Task) -> shrink.Shapes:
        """The sizes ``task`` runs at in this env (found once per process; see Shapes).

        Raises:
            InvalidTask: The problem cannot be made to fit the CPU.
            SandboxError: The sizing job could not run.
        """
        source: str = task.metadata["problem"]
        key = (source, self.small)
        with _shapes_lock:
            known = _shapes.get(key)
        if known is None:
            try:
                known = self._find_shapes(task, source)
            except InvalidTask as e:
                known = str(e)
            with _shapes_lock:
                _shapes[key] = known
        if isinstance(known, str):
            raise InvalidTask(known)
        return known

    def _reported_shapes(self, task: Task) -> dict[str, Any] | None:
        """``info["shapes"]``: None for a task whose sizes cannot be found."""
        try:
            return dict(self.shapes_for(task).values)
        except InvalidTask:
            return None

    def _find_shapes(self, task: Task, source: str) -> shrink.Shapes:
        try:
            sizes = shrink.analyse(source)
        except SyntaxError as e:
            raise InvalidTask(f"task {task.id}: the problem file does not parse: {e}") from e
        if not self.small:
            return shrink.Shapes(values={n: sizes.original[n] for n in sizes.sizes}, overrides={}, origin="task")
        if sizes.cpu_shapes_error:
            raise InvalidTask(f"task {task.id}: {sizes.cpu_shapes_error}")
        try:
            if sizes.cpu_shapes is not None:
                return shrink.shapes(sizes, sizes.cpu_shapes, "cpu_shapes")
            bases = self._sizing(task, sizes)
            return shrink.shapes(sizes, bases, "shrunk" if bases else "task")
        except ValueError as e:
            raise InvalidTask(f"task {task.id}: its sizes cannot be applied: {e}") from e

    def _sizing(self, task: Task, sizes: shrink.Sizes) -> dict[str, Any]:
        """The shrunk size constants of ``task``, found by the sandboxed sizing job."""
        plan = {"budget": vars(shrink.BUDGET)}
        result = self.executor.run(
            Job(
                steps=(Step(argv=("python", "-m", SIZING), env=self._step_env()),),
                files={"plan.json": json.dumps(plan).encode(), "problem.py": task.metadata["problem"].encode()},
                limits=self.limits,
                preload=self.preload,
                collect=("sizing.json",),
            )
        )
        step = result.steps[0]
        if not step.ok:
            raise InvalidTask(f"sizing task {task.id} for the CPU failed: {_why(step)}")
        if "sizing.json" not in result.files:
            raise SandboxError(f"the sizing job of task {task.id} ended without its report")
        report = json.loads(result.files["sizing.json"])
        if report["bases"] is None:
            raise InvalidTask(f"task {task.id} cannot be sized for the CPU: {report['reason']}")
        bases: dict[str, Any] = report["bases"]
        if not isinstance(bases, dict) or not shrink.accepts(sizes, bases):
            raise SandboxError(f"the sizing job of task {task.id} reported sizes it may not set: {bases!r:.300}")
        logger.info("task %s runs on the CPU at %s (%s)", task.id, bases or "its own sizes", report["measurement"])
        return bases

    # --- the reference's run -------------------------------------------------------------

    def reference_outputs(self, task: Task) -> tuple[dict[str, Any], list[bytes]]:
        """The task's reference outputs for this env's trials (run once, then cached).

        Raises:
            InvalidTask: The reference ``Model`` failed (an exception, a limit), or the
                problem's sizes cannot be found (see `shapes_for`).
            SandboxError: The sandbox failed.
        """
        plan = self._plan(task)
        digest = hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()
        key = (task.id, digest)
        with _references_lock:
            if key in _references:
                return _references[key]
        result = self.executor.run(
            Job(
                steps=(Step(argv=("python", "-m", REFERENCE), env=self._step_env()),),
                files={"plan.json": json.dumps(plan).encode(), "problem.py": task.metadata["problem"].encode()},
                limits=self.limits,
                preload=self.preload,
                collect=("reference.out",),
            )
        )
        step = result.steps[0]
        if not step.ok:
            shapes = self.shapes_for(task)
            at = ", ".join(f"{k}={v}" for k, v in shapes.values.items()) or "its own sizes"
            hint = (
                "; shapes='task' keeps the problem's own sizes, which may not fit the CPU: shapes='auto' shrinks them"
                if self.device == "cpu" and not self.small
                else ""
            )
            raise InvalidTask(f"the reference Model of task {task.id} failed at {at}: {_why(step)}{hint}")
        if "reference.out" not in result.files:
            raise SandboxError(f"the reference job of task {task.id} ended without its outputs")
        outputs = wire.unpack(result.files["reference.out"])
        with _references_lock:
            _references[key] = outputs
        return outputs

    def _plan(self, task: Task) -> dict[str, Any]:
        timing = {"warmup": 5, "rounds": 30} if self.timing and self.device == "cuda" else None
        return {
            "problem": task.metadata["problem"],
            "shapes": dict(self.shapes_for(task).overrides),
            "device": self.device,
            "seeds": [int(t.code) for t in task.tests],
            "init_seed": int(task.metadata["init_seed"]),
            "timing": timing,
        }

    def _step_env(self) -> tuple[tuple[str, str], ...]:
        env = {
            "TRITON_CACHE_DIR": "/tmp/triton-cache",
            "TRITON_HOME": "/tmp/triton-home",
            "TRITON_DEFAULT_FP_FUSION": "1",
            "OMP_NUM_THREADS": "1",
        }
        if self.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        return tuple(sorted(env.items()))


def _why(step: StepResult) -> str:
    """What ended a failed step: the limit it hit, else the end of its stderr."""
    if step.limit:
        return f"the {step.limit} limit was exceeded"
    if step.denied_syscall:
        return "a forbidden system call"
    return step.stderr.decode(errors="replace")[-2000:].strip() or f"exit status {step.exit_code}"


def _warn_unshrinkable(tasks: TaskSet) -> None:
    """Log the problems that evidently cannot be shrunk for the CPU (their grading raises
    `InvalidTask` when their reference fails at their own sizes)."""
    found = []
    for task in tasks:
        try:
            reason = shrink.why_not_shrinkable(shrink.analyse(task.metadata.get("problem", "")))
        except SyntaxError as e:
            reason = f"it does not parse: {e}"
        if reason:
            found.append(f"{task.id}: {reason}")
    if found:
        logger.warning(
            "%d Triton problem(s) cannot be shrunk for the CPU and may not fit it (grading them raises InvalidTask "
            "if their reference fails):\n  %s",
            len(found),
            "\n  ".join(found[:20]) + (f"\n  ... and {len(found) - 20} more" if len(found) > 20 else ""),
        )


def agent_limits(limits: Limits) -> AgentLimits:
    """The family's default agent budgets: a command may use the memory and processes of a
    graded run (``./run_tests`` imports torch and triton in a fresh process, CUDA's libraries
    with them on a GPU) and ask for as long as one may take."""
    base = AgentLimits()
    command = replace(
        base.command,
        memory_bytes=max(base.command.memory_bytes, limits.memory_bytes),
        processes=max(base.command.processes, limits.processes),
    )
    return AgentLimits(command=command, max_timeout_s=max(base.max_timeout_s, limits.wall_s))


def _resolve_device(device: str) -> str:
    visible = os.path.exists("/dev/nvidiactl")
    if device == "cuda" and not visible:
        raise ValueError("device='cuda' needs an NVIDIA GPU, and this machine shows none (no /dev/nvidiactl); "
                         "use device='cpu' (Triton's interpreter) or 'auto'")  # fmt: skip
    if device != "auto":
        return device
    if not visible:
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
