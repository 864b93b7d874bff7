"""PrimeIntellect verifiers (0.4, the ``verifiers.v1`` stack): every codegym family as a
verifiers taskset, env and chat harness::

    from codegym.integrations.verifiers_env import load_environment

    env = load_environment("codegym/StdioProgram-v0", mode="refine", max_attempts=3, num_tasks=20)
    # then verifiers' own runner: run_eval(EvalConfig(env=env.config, model=..., client=...))

verifiers finds a taskset by importing the module its id names: `TASKSET_ID`
(``codegym_verifiers``) is an alias of this module in any process that imported it, and a
top-level ``codegym_verifiers`` module re-exporting it makes the command line work too::

    vf-eval codegym_verifiers --env.taskset.env-id codegym/Verilog-v1 --env.mode refine

Pieces, each the plugin verifiers looks for in a taskset module's ``__all__``:

- `CodegymTaskset` yields one `CodegymTask` per task of the codegym env: its prompt as the env
  renders it (with the target picture as an image part for the visual families), and
  ``info`` carrying ``env_id`` and ``task_id``. Hidden tests and references never enter it.
- `CodegymTask` grades the trace's last reply once, in its ``finalize`` hook, exactly as the
  env's ``step`` would (the fenced block the env would extract, its sandbox, its reward); its
  ``@vf.reward`` ``codegym_reward`` is the env's reward (a family's own terms included), and
  its ``@vf.metric`` records ``pass_rate``, ``correct``, ``tests_passed``, ``tests_total`` and
  ``status`` (the index in `codegym.grade.STATUSES`; the name is in ``trace.info["codegym"]``).
  Metrics never add to the reward.
- `CodegymEnv` plays the ``agent`` seat: ``mode="single"`` is one reply; ``mode="refine"``
  grades each reply and sends the grade's feedback as the next user message until the
  env calls it solved or ``max_attempts`` replies were graded.
- `CodegymChatHarness`, the taskset's default harness, is a tool-less chat loop run in this
  process (every model call goes through verifiers' interception server, so the trace,
  limits and token accounting are verifiers'); verifiers' own ``null`` harness works as well
  (``--env.agent.harness.id null``), at the cost of a ``uv`` environment per worker.

An infrastructure failure is never a score. Grading raises, and verifiers records the error
on the trace (``trace.ok`` is False, the reward stays None, and ``--env.agent.retries`` can
retry it): a sandbox failure (`codegym.error.SandboxError`) as verifiers' ``SandboxError``;
a submission the task cannot grade (an ``IE`` grade: the task is broken, or its checker
failed on this output) as verifiers' ``TaskError``.

``mode="agent"`` (codegym's workspace tools) is not offered here: use verifiers' agent
harnesses on their own runtimes, or codegym's agent mode through TRL or verl.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import inspect
import io
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Literal

import gymnasium as gym
from pydantic import Field

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import DependencyNotInstalled, SandboxError
from codegym.grade import STATUSES, FeedbackLevel, Grade, Status
from codegym.task import Task as CodegymTaskSpec

try:
    import httpx
    import verifiers.v1 as vf  # pyright: ignore[reportMissingImports]
    from openai import APIConnectionError, APIStatusError, AsyncOpenAI  # pyright: ignore[reportMissingImports]
    from verifiers.v1.dialects.chat import message_to_wire  # pyright: ignore[reportMissingImports]
    from verifiers.v1.errors import MODEL_TRANSPORT_ERROR_EXIT_CODE  # pyright: ignore[reportMissingImports]
except ModuleNotFoundError as e:  # (verifiers brings openai and httpx)
    raise DependencyNotInstalled(
        "codegym.integrations.verifiers_env needs verifiers>=0.4: pip install 'codegym[verifiers]'"
    ) from e

logger = logging.getLogger(__name__)

__all__ = [
    "TASKSET_ID",
    "CodegymChatHarness",
    "CodegymChatHarnessConfig",
    "CodegymData",
    "CodegymEnv",
    "CodegymEnvConfig",
    "CodegymTask",
    "CodegymTaskset",
    "CodegymTasksetConfig",
    "Grader",
    "Grading",
    "load_environment",
    "remote_grader",
]

TASKSET_ID = "codegym_verifiers"
DEFAULT_ENV_ID = "codegym/PythonFunction-v0"
Mode = Literal["single", "refine"]

# verifiers resolves a taskset id by importing the module of that name: this alias makes the
# id resolve wherever this module is imported (a standalone `codegym_verifiers` module that
# re-exports it lets a fresh `vf-eval` process find it too).
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])

Grader = Callable[[str, str], "Grade | Awaitable[Grade]"]
"""Grades ``(task_id, answer)``: sync (run in a thread) or async. An infrastructure failure
raises `codegym.error.SandboxError`; it is never a grade."""


class Grading:
    """The codegym side of a taskset: the env (tasks, prompts, reward, when refinement is
    solved) and how a submission is graded: `codegym.Scorer` on the env's own executor, or
    an injected `Grader` (a remote scorer, say). Shared, never copied: tasks hold it.

    Args:
        env: The codegym env (made locally even when grading is remote: it holds the tasks).
        grader: Grades ``(task_id, answer)``; the env's `Scorer` when None.
    """

    def __init__(self, env: CodeEnv, grader: Grader | None = None) -> None:
        self.env = env
        self._grader = grader
        self._scorer = Scorer(env) if grader is None else None

    async def grade(self, task_id: str, answer: str) -> Grade:
        """The grade of ``answer``; raises verifiers' ``SandboxError`` when the sandbox failed
        and its ``TaskError`` when the task cannot grade it (an ``IE`` grade)."""
        try:
            grade = await self._grade(task_id, answer)
        except SandboxError as e:
            raise vf.SandboxError(f"codegym's sandbox failed grading {task_id}: {e}") from e
        if grade.status is Status.IE:
            raise vf.TaskError(f"{task_id} could not grade this submission (not the model's fault): {grade.message}")
        return grade

    async def _grade(self, task_id: str, answer: str) -> Grade:
        if self._scorer is not None:
            return await self._scorer.asubmit(task_id, answer)
        assert self._grader is not None
        if inspect.iscoroutinefunction(self._grader):
            return await self._grader(task_id, answer)
        result = await asyncio.to_thread(self._grader, task_id, answer)
        return await result if inspect.isawaitable(result) else result

    def __deepcopy__(self, memo: dict[int, Any]) -> Grading:  # (a service, shared by every copy of a task)
        return self


# Gradings made in this process, by the key of the taskset config that names them: a config
# reloaded by verifiers' runner finds the env it was made with (its executor, its task set).
_GRADINGS: dict[str, Grading] = {}


def _config_key(env_id: str, env_kwargs: dict[str, Any]) -> str:
    return json.dumps({"env_id": env_id, "env_kwargs": env_kwargs}, sort_keys=True, default=repr)


# --- the taskset ---------------------------------------------------------------------------


class CodegymTasksetConfig(vf.TasksetConfig):
    """Which codegym tasks, under ``--env.taskset.*``."""

    env_id: str = DEFAULT_ENV_ID
    """The registered codegym env, such as ``codegym/StdioProgram-v0``."""
    num_tasks: int | None = Field(None, ge=1)
    """Only the env's first ``num_tasks`` tasks (all when None)."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Passed to ``gym.make`` (``tasks``, ``language``, ``limits``...): JSON values only."""
    system: str | None = None
    """A system prompt for every task."""


