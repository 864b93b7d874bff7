"""A recorded episode as a conversation: its steps as chat turns and OpenAI chat messages.

The first user message is the reset's prompt; each step is the assistant's message (its
``content`` the model's text as given, calls written in it as text included; its
``tool_calls`` the calls the env parsed from it), a ``tool`` message per call's result, and what
the env said besides (malformed calls, the grade's feedback) as a ``user`` message where
another step follows. `steps_from_messages` and `feedback_for` are the way back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from codegym.grade import Grade
from codegym.serve.wire import decode, encode


@dataclass(frozen=True)
class Turn:
    """One env step as a chat turn.

    Attributes:
        text: What the model wrote (its action as text; "" for calls given as objects).
        calls: The well-formed calls the env found, ``{"id", "name", "arguments"}``.
        results: Their results as ``info["tool_results"]`` holds them.
        said: What the env said besides the results: malformed calls, the grade's feedback.
        step: The recorded step.
    """

    text: str
    calls: tuple[Mapping[str, Any], ...]
    results: tuple[Mapping[str, Any], ...]
    said: str
    step: Mapping[str, Any]


def turns(episode: Mapping[str, Any]) -> list[Turn]:
    """The episode's steps as chat turns."""
    return [_turn(step) for step in episode["steps"]]


def prompt_of(episode: Mapping[str, Any]) -> str:
    """The first user message: the reset's prompt, and the earlier attempts it resumes after."""
    observation = episode["reset"]["observation"]
    prompt = str(observation.get("prompt", "")) if isinstance(observation, Mapping) else ""
    history = str(observation.get("feedback", "")) if isinstance(observation, Mapping) else ""
    return f"{prompt}\n\n{history}" if history else prompt


def final_step(episode: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The last step that graded a submission (its info holds the grade and the code)."""
    done = [step for step in episode["steps"] if graded(step["info"])]
    return done[-1] if done else None


def to_messages(episode: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The episode as OpenAI chat messages: the prompt, then per step the assistant's message
    (with ``tool_calls``), a ``tool`` message per result, and what the env said (a ``user``
    message) where another step follows."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt_of(episode)}]
    every = turns(episode)
    for index, turn in enumerate(every):
        assistant: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.calls:
            assistant["tool_calls"] = [openai_call(call) for call in turn.calls]
        messages.append(assistant)
        messages.extend(
            {"role": "tool", "tool_call_id": result["tool_call_id"], "content": result["content"]}
            for result in turn.results
        )
        if turn.said and index < len(every) - 1:
            messages.append({"role": "user", "content": turn.said})
    return messages


def _turn(step: Mapping[str, Any]) -> Turn:
    action = step["action"]
    if isinstance(action, str):
        text = action
    elif isinstance(action, Mapping) and isinstance(action.get("content"), str):  # (an assistant message)
        text = action["content"]
    else:
        text = ""
    calls = tuple(call for call in step.get("tool_calls") or () if "error" not in call)
    info = step["info"]
    results = tuple(info.get("tool_results") or ())
    return Turn(text, calls, results, _said(step), step)


def _said(step: Mapping[str, Any]) -> str:
    """What the env said in ``step`` besides its tool results: the observation's feedback with
    the results' renderings taken out (the env writes malformed calls, then results, then the
    rest)."""
    observation = step["observation"]
    feedback = str(observation.get("feedback", "")) if isinstance(observation, Mapping) else ""
    info = step["info"]
    if "tool_results" not in info:
        return feedback
    errors = [f"[format error] {message}" for message in info.get("format_error_messages") or ()]
    prefix = "\n\n".join(errors + [_render(result) for result in info["tool_results"]])
    rest = feedback[len(prefix) :].lstrip("\n") if feedback.startswith(prefix) else feedback
    return "\n\n".join(text for text in (*errors, rest) if text)


def _render(result: Mapping[str, Any]) -> str:
    """A tool result as the model read it (`codegym.agent.ToolResult.render`)."""
    from codegym.agent import ToolResult

    exit_code = result.get("exit_code")
    return ToolResult(
        str(result.get("tool_call_id")),
        str(result.get("name")),
        str(result.get("content") or ""),
        exit_code if isinstance(exit_code, int) else None,
        bool(result.get("truncated")),
        float(result.get("elapsed_s") or 0.0),
    ).render()


def openai_call(call: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded call (``{"id", "name", "arguments"}``) in OpenAI's shape: ``{"id", "type":
    "function", "function": {"name", "arguments": "<JSON>"}}``."""
    return {
        "id": call["id"],
        "type": "function",
        "function": {"name": call["name"], "arguments": json.dumps(encode(call["arguments"]))},
    }


