"""A self-contained loop that plays one agent episode of a codegym env with any chat model.

    python examples/agent_loop.py --policy scripted --task-id codegym-py/004-digital-root
    python examples/agent_loop.py --policy openai --base-url http://localhost:8000/v1 --model Qwen/Qwen3-8B

The model is a callable ``chat(messages, tools) -> str | dict``: it gets the conversation so
far (OpenAI chat messages) and the env's tools (OpenAI function schemas), and returns the
assistant's reply, either as text (in which tool calls are written as ``<tool_call>`` JSON
blocks, OpenHands ``<function=...>`` blocks or a fenced ```bash block) or as an OpenAI-style
assistant message dict with ``tool_calls``. Whatever it returns is the env's action.

How the env's answer goes back into the conversation depends on how the model called:

- Structured ``tool_calls``: one ``role="tool"`` message per call, with the call's
  ``tool_call_id`` and ``name``, holding the tool's output (``info["tool_results"]``). Chat
  APIs require an answer to every call, so a malformed call gets the env's explanation of
  what was wrong, and ``submit`` gets the grade.
- Text: the env's rendered ``obs["feedback"]`` as one ``role="user"`` message. Tool messages
  would have no ``tool_calls`` to answer (the ids the env gives text calls, ``call_0``...,
  restart every turn), which chat APIs reject; a user message fits every API and template.

The episode ends when the env terminates it (``submit``), truncates it (a budget ran out, or
the sandbox failed), or after ``max_turns`` model replies. Three policies come with the
script: ``scripted`` plays a fixed sequence of tool calls that writes the task's reference
solution (a cheat, for demonstration only: it shows a whole episode without a model),
``stub`` submits the untouched stub, and ``openai`` calls any OpenAI-compatible chat
completions endpoint (the API key is read from ``OPENAI_API_KEY``, if set).
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401  (registers the envs)

Message = dict[str, Any]
Chat = Callable[[list[Message], list[Message]], str | Message]

SYSTEM_PROMPT = (
    "You are a programmer working in a sandboxed workspace. Use the tools to read the task, edit files and run "
    "the tests, then call submit."
)


@dataclass
class Args:
    env_id: str = "codegym/PythonFunction-v0"
    task_id: str = ""  # empty: a task drawn with the seed
    seed: int = 0
    policy: str = "scripted"  # scripted | stub | openai
    max_turns: int = 20
    base_url: str = "http://localhost:8000/v1"
    model: str = ""
    temperature: float = 0.0


@dataclass
class Trajectory:
    messages: list[Message]  # system, user, then assistant turns and what the env answered
    rewards: list[float]  # one per model turn
    info: dict[str, Any]  # the last step's info (grade, reward_components, truncated_by, ...)
    terminated: bool  # submitted and graded
    truncated: bool  # a budget ran out, the sandbox failed, or max_turns was reached


# --- policies ------------------------------------------------------------------------------


def call(name: str, call_id: str, **arguments: Any) -> Message:
    """One tool call in the OpenAI form (``arguments`` as a JSON string, as the API sends it)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def scripted_policy(env: gym.Env) -> Chat:
    """A fixed tool sequence that solves the task. CHEAT, for demonstration only: it copies the
    reference solution out of the env instead of writing one."""

    def chat(messages: list[Message], tools: list[Message]) -> Message:
        task = env.unwrapped.task
        if not task.reference:
            raise ValueError(f"the scripted policy copies the reference solution, and {task.id} has none")
        path = env.unwrapped.agent_setup(task).submission
        turn = sum(message["role"] == "assistant" for message in messages)
        plan = [
            call("bash", f"call_{turn}", command="ls && cat TASK.md"),
            call("str_replace_editor", f"call_{turn}", command="view", path=path),
            call("str_replace_editor", f"call_{turn}", command="create", path=path, file_text=task.reference),
            call("bash", f"call_{turn}", command="./run_tests"),
            call("submit", f"call_{turn}"),
        ]
        return {"role": "assistant", "content": None, "tool_calls": [plan[min(turn, len(plan) - 1)]]}

    return chat


def stub_policy(messages: list[Message], tools: list[Message]) -> str:
    """Submits the stub as it is, writing the call as text (Hermes style)."""
    return 'Submitting as it is.\n<tool_call>{"name": "submit", "arguments": {}}</tool_call>'


def openai_chat(base_url: str, model: str, temperature: float = 0.0, timeout_s: float = 300.0) -> Chat:
    """A chat callable backed by an OpenAI-compatible ``/chat/completions`` endpoint (stdlib only)."""
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"

    def chat(messages: list[Message], tools: list[Message]) -> Message:
        body = {"model": model, "messages": messages, "tools": tools, "temperature": temperature}
        request = urllib.request.Request(
            f"{base_url.rstrip('/')}/chat/completions", data=json.dumps(body).encode(), headers=headers
        )
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.load(response)["choices"][0]["message"]

    return chat