class CodegymData(vf.TaskData):
    info: dict[str, str]
    """``env_id`` and ``task_id``: the codegym task this row poses."""


class CodegymTask(vf.Task[CodegymData, vf.State, vf.TaskConfig]):
    """One codegym task: graded once at ``finalize``, scored from that grade."""

    def __init__(self, data: CodegymData, config: vf.TaskConfig | None = None, grading: Grading | None = None) -> None:
        super().__init__(data, config)
        self._grading = grading

    @property
    def key(self) -> str:
        return f"{self.data.info['env_id']}:{self.data.info['task_id']}"

    @property
    def task_id(self) -> str:
        return self.data.info["task_id"]

    @property
    def grading(self) -> Grading:
        """The task's `Grading` (a task rebuilt from its data alone finds its env's)."""
        if self._grading is None:
            env_id = self.data.info["env_id"]
            found = [g for g in _GRADINGS.values() if g.env.spec is not None and g.env.spec.id == env_id]
            if not found:
                raise RuntimeError(f"no codegym env {env_id} was loaded in this process: load its taskset first")
            self._grading = found[-1]
        return self._grading

    async def finalize(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        """Grade the last reply (unless the refinement loop already graded that very reply)."""
        answer = trace.last_reply
        if trace.info.get("codegym", {}).get("answer_sha256") != _digest(answer):
            remember(trace, answer, await self.grading.grade(self.task_id, answer), self.grading.env)

    @vf.reward
    async def codegym_reward(self, trace: vf.Trace) -> float:
        """The env's reward for the graded reply, as its ``step`` gives it."""
        return float(_verdict(trace)["reward"])

    @vf.metric
    async def codegym_metrics(self, trace: vf.Trace) -> dict[str, float]:
        """Pass rate, correctness, test counts and status index of the graded reply."""
        verdict = _verdict(trace)
        metrics = {key: float(verdict[key]) for key in ("pass_rate", "correct", "tests_passed", "tests_total")}
        return {**metrics, "status": float(STATUSES.index(Status(verdict["status"])))}


def remember(trace: vf.Trace, answer: str, grade: Grade, env: CodeEnv) -> None:
    """Record ``grade`` of ``answer`` in ``trace.info["codegym"]`` (what the reward and
    metrics read, and what a reader of the traces sees)."""
    trace.info["codegym"] = {
        "status": grade.status.value,
        "message": grade.message,
        "reward": env.reward_of(grade),
        "reward_components": dict(env.reward_components(grade)),
        "pass_rate": grade.pass_rate,
        "correct": 1.0 if grade.solved else 0.0,
        "tests_passed": float(sum(t.passed for t in grade.tests)),
        "tests_total": float(len(grade.tests)),
        "answer_sha256": _digest(answer),
    }


def _verdict(trace: vf.Trace) -> dict[str, Any]:
    verdict = trace.info.get("codegym")
    if verdict is None:
        raise RuntimeError("the trace was not graded: CodegymTask.finalize did not run")
    return verdict


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class CodegymTaskset(vf.Taskset[CodegymTask, CodegymTasksetConfig]):
    """The tasks of one codegym env, in the env's order."""

    def __init__(self, config: CodegymTasksetConfig) -> None:
        super().__init__(config)
        self._grading: Grading | None = None

    @property
    def grading(self) -> Grading:
        """The env and grader: the one `load_environment` made for this config in this
        process, else a fresh env made from the config."""
        if self._grading is None:
            key = _config_key(self.config.env_id, self.config.env_kwargs)
            if key not in _GRADINGS:
                _GRADINGS[key] = Grading(make_code_env(self.config.env_id, self.config.env_kwargs))
            self._grading = _GRADINGS[key]
        return self._grading

    def load(self) -> Iterator[CodegymTask]:
        grading = self.grading
        env = grading.env
        tasks = list(env.tasks)[: self.config.num_tasks]
        env_id = self.config.env_id
        for task in tasks:
            data = CodegymData.model_validate({
                "id": task.id, "name": task.id, "prompt": task_prompt(env, task), "system_prompt": self.config.system,
                "info": {"env_id": env_id, "task_id": task.id},
            })  # fmt: skip
            yield CodegymTask(data, self.config.task, grading)


def task_prompt(env: CodeEnv, task: CodegymTaskSpec) -> str | list[vf.UserMessage]:
    """The prompt as the env renders it; with the pictures it refers to (a visual task's
    target), one user message of text and PNG image parts."""
    text = env.render_prompt(task)
    pictures = env.prompt_images(task)
    if not pictures:
        return text
    parts: list[Any] = [vf.TextContentPart(text=text)]
    parts += [vf.ImageUrlContentPart(image_url=vf.ImageUrlSource(url=_data_url(p))) for p in pictures]
    return [vf.UserMessage(content=parts)]


def _data_url(picture: Any) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(picture).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def make_code_env(env_id: str, env_kwargs: dict[str, Any]) -> CodeEnv:
    """The codegym env ``env_id`` made with ``env_kwargs`` (its own ``mode`` stays single:
    refinement is the verifiers env's loop)."""
    if "mode" in env_kwargs:
        raise ValueError("pass mode to load_environment (or --env.mode), not in env_kwargs")
    core = gym.make(env_id, **env_kwargs).unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError(f"{env_id} is not a codegym env (got {type(core).__name__})")
    return core


# --- the env -------------------------------------------------------------------------------


class CodegymEnvConfig(vf.EnvConfig):
    """The ``agent`` seat and how an episode goes, under ``--env.*``."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy's seat (the chat harness runs nothing, so a subprocess runtime is enough)."""
    mode: Mode = "single"
    """``single``: one reply, graded; ``refine``: the grade's feedback is the next user
    message, until solved or ``max_attempts`` replies were graded."""
    max_attempts: int = Field(4, ge=1)
    """Replies graded at most in ``refine`` mode."""
    feedback: FeedbackLevel = "full"
    """How much of a grade ``refine`` shows: ``status``, ``public`` or ``full`` (`Grade.feedback`)."""


class CodegymEnv(vf.Env[CodegymEnvConfig]):
    """One episode of a codegym task: one graded reply, or a refinement loop."""

    @property
    def grading(self) -> Grading:
        """The codegym env and grader of this env's taskset."""
        taskset = self.taskset
        if not isinstance(taskset, CodegymTaskset):
            raise TypeError(f"CodegymEnv plays a CodegymTaskset, got {type(taskset).__name__}")
        return taskset.grading

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        if self.config.mode == "single":
            await agents.agent.run(task)
            return
        if not isinstance(task, CodegymTask):
            raise TypeError(f"refine mode needs a CodegymTask, got {type(task).__name__}")
        await self._refine(task, agents.agent)

    async def _refine(self, task: CodegymTask, agent: vf.Agent) -> None:
        """Reply, grade, feed back, until solved or out of attempts (or the agent's own
        ``max_turns``). The task's scoring then reads the last grade."""
        grading = task.grading
        attempts = 0
        async with agent.interaction(task) as chat:
            segment = await chat.turn()
            while not segment.terminated:
                answer = segment.last_reply
                grade = await grading.grade(task.task_id, answer)
                remember(chat.trace, answer, grade, grading.env)
                attempts += 1
                if grading.env.refine_ends(grade) or attempts >= self.config.max_attempts:
                    break
                segment = await chat.turn(grade.feedback(self.config.feedback))
            chat.trace.record_metric("attempts", attempts)


# --- the chat harness ----------------------------------------------------------------------


class CodegymChatHarnessConfig(vf.HarnessConfig):
    """No knobs: one chat completion per segment."""


class CodegymChatHarness(vf.Harness[CodegymChatHarnessConfig]):
    """A tool-less chat loop in this process: each segment sends the conversation to the
    rollout's interception endpoint and takes one reply (the interception records it)."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [message_to_wire(message) for message in prompt or []]
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, timeout=httpx.Timeout(None, connect=5.0))
        try:
            # (wire dicts, as verifiers' own chat program sends them)
            await client.chat.completions.create(model=ctx.model, messages=messages)  # pyright: ignore[reportArgumentType]
        except APIConnectionError as e:  # (as verifiers' own chat program reports it)
            return vf.ProgramResult(exit_code=MODEL_TRANSPORT_ERROR_EXIT_CODE, stdout="", stderr=str(e))
        except APIStatusError as e:
            return vf.ProgramResult(exit_code=1, stdout="", stderr=f"the model call failed: {e}")
        finally:
            await client.close()
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


# --- the entry point -----------------------------------------------------------------------


def load_environment(
    env_id: str = DEFAULT_ENV_ID,
    *,
    mode: str = "single",
    num_tasks: int | None = None,
    max_attempts: int = 4,
    feedback: FeedbackLevel = "full",
    system_prompt: str | None = None,
    scorer: Grader | None = None,
    server: str | Sequence[str] | None = None,
    **env_kwargs: Any,
) -> CodegymEnv:
    """A verifiers env of the codegym env ``env_id``, built through ``vf.load_environment``.

    Args:
        env_id: A registered codegym env id.
        mode: ``"single"`` or ``"refine"`` (see `CodegymEnvConfig.mode`).
        num_tasks: Only the env's first ``num_tasks`` tasks.
        max_attempts: Replies graded at most in ``refine`` mode.
        feedback: How much of a grade ``refine`` shows (`Grade.feedback`'s ``level``).
        system_prompt: A system prompt for every task.
        scorer: Grades ``(task_id, answer)`` (`Grader`) instead of a `codegym.Scorer` on
            the env's executor: a remote scorer, for instance. The env is still made here,
            for its tasks, prompts and reward.
        server: Grade on ``codegym serve`` servers (a URL or a list), through
            ``codegym.score(..., server=...)``, one request per reply; the JSON
            ``env_kwargs`` go with it.
        **env_kwargs: Passed to ``gym.make``. Values that are not JSON (an executor, a
            `TaskSet`) work in this process but are left out of the config verifiers saves.

    Returns:
        The env; ``env.config`` is what verifiers' runner takes (``EvalConfig(env=...)``),
        and finds this env's grading again in this process.
    """
    if mode == "agent":
        raise ValueError(
            "mode='agent' is not offered for verifiers: its agent harnesses bring their own tools and runtimes. "
            "Use mode='single' or 'refine', or codegym's agent mode through codegym.integrations.trl or verl_agent"
        )
    if mode not in ("single", "refine"):
        raise ValueError(f"mode must be 'single' or 'refine', got {mode!r}")
    if scorer is not None and server is not None:
        raise ValueError("pass scorer or server, not both: server=URL is scorer=remote_grader(env_id, URL)")
    recorded = {key: value for key, value in env_kwargs.items() if _is_json(value)}
    if server is not None:
        scorer = remote_grader(env_id, server, recorded)
    _GRADINGS[_config_key(env_id, recorded)] = Grading(make_code_env(env_id, env_kwargs), scorer)
    taskset = CodegymTasksetConfig(
        id=TASKSET_ID, env_id=env_id, num_tasks=num_tasks, env_kwargs=recorded, system=system_prompt
    )
    config = CodegymEnvConfig.model_validate(
        {"taskset": taskset, "mode": mode, "max_attempts": max_attempts, "feedback": feedback}
    )
    env = vf.load_environment(config)
    assert isinstance(env, CodegymEnv)
    return env


def remote_grader(env_id: str, server: str | Sequence[str], env_kwargs: dict[str, Any]) -> Grader:
    """A `Grader` that grades on ``codegym serve`` servers through ``codegym.score``."""
    from codegym import batch

    def grade(task_id: str, answer: str) -> Grade:
        (graded,) = batch.score(env_id, [(task_id, answer)], server=server, **env_kwargs)
        return graded

    return grade


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
