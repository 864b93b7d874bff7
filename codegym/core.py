"""`CodeEnv`: the one thin `gymnasium.Env` every family builds on.

A family fills three hooks: `build_job` (task + code -> `Job`), `grade` (a pure function of
the task and the `RunResult`) and optionally `render_prompt`; and `agent_setup` (the task's
workspace) for ``mode="agent"`` (see `codegym.agent`), which ``mode="harness"`` also uses
(a real agent program drives the episode: see `codegym.harness`). ``reset`` and ``step`` are
written once, here.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

import gymnasium as gym
import numpy as np

from codegym.agent import (
    TOOL_MODULES,
    AgentEpisode,
    AgentLimits,
    AgentSetup,
    FamilyTool,
    ToolResult,
    agent_prompt,
    tools_for,
)
from codegym.error import InvalidAction, InvalidTask, ResetNeeded, SandboxError, UngradableSubmission, UsageError
from codegym.executor import Executor, Job, Limits, RunResult
from codegym.executor.workspace import Changes
from codegym.extract import extract_code
from codegym.grade import Grade, Status
from codegym.requirements import Requirements
from codegym.spaces import MAX_TEXT, NO_STATUS, UnicodeText, observation_space
from codegym.task import Quarantine, Task, TaskSet, quarantined
from codegym.tools.calls import ToolCall, parse_tool_calls

logger = logging.getLogger(__name__)

# A refine episode still going after this many attempts is taken as unbounded, and warned of once.
UNBOUNDED_REFINE_ATTEMPTS = 50
_warned_unbounded: set[str] = set()  # the env ids warned of, in this process

Mode = Literal["single", "refine", "agent", "harness"]
InfraPolicy = Literal["raise", "flag"]
TaskPolicy = Literal["flag", "raise"]


@dataclass(frozen=True)
class ReferenceTimeLimits:
    """Per-task time limits from the reference solution's measured run: ``floor_s`` plus
    ``multiple`` times its time, never above the env's own limits. A runaway submission is
    then stopped as soon as it is clearly too slow, instead of holding a worker for the
    env-wide limit. The reference runs once per task and env."""

    multiple: float = 10.0
    floor_s: float = 1.0

    def __post_init__(self) -> None:
        if self.multiple < 1 or self.floor_s <= 0:
            raise ValueError(f"need multiple >= 1 and floor_s > 0, got {self.multiple} and {self.floor_s}")

    def derive(self, base: Limits, cpu_s: float, wall_s: float) -> Limits:
        return replace(
            base,
            cpu_s=min(base.cpu_s, self.floor_s + self.multiple * cpu_s),
            wall_s=min(base.wall_s, self.floor_s + self.multiple * wall_s),
        )


class CodeEnv(gym.Env[dict[str, Any], str]):
    """Base class of codegym environments (see each family's docstring for its details).

    Args:
        tasks: The task set to draw from.
        mode: ``"single"`` ends the episode after one submission; ``"refine"`` ends it when
            the submission passes every test (wrap with ``TimeLimit`` via
            ``max_episode_steps`` to bound attempts); ``"agent"``: a multi-turn episode of
            tool calls in a workspace, graded at ``submit`` (see `codegym.agent`).
        agent: The budgets of an agent episode (`AgentLimits`; its defaults when None).
        limits: Resource limits of every run.
        time_limits: Derive tighter per-task time limits from each task's reference
            solution (see `ReferenceTimeLimits`); None keeps ``limits`` for every task. A
            task whose reference does not pass cannot be calibrated: it is an `InvalidTask`.
        executor: The sandbox backend; the process-wide local executor by default.
        on_infra_error: ``"raise"`` a `SandboxError` (default), or ``"flag"`` the step with
            status ``IE``, reward 0 and ``info["infra_error"]`` for trainers that mask it.
        on_task_error: A task that cannot be graded (`InvalidTask`: its reference fails its
            own tests, its testbench is broken; or its build or grading raised) is ``"flag"``-ged
            (default): its submissions get status ``IE``, reward 0 and ``info["task_error"]``
            with the reason, and the rest of a batch goes on; ``"raise"`` raises it.
        quarantine: Tasks to leave out: a file ``codegym validate`` wrote, a text file of
            task ids, or the ids (see `codegym.task.read_quarantine`).
        render_mode: ``"ansi"`` renders the last feedback as text.

    Families also take ``validate=True`` (or a number of runs): grade every task's
    reference when the env is made and keep only the valid tasks (see `validate_on_load`).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    family: ClassVar[str] = "abstract"
    preload: ClassVar[tuple[str, ...]] = ()
    # What the family needs installed (Debian tools, codegym extras, a GPU): `codegym doctor` checks it.
    requires: ClassVar[Requirements] = Requirements()
    max_tests: ClassVar[int] = 256
    # Whether an agent episode whose budget runs out is graded as it stands (truncated, with
    # the grade's reward), as a terminal task's machine is when the agent's time is up.
    grades_at_budget_end: ClassVar[bool] = False
    # Whether the family's agent episodes are machines of their own (`MachineEpisode`: a terminal
    # task's, a project's), which open with `box_binds` mounted; else ``mode="harness"`` puts the
    # agent files in a machine of its own (`codegym.harness.mode.FilesEpisode`).
    machine_episodes: ClassVar[bool] = False
    # Called with each tool call's result as it completes, in ``mode="agent"`` (a server streams them).
    tool_listener: Callable[[ToolResult], None] | None = None
    # What an episode carries from one step to the next (a snapshot copies it); a family that
    # keeps more adds its attributes' names.
    episode_state: ClassVar[tuple[str, ...]] = ("task", "attempt", "last_grade", "_done")

    def __new__(
        cls, *args: Any, server: str | Sequence[str] | None = None, token: str | None = None, **kwargs: Any
    ) -> Any:
        """``gym.make("codegym/<Family>-v<N>", server=URL, token=T, **kwargs)``: a
        `codegym.remote.RemoteEnv` playing this env on a ``codegym serve`` at URL (a list: round
        robin), made there with ``kwargs``, instead of this env; ``token`` (else
        ``$CODEGYM_SERVER_TOKEN`` or the URL's password) is the server's, sent as a header."""
        if server is None:
            if token is not None:
                raise UsageError("token= is a server's token: pass it with server=URL (an env made here needs none)")
            return super().__new__(cls)
        from codegym.remote import RemoteEnv, env_id_of

        try:
            return RemoteEnv(server, env_id_of(cls, kwargs), env_kwargs=kwargs, token=token)
        except TypeError as e:  # (gym.make would repeat its kwargs, the token among them, in the message)
            raise UsageError(str(e)) from e

    def __init__(
        self,
        tasks: TaskSet,
        *,
        limits: Limits,
        time_limits: ReferenceTimeLimits | None = None,
        mode: Mode = "single",
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        harness: Any = None,
        model: str | None = None,
    ) -> None:
        if mode not in ("single", "refine", "agent", "harness"):
            raise ValueError(f"mode must be 'single', 'refine', 'agent' or 'harness', got {mode!r}")
        if mode != "harness" and (harness is not None or model is not None):
            raise ValueError("harness= and model= go with mode='harness' (a real agent program drives the episode)")
        if on_infra_error not in ("raise", "flag"):
            raise ValueError(f"on_infra_error must be 'raise' or 'flag', got {on_infra_error!r}")
        if on_task_error not in ("flag", "raise"):
            raise ValueError(f"on_task_error must be 'flag' or 'raise', got {on_task_error!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.tasks = quarantined(tasks, quarantine)
        self.limits = limits
        self.time_limits = time_limits
        self._task_limits: dict[str, Limits] = {}
        self._limits_lock = threading.Lock()
        self.mode: Mode = mode
        self.on_infra_error: InfraPolicy = on_infra_error
        self.on_task_error: TaskPolicy = on_task_error
        self._invalid: dict[str, str] = {}  # task id -> why it cannot be graded
        self.render_mode = render_mode
        self._executor_choice = executor
        self._executor: Executor | None = None
        self._executor_pid = 0  # the process _executor was looked up in
        self.action_space = UnicodeText()
        self.observation_space = observation_space(self.max_tests)
        self.task: Task | None = None
        self.attempt = 0
        self.last_grade: Grade | None = None
        self._done = True
        self.agent_limits = agent or AgentLimits()
        # The tools an agent calls: OpenAI function schemas (also in reset's info["tools"]).
        self.tools: list[dict[str, Any]] = tools_for(self.agent_limits, self.agent_tools()) if mode == "agent" else []
        self._episode: AgentEpisode | None = None
        self.harness = None
        self.box_binds: tuple[tuple[str, str, bool], ...] = ()  # (what a machine episode's box mounts)
        self._harness_run: Any = None  # (a harness episode's `ProgramRun`, and its request waiting for the action)
        self._harness_event: Any = None
        if mode == "harness":
            from codegym.harness.mode import harness_spec

            self.harness = harness_spec(harness, model)

    # --- hooks ---------------------------------------------------------------------------

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        """The sandbox job that runs ``code`` against ``task``'s tests, under ``limits``
        (`limits_for` the task when None)."""
        raise NotImplementedError

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        """Judge ``result``: a pure function of its arguments."""
        raise NotImplementedError

    def launch(self, task: Task, code: str) -> Future[Any]:
        """Start judging ``code``: a future of what `grade` takes, by default the `RunResult`
        of `build_job`'s one job on the task's executor. A family that judges a submission by
        several runs (TestGeneration: the reference, then each mutant) or by none (a literal
        compared in this process) overrides this; errors go in the future or raise here."""
        return self.executor_for(task).submit(self.build_job_checked(task, code))

    def render_prompt(self, task: Task) -> str:
        return task.prompt

    def agent_setup(self, task: Task) -> AgentSetup:
        """What ``task``'s workspace holds in ``mode="agent"``: the statement, public tests, a
        script that runs them, and the stub of the file graded at ``submit``."""
        raise NotImplementedError(f"the {self.family} family has no agent mode")

    def agent_tools(self) -> tuple[FamilyTool, ...]:
        """Tools the family runs on the harness's side in ``mode="agent"``, offered next to
        the common four (a visual family's ``render``, which needs the hidden target)."""
        return ()

    def episode_prompt(self, task: Task) -> str:
        """The prompt of an agent episode of ``task``: the statement, then the workspace and
        how to finish (a family whose episodes are not workspaces of files words its own)."""
        setup = self._episode.setup if self._episode is not None else self.agent_setup(task)
        return agent_prompt(self.render_prompt(task), setup)

    def advance_episode(self, task: Task, episode: AgentEpisode, grade: Grade) -> str | None:
        """After a graded ``submit``: the text of what comes next when the episode goes on (a
        multi-step task's next step), else None: the episode ends with ``grade``."""
        return None

    def agent_submission(self, task: Task, episode: AgentEpisode) -> str:
        """What ``submit`` grades, read from the episode's workspace: the submission file's
        text (a family whose answer spans files, a diff of a tree, reads it here)."""
        return episode.read_submission()

    def solved(self, grade: Grade) -> bool:
        """Whether ``grade``'s answer solves its task, as the family defines "solved" (its
        docs page says): by default status ``OK`` (every test passes); a family whose ``OK``
        leaves room to improve (a similarity under a threshold, mutants left alive, a slower
        program) says otherwise. Recorded in the grade as `Grade.solved` (see
        `grade_checked`), which pass@k, trainers' ``correct`` and validation count; it also
        ends a ``mode="refine"`` episode (see `refine_ends`)."""
        return grade.status is Status.OK

    def refine_ends(self, grade: Grade) -> bool:
        """Whether ``grade`` ends a ``mode="refine"`` episode: when it is solved. A family in
        which a better answer is always possible (a faster program) never ends one."""
        return self.solved(grade)

    def reward(self, grade: Grade) -> float:
        """The env's reward for ``grade``: the sum of its `reward_components`."""
        return float(sum(self.reward_components(grade).values()))

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """The named terms of the reward: ``correct`` is 1.0 when every test (hidden ones
        included) passes, else 0.0. A family with a term of its own (a speed term) adds it
        here under its own name, so that a shaping wrapper replaces or scales each term
        without counting another twice."""
        return {"correct": 1.0 if grade.status is Status.OK else 0.0}

    def reward_of(self, grade: Grade) -> float:
        """The reward ``step`` gives ``grade``: the sum of its `reward_components` (0.0 for an
        ``IE`` grade, which is never a score). Trainer adapters score with it, so a family's
        own terms (a speedup, a similarity) reach every trainer as they reach ``step``."""
        if grade.status is Status.IE:
            return 0.0
        return float(sum(self.reward_components(grade).values()))

    def prompt_images(self, task: Task) -> tuple[np.ndarray, ...]:
        """Pictures the prompt refers to, as uint8 ``(H, W, 3)`` arrays (a visual task's
        target); trainer adapters put them in their datasets' ``images`` column."""
        return ()

    def validate_on_load(self, validate: bool | int) -> None:
        """With ``validate`` (True: one run; an int: that many), grade every task's reference
        (see `codegym.validation`) and keep only the valid tasks; the others are logged with
        why. A family calls this at the end of its ``__init__``."""
        if not validate:
            return
        from codegym.validation import validate as run_validation

        report = run_validation(self, runs=int(validate))
        if report.quarantined:
            logger.warning("%s", report.render())
            self.tasks = self.tasks.without(report.quarantined, why="invalid on load")

    def limits_for(self, task: Task) -> Limits:
        """The limits a submission to ``task`` runs under (see `ReferenceTimeLimits`)."""
        if self.time_limits is None or not task.reference:
            return self.limits
        with self._limits_lock:
            if task.id not in self._task_limits:
                self._task_limits[task.id] = self._calibrate(task, self.time_limits)
            return self._task_limits[task.id]

    def _calibrate(self, task: Task, policy: ReferenceTimeLimits) -> Limits:
        reference = task.reference or ""
        result = self.executor_for(task).run(self.build_job(task, reference, self.limits))
        grade = self.grade(task, reference, result)
        if grade.status is not Status.OK:  # no time to calibrate on, and no submission can be judged fairly
            raise InvalidTask(f"its reference scored {grade.status.value}: {grade.message or grade.feedback()[:500]}")
        cpu = max(step.cpu_s for step in result.steps)
        wall = max(step.wall_s for step in result.steps)
        return policy.derive(self.limits, cpu, wall)

    # --- Gymnasium API ---------------------------------------------------------------------

    @property
    def executor(self) -> Executor:
        """The executor this env runs submissions on, looked up on first use, and again in a
        forked child (which must not share its parent's workers)."""
        if self._executor is None or self._executor_pid != os.getpid():
            self._executor = self.find_executor()
            self._executor_pid = os.getpid()
        return self._executor

    def executor_for(self, task: Task) -> Executor:
        """The executor ``task``'s jobs and workspace run on: the env's (a family whose tasks
        bring their own environment, a Docker image each, picks theirs here)."""
        return self.executor

    def find_executor(self) -> Executor:
        """The ``executor`` argument if it is an instance, else the process's shared executor
        of that backend (a family with an executor of its own overrides this)."""
        from codegym.executor.registry import get_executor

        preload = (*self.preload, *TOOL_MODULES) if self.mode == "agent" else self.preload
        return get_executor(self._executor_choice, preload=preload)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode. In ``mode="agent"``, ``info["tools"]`` holds the tools' schemas
        and ``info["workdir"]`` the folder the tools start in, as they see it (the workspace's
        path in its sandbox; a terminal task's or a project's work dir).

        Options:
            task_id: The task to pose (else one is drawn with ``np_random``).
            tiers: Only tests of these tiers count this episode (tests without a tier
                always do); used by the tier curriculum.
            history: Earlier attempts, ``[{"code": ..., "feedback": ...}, ...]``: the episode
                resumes after them (a partial refinement trajectory); each is graded again, so
                the observation's ``feedback`` shows real feedback, and ``attempt`` counts them.
            trust_feedback: With ``history``, show the ``feedback`` given instead of grading
                (``info["history"]`` then says ``"supplied"``, else ``"graded"``).
            trace: A recorded episode (`codegym.episodes.read_episodes`), or its ``steps``:
                the episode resumes after its first ``upto`` steps (all by default). In refine
                mode their submissions are graded again; in agent mode their tool calls run
                again in a fresh workspace and each observation is compared with the
                recording: ``info["replayed"]`` counts the steps replayed and
                ``info["divergence"]`` names the first that differed (the replay stops there
                and the episode goes on live).
        """
        super().reset(seed=seed)
        options = options or {}
        unknown = set(options) - {"task_id", "tiers", "history", "trust_feedback", "trace", "upto"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; expected task_id, tiers, history, "
                             "trust_feedback, trace or upto")  # fmt: skip
        trace = _trace_steps(options)
        task_id = options.get("task_id") or _trace_task(options.get("trace"))
        task = self.tasks.get(task_id) if task_id is not None else self.tasks.sample(self.np_random)
        self.task = _restrict_tiers(task, options.get("tiers"))
        self.attempt = 0
        self.last_grade = None
        self._done = False
        info: dict[str, Any] = {"task_id": self.task.id, "difficulty": self.task.difficulty}
        info["tiers"] = _tiers_of(self.task)
        if self.mode == "harness":
            if options.get("history") or trace is not None:
                raise ValueError("a harness episode cannot resume from history or a trace: its program starts afresh")
            return self._harness_reset(self.task, info)
        if self.mode == "agent":
            self._open_episode(self.task)
            info["tools"] = self.tools
            assert self._episode is not None
            info["workdir"] = self._episode.workdir()
            if trace is not None:
                return self._replay(trace, info)
        history: list[Mapping[str, Any]] = list(options.get("history") or ())
        if trace is not None:
            history = [{"code": step["info"].get("code", step["action"])} for step in trace]
        feedback = self._history_feedback(history, trusted=bool(options.get("trust_feedback")) and trace is None)
        info["history"] = "supplied" if options.get("trust_feedback") and trace is None else "graded"
        self.attempt = len(history)
        observation = self._observation(None)
        observation["feedback"] = feedback
        return observation, info

    def _history_feedback(self, history: Sequence[Mapping[str, Any]], *, trusted: bool) -> str:
        """The earlier attempts rendered with their feedback: as given where ``trusted``, else
        each graded again now."""
        assert self.task is not None
        if not trusted:
            history = [{"code": h["code"], "feedback": self.evaluate_task(self.task, h["code"])[0].feedback()}
                       for h in history]  # fmt: skip
        return render_history(history)

    def _replay(self, trace: list[Mapping[str, Any]], info: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Run the recorded steps' actions again in the fresh workspace, comparing each
        observation's feedback with the recording's, up to the first that differs."""
        observation = self._observation(None)
        replayed = 0
        for number, step in enumerate(trace):
            observation, _, terminated, truncated, _ = self._agent_step(step["action"])
            replayed += 1
            if terminated or truncated:
                raise ValueError(
                    f"the trace's step {number} ends the episode: resume from an earlier step (upto < {number + 1})"
                )
            recorded = (step.get("observation") or {}).get("feedback")
            if recorded is not None and recorded != observation["feedback"]:
                info["divergence"] = {"step": number, "recorded": recorded, "now": observation["feedback"]}
                break
        info["replayed"] = replayed
        return observation, info

    def _open_episode(self, task: Task) -> None:
        self._close_episode()
        self._episode = AgentEpisode(
            self.executor_for(task), self.agent_setup(task), self.agent_limits, self.agent_tools()
        )

    def _close_episode(self) -> None:
        if self._harness_run is not None:
            run, self._harness_run = self._harness_run, None
            run.stop()
        if self._episode is not None:
            self._episode.close()
            self._episode = None

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Grade one submission (in ``mode="agent"``: run the action's tool calls).

        Args:
            action: The code, raw or in a fenced block of a chat answer; in ``mode="agent"``,
                the model's text or parsed tool calls.

        Returns:
            ``(observation, reward, terminated, truncated, info)``. After a graded submission
            ``info["grade"]`` is the whole `Grade` and ``info["reward_components"]`` holds the
            terms that sum to the reward.
        """
        if self._done or self.task is None:
            raise ResetNeeded("call reset() before step(), and again after the episode terminated")
        if self.mode == "harness":
            return self._harness_step(action)
        if self.mode == "agent":
            return self._agent_step(action)
        if not isinstance(action, str):
            raise InvalidAction(f"the action is the submission as a str, got {type(action).__name__}")
        task = self.task
        code = extract_code(action, task.language)
        grade, problem = self.evaluate_task(task, code)
        self.attempt += 1
        components = {"correct": 0.0} if problem else self.reward_components(grade)
        reward = float(sum(components.values()))
        grade = _with_components(grade, components)
        self.last_grade = grade
        terminated = self.mode == "single" or self.refine_ends(grade)
        truncated = "task_error" in problem and not terminated  # (no attempt can succeed: refine stops)
        self._done = terminated or truncated
        if self.mode == "refine" and not self._done and self.attempt == UNBOUNDED_REFINE_ATTEMPTS:
            self._warn_unbounded()
        info = {
            "task_id": task.id,
            "grade": grade,
            "status": grade.status.value,
            "reward_components": dict(grade.reward_components),
            "attempt": self.attempt,
            "code": code,
        }
        info.update(problem)
        return self._observation(grade), reward, terminated, truncated, info

    def _warn_unbounded(self) -> None:
        """Warn, once per process and env id, that a refine episode looks unbounded: no
        ``max_episode_steps`` (nothing truncated it), and it ends only when solved."""
        env_id = self.spec.id if self.spec is not None else type(self).__name__
        if env_id in _warned_unbounded:
            return
        _warned_unbounded.add(env_id)
        warnings.warn(
            f"{env_id}: a mode='refine' episode is still going after {self.attempt} attempts. A refine episode ends "
            "only when solved (an Optimize one never ends by itself), so one never solved runs forever: bound it "
            f"with gym.make({env_id!r}, mode='refine', max_episode_steps=N) (or gymnasium.wrappers.TimeLimit)",
            UserWarning,
            stacklevel=3,
        )

    def _agent_step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Run the action's tool calls in order (see `codegym.agent`); grade at ``submit``."""
        assert self.task is not None and self._episode is not None
        episode = self._episode
        try:
            parsed = parse_tool_calls(action, self.tools)
        except TypeError as e:
            raise InvalidAction(str(e)) from e
        self.attempt += 1
        episode.calls += len(parsed.errors)
        results, submitted, ended = _run_calls(episode, parsed.calls, self.tool_listener)
        texts = [f"[format error] {error}" for error in parsed.errors] + [r.render() for r in results]
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "tool_results": [r.to_dict() for r in results],
            "tool_calls": [{"id": call.id, "name": call.name, "arguments": call.arguments} for call in parsed.calls],
            "format_errors": len(parsed.errors),
            "format_error_messages": list(parsed.errors),
            "calls": episode.calls,
            "attempt": self.attempt,
        }
        grade: Grade | None = None
        reward = 0.0
        following = None
        if submitted and not ended:
            grade, reward = self._grade_submission(self.task, episode, info)
            texts.append(grade.feedback() if grade else _ending(info))
            following = self.advance_episode(self.task, episode, grade) if grade is not None else None
            if following:
                texts.append(following)
        elif ended:
            texts.append(_ending(ended))
            if "truncated_by" in ended and self.grades_at_budget_end:
                grade, reward = self._grade_submission(self.task, episode, info)
                texts.append(grade.feedback() if grade else _ending(info))
        info.update(ended)
        terminated = grade is not None and not following and not ended
        truncated = bool(ended) or (submitted and grade is None)
        if terminated or truncated:
            self._done = True
            self._close_episode_quietly()
        observation = self._observation(grade)
        observation["feedback"] = "\n\n".join(text for text in texts if text)
        return observation, reward, terminated, truncated, info

    def _harness_reset(self, task: Task, info: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Open the episode's machine and start the program in it (see `codegym.harness.mode`):
        the observation is its first model request (pass-through: the task, the program
        running on its own)."""
        from codegym.harness.mode import FilesEpisode, instruction_of
        from codegym.harness.proxy import Forwarder
        from codegym.harness.run import ProgramRun
        from codegym.machine_episode import MachineEpisode

        spec = self.harness
        assert spec is not None
        self._close_episode()
        self.box_binds = spec.binds()
        if self.machine_episodes:
            self._open_episode(task)
        else:
            self._episode = FilesEpisode(self, task, self.box_binds)
        episode = self._episode
        assert isinstance(episode, MachineEpisode)
        place = episode.place()
        answer = Forwarder(spec.model) if spec.model else None
        try:
            self._harness_run = ProgramRun(episode.box, spec.recipe, instruction=instruction_of(self, task, episode),
                                           workdir=place.cwd, user=place.user, env=place.env, limits=spec.limits,
                                           answer=answer)  # fmt: skip
        except BaseException:
            self._close_episode_quietly()
            raise
        info.update(workdir=place.cwd, harness=spec.recipe.name, api=spec.recipe.api)
        self._harness_event = None if answer is not None else self._harness_run.next()
        observation = self._observation(None)
        observation["feedback"] = self._harness_feedback(info)
        return observation, info

    def _harness_feedback(self, info: dict[str, Any]) -> str:
        """The current request's news for ``feedback``, and the request itself in ``info``."""
        from codegym.harness.mode import request_feedback, request_record
        from codegym.harness.wire import ModelRequest

        event = self._harness_event
        if isinstance(event, ModelRequest):
            info["request"] = request_record(event)
            return request_feedback(event)
        return ""

    def _harness_step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Answer the program's request with ``action`` (pass-through: ignored, the program runs
        to its end); the next request, or the grade once the program has ended. ``None`` while a
        request waits means the policy is done: the program is stopped (``"stopped"``) and the
        machine graded as it stands."""
        from codegym.harness.mode import calls_record, end_info, to_reply
        from codegym.harness.wire import ModelRequest

        assert self.task is not None and self._episode is not None and self._harness_run is not None
        run, event = self._harness_run, self._harness_event
        info: dict[str, Any] = {"task_id": self.task.id}
        if isinstance(event, ModelRequest) and action is None:
            run.stop()
        elif isinstance(event, ModelRequest):
            try:
                reply, errors = to_reply(action, event)
            except TypeError as e:
                raise InvalidAction(str(e)) from e
            info.update(format_errors=len(errors), format_error_messages=errors)
            run.reply(reply)
        self.attempt += 1
        self._harness_event = event = run.next()
        info["attempt"] = self.attempt
        if isinstance(event, ModelRequest):
            observation = self._observation(None)
            observation["feedback"] = self._harness_feedback(info)
            return observation, 0.0, False, False, info
        info.update(end_info(event), model_calls=calls_record(run.calls))
        grade, reward = None, 0.0
        if event.status == "lost":
            info["infra_error"] = event.detail
        else:
            grade, reward = self._grade_submission(self.task, self._episode, info)
        terminated = grade is not None and event.status in ("exited", "crashed", "no_model_call")
        truncated = not terminated
        self._done = True
        self._close_episode_quietly()
        observation = self._observation(grade)
        observation["feedback"] = grade.feedback() if grade is not None else f"[{event.status}] {event.detail}"
        return observation, reward, terminated, truncated, info

    def _grade_submission(self, task: Task, episode: AgentEpisode, info: dict[str, Any]) -> tuple[Grade | None, float]:
        """Grade the workspace's submission file as a single-shot step would (an
        infrastructure failure is flagged in ``info`` and ends the episode unscored)."""
        try:
            code = self.agent_submission(task, episode)
            grade, problem = self.evaluate_task(task, code)
        except SandboxError as e:
            logger.warning("agent episode of %s lost to an infrastructure failure: %s", task.id, e)
            info["infra_error"] = str(e)
            return None, 0.0
        if "infra_error" in problem:
            info.update(problem)
            return None, 0.0
        if problem:  # the task cannot be graded: IE, never scored
            self.last_grade = grade
            info.update(problem, grade=grade, status=grade.status.value, reward_components={"correct": 0.0}, code=code)
            return grade, 0.0
        components = self.reward_components(grade)
        grade = _with_components(grade, components)
        self.last_grade = grade
        info.update(grade=grade, status=grade.status.value, reward_components=dict(components), code=code)
        return grade, float(sum(components.values()))

    def _close_episode_quietly(self) -> None:
        try:
            self._close_episode()
        except SandboxError:  # (a lost workspace closes quietly anyway)
            self._episode = None

    def evaluate(self, task: Task, code: str) -> tuple[Grade, dict[str, str]]:
        """Run and grade ``code``. Returns the grade and, when it is a flagged ``IE``, why:
        ``{"infra_error": ...}`` (the sandbox failed) or ``{"task_error": ...}`` (the task
        cannot be graded, see `InvalidTask`); else ``{}``."""
        try:
            return self.grade_checked(task, code, self.launch(task, code).result()), {}
        except SandboxError as e:  # from the sandbox, or a harness that failed
            if self.on_infra_error == "raise":
                raise
            logger.warning("infrastructure failure flagged as IE: %s", e)
            return Grade(Status.IE, message="infrastructure failure (not the submission's fault)"), {
                "infra_error": str(e)
            }
        except InvalidTask as e:
            return self.ungradable(task, e), {"task_error": str(e)}

    # --- tasks that cannot be graded -------------------------------------------------------

    def evaluate_task(self, task: Task, code: str) -> tuple[Grade, dict[str, str]]:
        """`evaluate`, unless ``task`` is known to be ungradable: then its ``IE`` grade (see
        `ungradable`) without running anything."""
        try:
            self.check_task_once(task)
        except InvalidTask as e:
            return self.ungradable(task, e), {"task_error": str(e)}
        return self.evaluate(task, code)

    def build_job_checked(self, task: Task, code: str) -> Job:
        """`build_job`, for a task not known to be invalid; any error of building other than
        the sandbox's marks the task invalid (see `InvalidTask`) and raises as one."""
        self.check_task_once(task)
        try:
            return self.build_job(task, code)
        except SandboxError:
            raise
        except Exception as e:
            raise self._invalidate(task, e) from e

    def grade_checked(self, task: Task, code: str, result: RunResult) -> Grade:
        """`grade`, with the family's verdict recorded (`Grade.solved`, see `solved`), turning
        a grader's failure other than the sandbox's into `InvalidTask`. Every route to a grade
        (``step``, `codegym.Scorer`, a server, an agent's ``submit``) passes here."""
        try:
            grade = self.grade(task, code, result)
            return replace(grade, solved=self.solved(grade))
        except SandboxError:
            raise
        except Exception as e:
            raise self._invalidate(task, e) from e

    def ungradable(self, task: Task, error: InvalidTask) -> Grade:
        """The ``IE`` grade of a submission to a task that cannot be graded (or ``error``
        raised, with ``on_task_error="raise"``)."""
        if self.on_task_error == "raise":
            raise error
        return Grade(Status.IE, message=f"task {task.id} cannot be graded (not the submission's fault): {error}")

    @property
    def invalid_tasks(self) -> dict[str, str]:
        """The tasks known to be ungradable, with why: marked so by their loader, or found so
        in this env (their submissions are graded ``IE`` without running)."""
        marked = {t.id: t.invalid for t in self.tasks if t.invalid}
        return {**marked, **self._invalid}

    def check_task(self, task: Task) -> None:
        """Raise `InvalidTask` when ``task`` cannot be graded. Runs before any submission to
        it is judged, so that all of them are ``IE`` (none judged by an earlier layer); a
        family that measures its reference once (an external testbench) does it here."""

    def check_solutions(self, task: Task) -> str | None:
        """Why ``task``'s known solutions other than its reference fail the family's
        expectations (an optimization task's faster solution must be correct and measurably
        faster), or None. `codegym.validate` asks it of every task whose reference passes."""
        return None

    def check_task_once(self, task: Task) -> None:
        """Raise `InvalidTask` when ``task`` is known to be, or now found to be, ungradable
        (its loader's mark, an earlier finding, or `check_task`, whose finding is kept)."""
        reason = task.invalid or self._invalid.get(task.id)
        if reason is not None:
            raise InvalidTask(reason)
        try:
            self.check_task(task)
        except InvalidTask as e:
            raise self._invalidate(task, e) from None

    def _invalidate(self, task: Task, error: Exception) -> InvalidTask:
        """``error`` as an `InvalidTask`. One that is an `InvalidTask` is about the task: the
        task's later submissions are IE without running. An `UngradableSubmission`, or any
        other error (a grader's bug, a task field of the wrong type), may be about this
        submission only: it is logged, not kept."""
        if not isinstance(error, InvalidTask):
            logger.error("grading a submission to %s raised", task.id, exc_info=error)
            return UngradableSubmission(f"grading raised {type(error).__name__}: {error}")
        if isinstance(error, UngradableSubmission):
            logger.warning("a submission to %s could not be graded: %s", task.id, error)
        elif task.id not in self._invalid:
            logger.warning("task %s cannot be graded; its submissions are IE: %s", task.id, error)
            self._invalid[task.id] = str(error)
        return error

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        if self.task is None:
            return ""
        feedback = self.last_grade.feedback() if self.last_grade else "(no submission yet)"
        return f"{self.render_prompt(self.task)}\n---\n{feedback}\n"

    def close(self) -> None:
        self._close_episode()
        self._executor = None  # shared executors are closed at interpreter exit

    # --- snapshots (see `codegym.episodes.branch`, which also carries the wrappers' state) --------

    def snapshot_state(self) -> dict[str, Any]:
        """The episode as it stands between two steps: `episode_state`, the RNG's state and,
        in ``mode="agent"``, the agent episode's snapshot (its workspace frozen). A harness
        episode cannot be taken (`NotImplementedError`): its program is a running process, whose
        memory a snapshot of files would not hold."""
        if self.mode == "harness" and self._harness_run is not None:
            raise NotImplementedError(
                "a harness episode cannot be snapshot, restored or forked: its agent program is a running process "
                "(its conversation and state live in its memory, not in the machine's files). Record it instead "
                "(codegym.episodes.RecordEpisodes), or branch an agent-mode episode."
            )
        state: dict[str, Any] = {name: getattr(self, name) for name in self.episode_state}
        state["rng"] = copy.deepcopy(self.np_random.bit_generator.state)
        state["agent"] = (self._episode, self._episode.snapshot()) if self._episode is not None else None
        return state

    def restore_state(self, state: Mapping[str, Any], *, fork: bool = False) -> None:
        """Go on from ``state`` (`snapshot_state`'s): its episode's values, its RNG state, and
        its workspace (restored into this env's own, or a new one forked from it where this env
        has none or ``fork`` says so: a fork must not share its parent's)."""
        for name in self.episode_state:
            setattr(self, name, state[name])
        self.np_random.bit_generator.state = copy.deepcopy(state["rng"])
        if state["agent"] is None:
            if not fork:
                self._close_episode_quietly()
            self._episode = None
            return
        taker, frozen = state["agent"]
        if fork or self._episode is None:
            self._episode = taker.fork(frozen)
        else:
            self._episode.restore(frozen)

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """``state`` as JSON (values in the wire's form, `codegym.serve.wire`): the task's id
        and digest, the episode's values, the RNG's state and, in agent mode, the bytes the
        workspace's tree changed (`Workspace.changes`) and the budgets spent. An env made
        the same way elsewhere (another worker, node or server) goes on from it (`load_state`)."""
        from codegym.episodes.record import task_digest
        from codegym.serve.wire import encode

        task: Task | None = state["task"]
        values = {name: state[name] for name in self.episode_state if name != "task"}
        record: dict[str, Any] = {
            "task": None if task is None else {"id": task.id, "digest": task_digest(task), "tiers": _tiers_of(task)},
            "values": encode(values),
            "rng": state["rng"],
            "agent": None,
        }
        if state["agent"] is not None:
            taker, frozen = state["agent"]
            changes = taker.workspace.changes(frozen.workspace)
            record["agent"] = encode({"files": dict(changes.files), "executables": changes.executables,
                                      "calls": frozen.calls, "elapsed_s": frozen.elapsed_s})  # fmt: skip
        return record

    def load_state(self, record: Mapping[str, Any]) -> None:
        """Go on from a `dump_state` record: its task (which must not have changed since), its
        values, its RNG state and, in agent mode, a workspace opened over the task's files
        with the record's changes applied.

        Raises:
            ValueError: The record's task is not in this env's tasks, or changed since.
        """
        from codegym.episodes.record import task_digest
        from codegym.serve.wire import decode

        task = None
        if record["task"] is not None:
            wanted = record["task"]
            if wanted["id"] not in self.tasks:
                raise ValueError(f"the snapshot's task {wanted['id']} is not among this env's tasks")
            task = _restrict_tiers(self.tasks.get(wanted["id"]), wanted["tiers"] or None)
            if task_digest(task) != wanted["digest"]:
                raise ValueError(f"the snapshot's task {wanted['id']} changed since it was taken: its content differs")
        self._close_episode_quietly()
        self.task = task
        for name, value in decode(record["values"]).items():
            setattr(self, name, value)
        self.np_random.bit_generator.state = copy.deepcopy(record["rng"])
        if record["agent"] is not None and task is not None:
            agent = decode(record["agent"])
            changes = Changes(agent["files"], tuple(agent["executables"]))
            self._episode = AgentEpisode(self.executor_for(task), self.agent_setup(task), self.agent_limits,
                                         self.agent_tools(), changes)  # fmt: skip
            self._episode.calls, self._episode.elapsed_s = agent["calls"], agent["elapsed_s"]

    def forked(self, state: Mapping[str, Any], seed: int | None) -> CodeEnv:
        """A copy of this env going on from ``state`` on its own: its own RNG (with the
        state's, or seeded with ``seed``) and its own workspace (forked from the state's)."""
        child = copy.copy(self)
        child._np_random = np.random.Generator(np.random.PCG64())
        child.restore_state(state, fork=True)
        if seed is not None:
            child._np_random = np.random.default_rng(seed)
        return child

    def release_state(self, state: Mapping[str, Any]) -> None:
        """Free what ``state`` holds (its workspace's snapshot)."""
        if state["agent"] is not None:
            taker, frozen = state["agent"]
            taker.release(frozen)

    # --- observation ---------------------------------------------------------------------

    def _observation(self, grade: Grade | None) -> dict[str, Any]:
        assert self.task is not None
        passed = np.zeros(self.max_tests, dtype=np.int8)
        hidden = np.zeros(self.max_tests, dtype=np.int8)
        tests = sorted(grade.tests, key=lambda t: t.hidden)[: self.max_tests] if grade else []
        for i, test in enumerate(tests):
            passed[i], hidden[i] = test.passed, test.hidden
        prompt = self.episode_prompt(self.task) if self._episode is not None else self.render_prompt(self.task)
        return {
            "prompt": prompt,
            "feedback": grade.feedback() if grade else "",
            "diagnostics": _capped("\n".join(d.render() for d in grade.diagnostics)) if grade else "",
            "status": grade.status.ordinal if grade else NO_STATUS,
            "tests_passed": passed,
            "tests_hidden": hidden,
            "tests_count": len(tests),
            "pass_rate": np.array([grade.pass_rate if grade else 0.0], dtype=np.float32),
            "attempt": self.attempt,
        }


def _run_calls(
    episode: AgentEpisode, calls: Sequence[ToolCall], listener: Callable[[ToolResult], None] | None = None
) -> tuple[list[ToolResult], bool, dict[str, Any]]:
    """Run ``calls`` in order until a ``submit`` or a budget or the sandbox stops them: their
    results (each also given to ``listener`` as it comes), whether ``submit`` came, and why the
    episode ends (in info's words), if it does."""
    results: list[ToolResult] = []
    for call in calls:
        exhausted = episode.exhausted()
        if exhausted:
            return results, False, {"truncated_by": exhausted}
        if call.name == "submit":
            return results, True, {}
        try:
            results.append(episode.call(call))
        except SandboxError as e:
            return results, False, {"infra_error": str(e)}
        if listener is not None:
            listener(results[-1])
    exhausted = episode.exhausted()
    return results, False, {"truncated_by": exhausted} if exhausted else {}


def _ending(ended: Mapping[str, Any]) -> str:
    if "infra_error" in ended:
        return f"[episode over] the sandbox failed (not your fault): {ended['infra_error']}"
    budget = {"calls": "tool calls", "wall": "time in tools", "disk": "workspace space"}[ended["truncated_by"]]
    return f"[episode over] the episode's budget of {budget} ran out"


def _trace_steps(options: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The first ``upto`` steps of ``options["trace"]`` (None without a trace)."""
    if "trace" not in options:
        if "upto" in options:
            raise ValueError("reset option upto needs a trace: options={'trace': episode, 'upto': k}")
        return None
    trace = options["trace"]
    steps = trace.get("steps") if isinstance(trace, Mapping) else trace
    if not isinstance(steps, Sequence) or not all(isinstance(s, Mapping) and "action" in s for s in steps):
        raise ValueError("reset option trace is a recorded episode (read_episodes) or its list of steps, "
                         "each with its 'action'")  # fmt: skip
    upto = options.get("upto", len(steps))
    if not isinstance(upto, int) or not 0 <= upto <= len(steps):
        raise ValueError(f"reset option upto must be a step count from 0 to {len(steps)}, got {upto!r}")
    return list(steps[:upto])


def _trace_task(trace: Any) -> str | None:
    """The task a recorded episode was of."""
    task = trace.get("task") if isinstance(trace, Mapping) else None
    return task.get("id") if isinstance(task, Mapping) else None


def render_history(history: Sequence[Mapping[str, str]]) -> str:
    """Earlier attempts and the feedback each got, oldest first."""
    parts = []
    for number, attempt in enumerate(history, 1):
        code, feedback = attempt.get("code", "").rstrip(), attempt.get("feedback", "")
        parts.append(f"--- attempt {number} ---\n{code}\n--- feedback ---\n{feedback}")
    return "\n".join(parts)


def _restrict_tiers(task: Task, tiers: Any) -> Task:
    if tiers is None:
        return task
    wanted = set(tiers)
    tests = tuple(t for t in task.tests if t.tier is None or t.tier in wanted)
    if not tests:
        raise ValueError(f"task {task.id} has no tests in tiers {sorted(wanted)}")
    return replace(task, tests=tests)


def _tiers_of(task: Task) -> tuple[str, ...]:
    return tuple(sorted({t.tier for t in task.tests if t.tier is not None}))


def _capped(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` within the observation's text length (a compiler can print more than that)."""
    if len(text) <= limit:
        return text
    marker = "\n[... cut: the diagnostics go on]"
    return text[: limit - len(marker)] + marker


def _with_components(grade: Grade, components: dict[str, float]) -> Grade:
    return replace(grade, reward_components={**grade.reward_components, **components})