# --- the loop ------------------------------------------------------------------------------


def tool_messages(calls: list[Message], observation: dict[str, Any], info: dict[str, Any]) -> list[Message]:
    """One ``role="tool"`` message per structured call, matched by ``tool_call_id``: the call's
    output; for a malformed call, the env's explanation; for ``submit``, the grade; for a call
    left unrun because the episode ended, why it ended."""
    results = {result["tool_call_id"]: result for result in info["tool_results"]}
    paragraphs = observation["feedback"].split("\n\n")
    messages = []
    for tool_call in calls:
        call_id = tool_call["id"]
        heads = (f"[format error] Tool call {call_id} ", f"[format error] Tool call {call_id}:")
        errors = [paragraph for paragraph in paragraphs if paragraph.startswith(heads)]
        if call_id in results:
            result = results[call_id]
            exit_code = result["exit_code"]
            status = "" if exit_code == 0 else "\n[killed]" if exit_code is None else f"\n[exit code {exit_code}]"
            content = (result["content"] or "(no output)") + status
        elif errors:
            content = errors[0]
        elif "grade" in info:
            content = info["grade"].feedback()
        else:
            content = paragraphs[-1]
        name = tool_call.get("function", tool_call).get("name")
        messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})
    return messages


def compact(message: Message, width: int = 110) -> str:
    """One line of the transcript."""
    role = message["role"]
    text = message.get("content") or ""
    for tool_call in message.get("tool_calls") or ():
        function = tool_call.get("function", tool_call)
        arguments = function.get("arguments", {})
        text += f" {function.get('name')}({arguments if isinstance(arguments, str) else json.dumps(arguments)})"
    tag = f"tool {message['tool_call_id']}" if role == "tool" else role
    text = " ".join(text.split())
    return f"{tag:>14} | {text[:width]}{'...' if len(text) > width else ''}"


def run_episode(env: gym.Env, chat: Chat, *, seed: int, task_id: str = "", max_turns: int = 20) -> Trajectory:
    observation, info = env.reset(seed=seed, options={"task_id": task_id} if task_id else None)
    tools = info["tools"]
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": observation["prompt"]}]
    for message in messages:
        print(compact(message))
    rewards: list[float] = []
    terminated = truncated = False
    for turn in range(max_turns):
        reply = chat(messages, tools)
        if isinstance(reply, dict) and reply.get("tool_calls"):
            # Give every call an id (the API always does; a hand-written reply may not), so that
            # the env's results and the tool messages name the same calls.
            calls = [{**c, "id": c.get("id") or f"call_{turn}_{i}"} for i, c in enumerate(reply["tool_calls"])]
            new = [{"role": "assistant", "content": reply.get("content"), "tool_calls": calls}]
            observation, reward, terminated, truncated, info = env.step(calls)
            new += tool_messages(calls, observation, info)
        else:
            text = (reply.get("content") or "") if isinstance(reply, dict) else reply
            if not isinstance(text, str):
                raise TypeError(f"chat must return a str or an assistant message dict, got {type(reply).__name__}")
            observation, reward, terminated, truncated, info = env.step(text)
            new = [{"role": "assistant", "content": text}, {"role": "user", "content": observation["feedback"]}]
        for message in new:
            print(compact(message))
        messages += new
        rewards.append(float(reward))
        if terminated or truncated:
            break
    else:
        truncated = True  # out of turns; the env's episode is dropped with the env
    print(f"reward {rewards[-1] if rewards else 0.0}  turns {len(rewards)}  status {info.get('status', '-')}")
    return Trajectory(messages, rewards, info, terminated, truncated)


def make_chat(args: Args, env: gym.Env) -> Chat:
    if args.policy == "scripted":
        return scripted_policy(env)
    if args.policy == "stub":
        return stub_policy
    if args.policy == "openai":
        if not args.model:
            raise ValueError("--policy openai needs --model (and --base-url unless the default fits)")
        return openai_chat(args.base_url, args.model, args.temperature)
    raise ValueError(f"--policy must be scripted, stub or openai, got {args.policy!r}")


def main(args: Args, chat: Chat | None = None) -> Trajectory:
    """Play one episode with ``chat``, or with the policy ``args`` names when it is None."""
    env = gym.make(args.env_id, mode="agent")
    try:
        chat = chat or make_chat(args, env)
        return run_episode(env, chat, seed=args.seed, task_id=args.task_id, max_turns=args.max_turns)
    finally:
        env.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field, default in vars(Args()).items():
        parser.add_argument(f"--{field.replace('_', '-')}", type=type(default), default=default)
    main(Args(**vars(parser.parse_args())))
