"""Recorded episodes as traces of ``verifiers.v1``, the current API of PrimeIntellect's
``verifiers`` (0.4): JSON its ``verifiers.v1.trace.Trace`` model validates, one a line as its
``traces.jsonl`` holds them.

`to_verifiers_trace` writes, and `episode_from_verifiers_trace` reads back:

- ``task``: a ``TraceTask`` as `codegym.integrations.verifiers_env` writes one: ``type``
  ``"CodegymTask"``, ``data`` with the task's ``id`` and ``name``, the ``prompt`` and ``info``
  (``env_id``, ``task_id``), ``key`` ``"<env_id>:<task_id>"``;
- ``nodes``: the conversation as message nodes, each linked to the one before by ``parent``
  (one branch): the prompt (a ``user`` node carrying the ``tools``), then per step the
  assistant's message (``sampled``, its ``tool_calls`` with JSON ``arguments``), a ``tool``
  node per result and what the env said besides as a ``user`` node where another step follows
  (as `codegym.episodes.to_messages`). A trainer's noted ``token_ids`` are the assistant
  node's ``token_ids`` (all ``mask``-ed in: the model sampled them) with its ``logprobs``;
  the prompt's tokens are not split over the input nodes (a prompt's ``prompt_token_ids``
  count in the call's ``usage`` and stay in the step's record);
- ``calls``: one model call per assistant node (its ``model``, the noted sampler settings as
  ``sampling``);
- ``tools``: the function tools offered, in verifiers' flat shape;
- ``rewards``: ``codegym_reward``, the episode's return (``Trace.reward``); ``metrics``: the
  final grade's ``pass_rate``, ``correct``, ``tests_passed``, ``tests_total`` and ``status``
  (its index in `codegym.grade.STATUSES`), None without a grade, and ``steps``;
- ``info``: ``env_id``, ``task_id`` and ``episode`` (codegym's ids), ``grade`` (the final
  grade's wire JSON, its artifacts left out) and ``submission``, the verdict in
  ``info["codegym"]`` as the integration records it, and in ``info["record"]`` what the way
  back needs: what made the env (`codegym.episodes.export.episode_about`) and each step's
  reward, flags, grade and info (`codegym.episodes.export.step_extra`);
- ``is_completed``, ``ok``, ``stop_condition``, ``errors``: how the episode ended.
  ``terminated`` stops as ``"terminated"``; a truncation as ``"max_turns"`` (the step limit,
  which ``Trace.is_truncated`` counts) or ``"<budget>_budget"`` (a tool budget ran out:
  ``calls``, ``wall``, ``disk``); a sandbox failure as ``"sandbox_error"`` with the error,
  ``ok`` False. An episode left ``"open"`` or ``"abandoned"`` is not completed.
- ``timing``: the reset as ``setup``, the steps as ``agent``; node timestamps follow the
  recorded wall times.

Nothing here imports ``verifiers``: the export is plain JSON, checked against the library's
own model in the tests.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from codegym.episodes.chat import (
    final_step,
    openai_call,
    prompt_of,
    solved_by,
    text_of,
    turns,
)
from codegym.episodes.export import (
    episode_about,
    episode_of,
    epoch_of,
    number_list,
    plain_grade,
    recorded_step,
    step_extra,
    tool_def,
)
from codegym.grade import STATUSES, Grade
from codegym.serve.wire import decode, encode

TRACE_VERSION = 1  # (verifiers.v1.trace.TRACE_VERSION)
TASK_TYPE = "CodegymTask"  # (codegym.integrations.verifiers_env's task class)
REWARD = "codegym_reward"
# Sampler settings a trainer's note may hold that a model call's ``sampling`` has fields for.
_SAMPLING = ("temperature", "top_p", "max_tokens")


def to_verifiers_trace(episode: Mapping[str, Any], *, model_name: str | None = None) -> dict[str, Any]:
    """The episode as a ``verifiers.v1`` trace (a JSON object; see the module's docstring).

    Args:
        episode: A recorded episode (`codegym.episodes.read_episodes`).
        model_name: The policy's model, for ``agent.config.model`` and each call's ``model``.
    """
    tools = [{"type": "function", **tool_def(tool)} for tool in episode["reset"]["info"].get("tools") or []]
    start = epoch_of(episode.get("started"))
    setup = float(episode["reset"].get("seconds") or 0.0)
    root: dict[str, Any] = {"parent": None, "message": {"role": "user", "content": prompt_of(episode)}}
    root.update(timestamp=start + setup, **({"tools": tools} if tools else {}))
    nodes, calls, extras = [root], [], []
    at, every = start + setup, turns(episode)
    for index, turn in enumerate(every):
        sampled, rest = _sampled(turn.step.get("generation"))
        assistant = {"parent": len(nodes) - 1, "message": _assistant(turn.text, turn.calls), "sampled": True}
        nodes.append({**assistant, "timestamp": at, **sampled})
        calls.append(_call(len(nodes) - 1, model_name, sampled, rest))
        at += float(turn.step.get("seconds") or 0.0)
        said = [{"role": "user", "content": turn.said}] if turn.said and index < len(every) - 1 else []
        for message in [*map(_tool_message, turn.results), *said]:
            nodes.append({"parent": len(nodes) - 1, "message": message, "timestamp": at})
        extra = step_extra(turn)
        if rest:
            extra["generation"] = encode(rest)
        if turn.said and index == len(every) - 1:  # (no next turn shows it: kept for the way back)
            extra["said"] = turn.said
        extras.append(extra)
    completed, ok, stop, errors = _ending(episode)
    return {
        "version": TRACE_VERSION,
        "id": episode["episode"],
        "task": _task(episode),
        "agent": {"config": {"model": model_name} if model_name else {}},
        "tools": tools,
        "nodes": nodes,
        "calls": calls,
        "rewards": {REWARD: _reward(episode["return"])},
        "metrics": _metrics(episode),
        "info": _info(episode, extras),
        "is_completed": completed,
        "ok": ok,
        "stop_condition": stop,
        "errors": errors,
        "timing": {
            "start": start,
            "setup": {"start": start, "end": start + setup},
            "agent": {"start": start + setup, "end": at},
        },
    }


def episode_from_verifiers_trace(trace: Mapping[str, Any]) -> dict[str, Any]:
    """The episode a `to_verifiers_trace` trace holds (``to_verifiers_trace`` of it is
    ``trace`` again).

    Raises:
        ValueError: A trace codegym's export did not write (no ``info["record"]``): read one
            of verifiers' own runs with `codegym.episodes.read_trajectories`.
    """
    record = (trace.get("info") or {}).get("record")
    if not isinstance(record, Mapping):
        raise ValueError(
            f"trace {trace.get('id')!r} has no info['record']: codegym's export did not write it; "
            "read a verifiers run's traces with codegym.episodes.read_trajectories(path)"
        )
    root, *rest = last_branch(trace) or [{"message": {}}]
    answers = [node for node in rest if node["message"].get("role") == "assistant"]
    extras = list(record.get("steps") or [])
    if not trace.get("nodes") or len(answers) != len(extras):
        raise ValueError(
            f"trace {trace.get('id')!r} has {len(trace.get('nodes') or [])} nodes, {len(answers)} of them the "
            f"model's, but info['record'] records {len(extras)} steps: the trace was changed after codegym wrote it"
        )
    steps, turn = [], -1
    said: list[str] = [str(extra.get("said", "")) for extra in extras]
    results: list[dict[str, str]] = [{} for _ in extras]
    for node in rest:
        message = node["message"]
        if message.get("role") == "assistant":
            turn += 1
        elif message.get("role") == "tool" and turn >= 0:
            results[turn][str(message.get("tool_call_id"))] = text_of(message)
        elif turn >= 0:
            said[turn] = text_of(message)
    for node, extra, contents, text in zip(answers, extras, results, said, strict=True):
        message = node["message"]
        calls = [_call_from_trace(call) for call in message.get("tool_calls") or ()]
        steps.append(
            recorded_step(message.get("content") or "", calls, contents, text, extra, _generation(node, extra))
        )
    episode = episode_of(
        record,
        episode_id=trace.get("id"),
        version=record.get("codegym"),
        prompt=text_of(root["message"]),
        tools=[{"type": "function", "function": tool_def(tool)} for tool in trace.get("tools") or []] or None,
        steps=steps,
        returned=decode(record.get("return", 0.0)),
    )
    if record.get("started") is not None:
        episode["started"] = record["started"]
    if record.get("reset_seconds") is not None:
        episode["reset"]["seconds"] = record["reset_seconds"]
    return episode


def last_branch(trace: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The nodes of a trace's last branch (``Trace.messages``' branch), root first: the path to
    the last node that is no node's parent."""
    nodes = list(trace.get("nodes") or [])
    parents = {node.get("parent") for node in nodes}
    leaves = [index for index in range(len(nodes)) if index not in parents]
    path: list[Mapping[str, Any]] = []
    at = leaves[-1] if leaves else None
    while at is not None and len(path) <= len(nodes):  # (a parent loop ends the walk)
        path.append(nodes[at])
        at = nodes[at].get("parent")
    return path[::-1]


def _assistant(text: str, calls: tuple[Mapping[str, Any], ...]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        wired = [openai_call(call) for call in calls]
        message["tool_calls"] = [{"id": call["id"], "type": "function", **call["function"]} for call in wired]
    return message


def _tool_message(result: Mapping[str, Any]) -> dict[str, Any]:
    message = {"role": "tool", "tool_call_id": result["tool_call_id"], "content": result["content"]}
    return {**message, "name": result["name"]} if result.get("name") else message


def _call_from_trace(call: Mapping[str, Any]) -> dict[str, Any]:
    arguments = call.get("arguments") or "{}"
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        parsed = {"__unparsed__": arguments}
    return {"id": call.get("id"), "name": call.get("name"), "arguments": decode(parsed)}


def _sampled(generation: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The assistant node's token fields from a trainer's note (the completion's token ids,
    sampled, and their log-probs where there is one per token), and the rest of the note."""
    if not isinstance(generation, Mapping):
        return {}, {}
    rest = dict(generation)
    ids = number_list(rest.get("token_ids"), int)
    if not ids:
        return {}, rest
    del rest["token_ids"]
    fields: dict[str, Any] = {"token_ids": ids, "mask": [True] * len(ids)}
    logprobs = number_list(rest.get("logprobs"), float)
    if logprobs is not None and len(logprobs) == len(ids):
        fields["logprobs"] = logprobs
        del rest["logprobs"]
    return fields, rest


def _generation(node: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    generation = dict(decode(extra.get("generation") or {}))
    if node.get("token_ids"):
        generation["token_ids"] = list(node["token_ids"])
        if node.get("logprobs"):
            generation["logprobs"] = list(node["logprobs"])
    return generation


def _call(node: int, model_name: str | None, sampled: Mapping[str, Any], rest: Mapping[str, Any]) -> dict[str, Any]:
    """The model call that wrote node ``node``: the model, the noted sampler settings, and the
    tokens counted where the note holds both the prompt's and the completion's."""
    call: dict[str, Any] = {"node": node}
    if model_name:
        call["model"] = model_name
    sampling = {key: rest[key] for key in _SAMPLING if isinstance(rest.get(key), (int, float))}
    if sampling:
        call["sampling"] = sampling
    prompt = number_list(rest.get("prompt_token_ids"), int)
    if prompt is not None and sampled:
        call["usage"] = {"prompt_tokens": len(prompt), "completion_tokens": len(sampled["token_ids"])}
    return call


def _task(episode: Mapping[str, Any]) -> dict[str, Any]:
    task = episode.get("task") or {}
    task_id, env_id = task.get("id"), episode.get("env_id")
    ids = {key: value for key, value in (("env_id", env_id), ("task_id", task_id)) if isinstance(value, str)}
    data = {"id": task_id, "name": task_id, "prompt": prompt_of(episode), "info": ids}
    return {"type": TASK_TYPE, "data": data, "key": f"{env_id}:{task_id}" if task_id else None}


def _grade_of(episode: Mapping[str, Any]) -> Grade | None:
    final = final_step(episode)
    return final["info"]["grade"] if final else None


def _metrics(episode: Mapping[str, Any]) -> dict[str, float | None]:
    grade = _grade_of(episode)
    steps = float(len(episode["steps"]))
    if grade is None:
        return {**dict.fromkeys(("pass_rate", "correct", "tests_passed", "tests_total", "status")), "steps": steps}
    return {
        "pass_rate": grade.pass_rate,
        "correct": float(solved_by(final_step(episode))),
        "tests_passed": float(sum(test.passed for test in grade.tests)),
        "tests_total": float(len(grade.tests)),
        "status": float(STATUSES.index(grade.status)),
        "steps": steps,
    }


def _info(episode: Mapping[str, Any], extras: list[dict[str, Any]]) -> dict[str, Any]:
    """Codegym's ids, the final grade and submission, the verdict as
    `codegym.integrations.verifiers_env` records it, and what the way back needs."""
    final = final_step(episode)
    record = {
        **episode_about(episode),
        "codegym": episode.get("codegym"),
        "started": episode.get("started"),
        "reset_seconds": episode["reset"].get("seconds"),
        "return": encode(float(episode["return"])),
        "steps": extras,
    }
    info: dict[str, Any] = {
        "env_id": episode.get("env_id"),
        "task_id": (episode.get("task") or {}).get("id"),
        "episode": episode["episode"],
        "grade": plain_grade(final["info"]["grade"]) if final else None,
        "submission": final["info"]["code"] if final else None,
    }
    if final:
        grade: Grade = final["info"]["grade"]
        metrics = _metrics(episode)
        info["codegym"] = {
            "status": grade.status.value,
            "message": grade.message,
            "reward": encode(float(final["reward"])),
            "reward_components": encode(dict(final["info"].get("reward_components") or {})),
            **{key: metrics[key] for key in ("pass_rate", "correct", "tests_passed", "tests_total")},
        }
    info["record"] = record
    return info


def _ending(episode: Mapping[str, Any]) -> tuple[bool, bool, str | None, list[dict[str, Any]]]:
    """``is_completed``, ``ok``, ``stop_condition`` and ``errors`` from how the episode ended."""
    ended = episode.get("ended")
    last = episode["steps"][-1]["info"] if episode["steps"] else {}
    if "infra_error" in last:
        return True, False, "sandbox_error", [{"type": "SandboxError", "message": str(last["infra_error"])}]
    if ended == "terminated":
        return True, True, "terminated", []
    if ended == "truncated":
        return True, True, f"{last['truncated_by']}_budget" if "truncated_by" in last else "max_turns", []
    return False, False, ended, []


def _reward(value: Any) -> dict[str, float] | None:
    """The return as a reward; None (verifiers' "not scored") for one JSON cannot carry (the
    record keeps it)."""
    score = float(value)
    return {"score": score, "weight": 1.0} if math.isfinite(score) else None