def feedback_for(info: Mapping[str, Any], said: str) -> str:
    """The observation's feedback of a step with ``info`` in which the env said ``said``
    besides its tool results (what `Turn.said` reads back)."""
    if "tool_results" not in info:
        return said
    errors = [f"[format error] {message}" for message in info.get("format_error_messages") or ()]
    prefix = "\n\n".join(errors)
    rest = said[len(prefix) :].lstrip("\n") if said.startswith(prefix) else said
    return "\n\n".join(text for text in (*errors, *(_render(r) for r in info["tool_results"]), rest) if text)


def steps_from_messages(messages: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Recorded steps from the messages after the prompt: one per assistant message, with the
    ``tool`` messages after it as its calls' results and a ``user`` message as what the env
    said (`to_messages` of the steps gives the messages back)."""
    steps: list[dict[str, Any]] = []
    said: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            steps.append(_step_of(message))
            said.append("")
        elif steps and role == "tool":
            _add_result(steps[-1], message)
        elif steps:
            said[-1] = text_of(message)
    for step, text in zip(steps, said, strict=True):
        step["observation"] = {"feedback": feedback_for(step["info"], text)}
    return steps


def _step_of(message: Mapping[str, Any]) -> dict[str, Any]:
    """The step an assistant message was (its text, else its calls, as the action)."""
    calls = [_call_from_openai(call) for call in message.get("tool_calls") or ()]
    step: dict[str, Any] = {"action": text_of(message) or list(message.get("tool_calls") or [])}
    if calls:
        step["tool_calls"] = calls
    step.update(observation={}, reward=0.0, terminated=False, truncated=False, seconds=None,
                info={"tool_results": [], "tool_calls": calls} if calls else {})  # fmt: skip
    return step


def _add_result(step: dict[str, Any], message: Mapping[str, Any]) -> None:
    """A ``tool`` message as the result of one of ``step``'s calls (what a message does not
    say, its exit status and time, reads as a call that exited 0 at once)."""
    names = {call["id"]: call["name"] for call in step.get("tool_calls") or ()}
    call_id = message.get("tool_call_id")
    result = {"tool_call_id": call_id, "name": names.get(call_id, ""), "content": text_of(message),
              "exit_code": 0, "truncated": False, "elapsed_s": 0.0}  # fmt: skip
    step["info"].setdefault("tool_results", []).append(result)


def _call_from_openai(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            arguments = {"__unparsed__": arguments}
    return {"id": call.get("id"), "name": function.get("name"), "arguments": decode(arguments)}


def text_of(message: Mapping[str, Any]) -> str:
    """A message's text (the text parts of a list of parts, joined)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


def graded(info: Mapping[str, Any]) -> bool:
    """Whether a step graded a submission (its info holds the grade and the code graded)."""
    return isinstance(info.get("grade"), Grade) and isinstance(info.get("code"), str)


def solved_by(final: Mapping[str, Any] | None) -> bool:
    """Whether the final graded step (`final_step`) solved the task (`codegym.grade.Grade.solved`)."""
    if final is None:
        return False
    grade: Grade = final["info"]["grade"]
    return grade.solved if grade.solved is not None else grade.passed


def status_of(final: Mapping[str, Any] | None) -> str | None:
    """The final graded step's status (``"OK"``, ``"WA"``, ...), None without one."""
    return final["info"]["grade"].status.value if final else None
