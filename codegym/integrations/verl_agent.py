"""verl: codegym's agent episodes as a verl agent loop, `CodegymAgentLoop`.

Importing this module needs verl. It registers the loop in verl's agent-loop registry as
``"codegym_agent"`` for this process; verl's rollout workers, separate Ray processes, find it
through an agent-loop config file (`codegym.integrations.verl.write_agent_loop_config`), and
the rows that name it come from `codegym.integrations.verl.rows` with ``agent_name``.

One rollout is one episode of the row's env in ``mode="agent"``: the row's prompt and the
env's tool schemas are rendered with the tokenizer's chat template, then the model and the
env take turns (the model writes tool calls, the env runs them, and their results come back
as ``tool`` messages) until the model calls ``submit``, a budget of the env ends the episode,
or one of verl's limits does (``rollout.response_length``,
``rollout.multi_turn.max_assistant_turns`` / ``max_user_turns``). The rollout's
``reward_score`` is the episode's return: the graded submission's reward, or 0.0 when the
model never submitted. verl then calls no reward function for it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar
from uuid import uuid4

import gymnasium as gym

from codegym.agent import ToolResult
from codegym.core import CodeEnv
from codegym.episodes.record import RecordEpisodes
from codegym.error import DependencyNotInstalled, SandboxError

try:
    from omegaconf import DictConfig, OmegaConf  # pyright: ignore[reportMissingImports]
    from verl.experimental.agent_loop.agent_loop import (  # pyright: ignore[reportMissingImports]
        AgentLoopBase,
        AgentLoopMetrics,
        AgentLoopOutput,
        register,
    )
    from verl.utils.profiler import simple_timer  # pyright: ignore[reportMissingImports]
    from verl.utils.rollout_trace import rollout_trace_op  # pyright: ignore[reportMissingImports]
except ModuleNotFoundError as e:
    raise DependencyNotInstalled(
        f"codegym's verl agent loop needs verl (pip install verl); importing it failed: {e}"
    ) from e

__all__ = ["AGENT_NAME", "HARNESS_NAME", "CodegymAgentLoop", "CodegymHarnessLoop", "register"]

_T = TypeVar("_T")

AGENT_NAME = "codegym_agent"
HARNESS_NAME = "codegym_harness"
ENV_THREADS = 256  # env calls at once, in a process (each waits on a sandbox, not on the CPU)
_env_threads = ThreadPoolExecutor(ENV_THREADS, thread_name_prefix="codegym-env")


async def _in_thread(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    return await asyncio.get_running_loop().run_in_executor(_env_threads, partial(function, *args, **kwargs))


@dataclass
class _Rollout:
    """What one rollout has built so far."""

    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    token_ids: list[int]  # the prompt, then the response so far
    mask: list[int] = field(default_factory=list)  # one per response token: 1 for the model's
    logprobs: list[float] | None = None  # one per response token, once the server gives them
    model_turns: int = 0
    feedback_turns: int = 0
    rewards: list[float] = field(default_factory=list)  # the env's, one per step
    info: dict[str, Any] = field(default_factory=dict)  # the last step's
    ended_by: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    server_fields: dict[str, Any] = field(default_factory=dict)
    generation: dict[str, Any] = field(default_factory=dict)  # the last turn's tokens (and logprobs), for a recorder


class CodegymAgentLoop(AgentLoopBase):
    """A verl agent loop whose rollouts are episodes of a codegym env in ``mode="agent"``.

    ``run`` reads the env from the row (``data_source``: the env id;
    ``extra_info["env_kwargs"]``: its keyword arguments, as JSON; ``reward_model.ground_truth``:
    the task id), opens one env for the rollout and closes it at the end. Each turn:

    1. the server generates from the whole conversation's tokens, within what is left of
       ``rollout.response_length``; its tokens are kept as they are (mask 1, with their
       logprobs when the server gives them);
    2. their text (special tokens left out) is the env's action: ``env.step`` runs the tool
       calls in it, in order, each in the episode's sandboxed workspace;
    3. unless the episode ended, one ``tool`` message per format error and per tool result
       (the env's own rendering of it, so together they are the step's ``feedback``) is
       rendered through the chat template and appended (mask 0).

    The rollout ends on the model's last tokens: the env's reply to the final turn (the grade,
    or why the episode ended) is not appended, and neither is feedback that would leave no
    room for another turn.

    An infrastructure failure (the sandbox lost the workspace, or could not grade) is never a
    score, and verl cannot leave one rollout out of a batch (a ``reward_score`` of None makes
    verl score the rollout with its reward function instead), so ``run`` raises
    `codegym.error.SandboxError` and the training step fails.

    ``AgentLoopOutput.extra_fields`` holds, besides verl's ``turn_scores`` (the env's reward
    of every step) and ``tool_rewards`` (none): ``codegym_task_id``, ``codegym_status`` (the
    grade's status, None without one), ``codegym_ended_by`` (``"submit"``, the env's budget
    that ran out: ``"calls"``, ``"wall"``, ``"disk"``, or verl's limit:
    ``"response_length"``, ``"max_turns"``) and ``codegym_calls`` (tool calls made).

    The env's calls block on the sandbox, so they run in threads of their own
    (`ENV_THREADS` at most), not in the event loop's default pool, which verl's tokenization
    uses.

    Args:
        *args: What verl passes every agent loop (`AgentLoopBase`).
        env_kwargs: Keyword arguments of every rollout's env (an executor, budgets...); a
            row's own ``env_kwargs`` win, and ``mode`` is always ``"agent"``.
        record: Append every rollout's episode to this JSON-lines file
            (`codegym.episodes.RecordEpisodes`), each step with the token ids the server
            generated for it and their log-probs (when it gives them); an episode verl's
            limits end is written ``"open"``. verl's rollout workers, one process each,
            append to the same file: a path they all reach.
        **kwargs: What verl passes every agent loop, and the other keys of the loop's entry
            in the agent-loop config file.
    """

    mode = "agent"  # (the envs' mode: a subclass drives harness episodes)

    def __init__(
        self, *args: Any, env_kwargs: Mapping[str, Any] | None = None, record: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(env_kwargs, DictConfig):  # (from the agent-loop config file)
            env_kwargs = OmegaConf.to_container(env_kwargs, resolve=True)  # type: ignore[assignment]
        self.env_kwargs: dict[str, Any] = dict(env_kwargs or {})
        self.record = None if record is None else str(record)
        self.response_length = int(self.rollout_config.response_length)
        multi_turn = self.rollout_config.get("multi_turn") or {}
        self.max_model_turns: int | None = multi_turn.get("max_assistant_turns") or None
        self.max_feedback_turns: int | None = multi_turn.get("max_user_turns") or None

    def make_env(self, row: Mapping[str, Any]) -> gym.Env:
        """The env of ``row`` (`rows` conventions), in the loop's `mode`."""
        extra = row.get("extra_info") or {}
        kwargs = {**self.env_kwargs, **_json_object(extra.get("env_kwargs")), "mode": self.mode}
        env = gym.make(str(row["data_source"]), **kwargs)
        if not isinstance(env.unwrapped, CodeEnv):
            env.close()
            raise TypeError(f"{row['data_source']} is not a codegym env")
        return RecordEpisodes(env, self.record) if self.record is not None else env

    @rollout_trace_op
    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """One episode; ``kwargs`` are the row's fields, as verl's dataset gives them."""
        env = await _in_thread(self.make_env, kwargs)
        try:
            return await self._episode(env, sampling_params, kwargs)
        finally:
            await _in_thread(env.close)

    async def _episode(self, env: gym.Env, sampling_params: dict[str, Any], row: Mapping[str, Any]) -> AgentLoopOutput:
        task_id = str(row["reward_model"]["ground_truth"])
        observation, info = await _in_thread(env.reset, options={"task_id": task_id})
        messages, tools = self.opening(row, observation, info)
        prompt_ids = await self.ct_build_initial_tokens(messages, tools=tools)
        rollout = _Rollout(tools=tools, messages=messages, token_ids=list(prompt_ids))
        priority = int(row.get("priority", 0))
        determinism = bool(self.rollout_config.get("full_determinism", False))
        request_id = f"det-{priority}" if determinism else uuid4().hex  # (one per rollout: prefix caching)
        while not rollout.ended_by:
            text = await self._generate(rollout, sampling_params, request_id, priority)
            await self._step(env, rollout, text, task_id)
        return self._output(rollout, task_id)

    async def _generate(
        self, rollout: _Rollout, sampling_params: dict[str, Any], request_id: str, priority: int
    ) -> str:
        """One model turn, appended to ``rollout``; returns its text."""
        budget = self.response_length - len(rollout.mask)
        params = {**sampling_params, "max_tokens": min(int(sampling_params.get("max_tokens") or budget), budget)}
        with simple_timer("generate_sequences", rollout.metrics):
            output = await self.server_manager.generate(
                request_id=request_id, prompt_ids=rollout.token_ids, sampling_params=params, priority=priority
            )
        if output.num_preempted is not None:  # (verl's -1: not reported)
            rollout.metrics["num_preempted"] = max(rollout.metrics.get("num_preempted", 0), 0) + output.num_preempted
        else:
            rollout.metrics.setdefault("num_preempted", -1)
        _keep_server_fields(rollout.server_fields, output.extra_fields)
        tokens = list(output.token_ids)
        logprobs = list(output.log_probs) if output.log_probs else None
        rollout.generation = {"token_ids": tokens, **({"logprobs": logprobs} if logprobs is not None else {})}
        if logprobs is not None and rollout.logprobs is None:
            rollout.logprobs = [0.0] * len(rollout.mask)
        if logprobs is None and rollout.logprobs is not None:
            logprobs = [0.0] * len(tokens)  # (a turn the server gave none for)
        merged, rollout.mask, rollout.logprobs = await self.ct_merge_assistant_token(
            rollout.token_ids, tokens, rollout.mask, rollout.logprobs, assistant_logprobs=logprobs
        )
        rollout.token_ids = merged.token_ids
        rollout.model_turns += 1
        tokenizer: Any = self.tokenizer  # (verl annotates it as AutoTokenizer)
        text = tokenizer.decode(tokens, skip_special_tokens=True)
        rollout.messages.append({"role": "assistant", "content": text})
        return text

    async def _step(self, env: gym.Env, rollout: _Rollout, text: str, task_id: str) -> None:
        """Run the turn's calls; then end the rollout, or append the env's feedback."""
        if isinstance(env, RecordEpisodes):
            env.note(**rollout.generation)
        with simple_timer("tool_calls", rollout.metrics):
            _, reward, terminated, truncated, info = await _in_thread(env.step, text)
        rollout.rewards.append(float(reward))
        rollout.info = info
        if "infra_error" in info:
            raise SandboxError(
                f"the agent episode of {task_id} lost its sandbox: {info['infra_error']}. An infrastructure failure "
                "is never a score, and verl cannot leave one rollout out of a batch (it scores a rollout without "
                "reward_score with its reward function), so the step fails; fix the sandbox and rerun"
            )
        if terminated or truncated:
            rollout.ended_by = self.ending(info, terminated)
        elif len(rollout.mask) >= self.response_length:
            rollout.ended_by = "response_length"
        elif _reached(rollout.model_turns, self.max_model_turns) or _reached(
            rollout.feedback_turns, self.max_feedback_turns
        ):
            rollout.ended_by = "max_turns"
        else:
            await self._append_feedback(rollout, self.feedback(info))

    def opening(
        self, row: Mapping[str, Any], observation: Mapping[str, Any], info: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The prompt's messages and tools, once the env is reset: the row's prompt, the env's tools."""
        return [dict(message) for message in row["raw_prompt"]], list(info["tools"])

    def ending(self, info: Mapping[str, Any], terminated: bool) -> str:
        """``codegym_ended_by`` of an episode the env ended."""
        return "submit" if terminated else str(info.get("truncated_by", "truncated"))

    def feedback(self, info: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The step's feedback, as the messages the chat template renders after the model's turn."""
        return _feedback_messages(info)

    async def _append_feedback(self, rollout: _Rollout, feedback: list[dict[str, Any]]) -> None:
        merged, mask, logprobs = await self.ct_merge_context_msg(
            rollout.messages,
            rollout.messages + feedback,
            rollout.token_ids,
            rollout.mask,
            rollout.logprobs,
            tools=rollout.tools,
        )
        if len(mask) >= self.response_length:
            rollout.ended_by = "response_length"
            return
        rollout.messages += feedback
        rollout.token_ids, rollout.mask, rollout.logprobs = merged.token_ids, mask, logprobs
        rollout.feedback_turns += 1

    def _output(self, rollout: _Rollout, task_id: str) -> AgentLoopOutput:
        size = len(rollout.mask)
        split = len(rollout.token_ids) - size
        limit = self.response_length
        extra = {
            **rollout.server_fields,
            "turn_scores": rollout.rewards,
            "tool_rewards": [],
            "codegym_task_id": task_id,
            "codegym_status": rollout.info.get("status"),
            "codegym_ended_by": rollout.ended_by,
            "codegym_calls": int(rollout.info.get("calls", 0)),
        }
        return AgentLoopOutput(
            prompt_ids=rollout.token_ids[:split],
            response_ids=rollout.token_ids[split:][:limit],
            response_mask=rollout.mask[:limit],
            response_logprobs=rollout.logprobs[:limit] if rollout.logprobs is not None else None,
            reward_score=sum(rollout.rewards),
            num_turns=1 + rollout.model_turns + rollout.feedback_turns,  # (1: the prompt, as verl counts)
            metrics=AgentLoopMetrics(**rollout.metrics),
            extra_fields=extra,
        )


class CodegymHarnessLoop(CodegymAgentLoop):
    """A verl agent loop whose rollouts are harness episodes (``mode="harness"``): a real agent
    program (``harness=`` in the loop's or the row's env kwargs: ``{"program": "codex"}``) runs
    in the episode's machine, and the model being trained answers its requests.

    The prompt is the program's first request (its messages and tools, as the program sent them,
    through the chat template). Each turn, as in `CodegymAgentLoop`, the server's tokens are
    kept as they are (mask 1); their text is the reply (the tool calls in it, in the template's
    format, are checked against the program's tools); the messages the program's next request
    adds after the model's turn (its tool results, its notes) are appended (mask 0). The rollout
    ends when the program does (``codegym_ended_by``: its `ProgramEnd` status; ``reward_score``:
    the grade's reward) or at one of verl's limits (the program is then stopped, ungraded: 0, as
    an agent-mode rollout that never submitted). A program that ends before asking anything is
    a rollout of one turn whose answer goes nowhere: its grade is the machine's, untouched.
    """

    mode = "harness"

    def opening(
        self, row: Mapping[str, Any], observation: Mapping[str, Any], info: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The program's first request (or, where it asked nothing, the task as one message)."""
        request = info.get("request") or {"messages": [{"role": "user", "content": observation["prompt"]}], "tools": []}
        return [dict(m) for m in request["messages"]], [dict(t) for t in request["tools"]]

    def ending(self, info: Mapping[str, Any], terminated: bool) -> str:
        return str(info.get("harness_status") or ("exited" if terminated else "truncated"))

    def feedback(self, info: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What the program's new request holds after the model's last turn."""
        from codegym.harness.mode import since_last_reply

        return [dict(message) for message in since_last_reply((info.get("request") or {}).get("messages") or ())]


# (registered here, not with @register: a decorator verl leaves untyped would hide the classes from pyright)
register(AGENT_NAME)(CodegymAgentLoop)
register(HARNESS_NAME)(CodegymHarnessLoop)


def _feedback_messages(info: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The step's feedback as ``tool`` messages, in the env's order: format errors, then results."""
    messages = [{"role": "tool", "content": f"[format error] {error}"} for error in info["format_error_messages"]]
    for result in info["tool_results"]:
        rendered = ToolResult(**result).render()
        messages.append(
            {"role": "tool", "tool_call_id": result["tool_call_id"], "name": result["name"], "content": rendered}
        )
    return messages


def _keep_server_fields(kept: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """The server's extra fields of the first turn, with the weights version of the last."""
    for key, value in fields.items():
        kept.setdefault(key, value)
    if fields.get("max_global_steps") is not None:
        kept["max_global_steps"] = fields["max_global_steps"]


def _reached(count: int, limit: int | None) -> bool:
    return limit is not None and count >= limit


def _json_object(text: Any) -> dict[str, Any]:
    if not text:
        return {}
    value = json.loads(text) if isinstance(text, str) else dict(text)
    if not isinstance(value, dict):
        raise TypeError(f"extra_info['env_kwargs'] must be a JSON object, got {text!r}")
    return value
