"""Recorded episodes in the formats other tools read.

Each export is a pure function of one episode as `read_episodes` yields it:

- `to_atif`: a trajectory in Harbor's Agent Trajectory Interchange Format (ATIF-v1.5, the
  ``harbor.models.trajectories.Trajectory`` model): the prompt as a ``user`` step, then one
  ``agent`` step per env step with its tool calls, their results and what the env said as the
  observation, the trainer's token ids and log-probs as metrics; the reward, the flags and the
  whole `Grade` (wire JSON, `codegym.serve.wire`) in the step's ``extra``, and what made the
  env in the root's ``extra["codegym"]``. `episode_from_atif` reads it back.
- `to_openai_row`: one row with the columns of the SWE trajectory datasets on the Hugging Face
  Hub: ``instance_id``, ``trajectory_id``, ``messages`` (OpenAI chat messages, assistant
  ``tool_calls`` in OpenAI's shape, ``tool`` messages for their results), ``tools`` (the
  function schemas offered), ``model_patch`` (the final submission: a diff for RepoRepair,
  the code otherwise), ``resolved``, ``reward``, ``exit_status`` and ``metadata``.
  `episode_from_openai_row` reads it back.
- `codegym.episodes.verifiers_trace.to_verifiers_trace`: a trace of ``verifiers.v1`` (the
  current ``verifiers`` API, 0.4), its ``Trace`` model: see that module.
- `to_verifiers`: the legacy rollout row of older ``verifiers`` releases (their
  ``RolloutOutput``: ``prompt``, ``completion``, ``answer``, ``info``, ``reward``, ``metrics``
  and each metric as a column, ``is_completed``, ``is_truncated``, ``stop_condition``,
  ``timing``, ``tool_defs``), with the final grade and submission as state columns.

An assistant message's ``content`` is the model's text as it was given (calls written in it as
text included); its ``tool_calls`` are the calls the env parsed from it. Exports of an episode
read back with `episode_from_atif`, `episode_from_openai_row` or
`codegym.episodes.verifiers_trace.episode_from_verifiers_trace` are the same again.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from codegym.episodes.chat import (
    Turn,
    feedback_for,
    final_step,
    graded,
    prompt_of,
    solved_by,
    status_of,
    steps_from_messages,
    text_of,
    to_messages,
    turns,
)
from codegym.episodes.record import read_episodes
from codegym.grade import Grade, Status
from codegym.serve.wire import decode, encode, grade_to_dict

ATIF_SCHEMA_VERSION = "ATIF-v1.5"  # (the first with the tools offered: agent.tool_definitions)
AGENT_NAME = "codegym"
Format = Literal["atif", "openai", "verifiers", "verifiers-trace"]
# Info keys an ATIF step carries elsewhere than in its ``extra["info"]``.
_CARRIED = ("grade", "code", "tool_results", "tool_calls", "format_error_messages")


def to_atif(episode: Mapping[str, Any], *, model_name: str | None = None) -> dict[str, Any]:
    """The episode as an ATIF trajectory (a JSON object; see the module's docstring).

    Args:
        episode: A recorded episode (`read_episodes`).
        model_name: The policy's model, for ``agent.model_name``.
    """
    agent: dict[str, Any] = {"name": AGENT_NAME, "version": str(episode.get("codegym") or "unknown")}
    if model_name:
        agent["model_name"] = model_name
    tools = episode["reset"]["info"].get("tools")
    if tools:
        agent["tool_definitions"] = tools
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": prompt_of(episode)}]
    if episode.get("started"):
        steps[0]["timestamp"] = episode["started"]
    steps.extend(_atif_step(index, turn) for index, turn in enumerate(turns(episode), 2))
    final = final_step(episode)
    summary = {"return": encode(float(episode["return"])), "resolved": solved_by(final), "status": status_of(final)}
    return {
        "schema_version": ATIF_SCHEMA_VERSION,
        "session_id": episode["episode"],
        "agent": agent,
        "steps": steps,
        "final_metrics": {"total_steps": len(steps), "extra": summary},
        "extra": {"codegym": episode_about(episode)},
    }


def to_openai_row(episode: Mapping[str, Any]) -> dict[str, Any]:
    """The episode as one row of a chat-trajectory dataset (see the module's docstring)."""
    final = final_step(episode)
    task = episode.get("task") or {}
    metadata = {
        "env_id": episode.get("env_id"),
        "family": episode.get("family"),
        "mode": episode.get("mode"),
        "task_digest": task.get("digest"),
        "status": status_of(final),
        "pass_rate": final["info"]["grade"].pass_rate if final else 0.0,
        "codegym": episode.get("codegym"),
    }
    return {
        "instance_id": task.get("id"),
        "trajectory_id": episode["episode"],
        "messages": to_messages(episode),
        "tools": list(episode["reset"]["info"].get("tools") or []),
        "model_patch": final["info"]["code"] if final else "",
        "resolved": solved_by(final),
        "reward": encode(float(episode["return"])),
        "exit_status": episode.get("ended"),
        "metadata": metadata,
    }


def to_verifiers(episode: Mapping[str, Any], *, example_id: int = 0, answer: str = "") -> dict[str, Any]:
    """The episode as a rollout output row of older ``verifiers`` releases (their
    ``RolloutOutput``; ``verifiers.v1`` saves traces instead: `to_verifiers_trace`).

    ``prompt`` is the first user message, ``completion`` the rest; their ``tool_calls`` are JSON
    strings, one per call, as ``verifiers`` saves them. ``answer`` is the dataset's reference
    answer, left out when empty (a recording holds no reference).
    """
    messages = [_verifiers_message(message) for message in to_messages(episode)]
    final = final_step(episode)
    metrics = {
        "solved": float(solved_by(final)),
        "pass_rate": final["info"]["grade"].pass_rate if final else 0.0,
        "steps": float(len(episode["steps"])),
    }
    task = episode.get("task") or {}
    row: dict[str, Any] = {
        "example_id": example_id,
        "prompt": messages[:1],
        "completion": messages[1:],
        "task": episode.get("env_id"),
        "info": {
            "task_id": task.get("id"),
            "env_id": episode.get("env_id"),
            "family": episode.get("family"),
            "mode": episode.get("mode"),
            "episode": episode["episode"],
        },
        "reward": encode(float(episode["return"])),
        "metrics": metrics,
        "is_completed": episode.get("ended") in ("terminated", "truncated"),
        "is_truncated": episode.get("ended") == "truncated",
        "stop_condition": episode.get("ended"),
        "timing": _timing(episode),
        "tool_defs": [tool_def(tool) for tool in episode["reset"]["info"].get("tools") or []],
        "error": None,
        **metrics,
        "grade": plain_grade(final["info"]["grade"]) if final else None,
        "submission": final["info"]["code"] if final else None,
    }
    if answer:
        row["answer"] = answer
    return row


def export_episodes(
    records: str | os.PathLike[str], out: str | os.PathLike[str], *, format: Format, model_name: str | None = None
) -> list[Path]:
    """Export every episode of a `RecordEpisodes` file.

    Args:
        records: The JSON-lines file `RecordEpisodes` wrote.
        out: ``format="atif"``: a folder, which gets one ``<episode>.json`` per episode;
            otherwise the JSON-lines file to write (replaced).
        format: ``"atif"`` (`to_atif`), ``"openai"`` (`to_openai_row`), ``"verifiers-trace"``
            (`to_verifiers_trace`: ``verifiers.v1`` traces, one a line, as its
            ``traces.jsonl``) or ``"verifiers"`` (`to_verifiers`: the legacy rollout rows).
        model_name: The policy's model, for ATIF's ``agent.model_name`` and a trace's
            ``agent.config.model``.

    Returns:
        The files written.
    """
    episodes = read_episodes(records)
    out = Path(out)
    if format == "atif":
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for episode in episodes:
            path = out / f"{episode['episode']}.json"
            path.write_text(json.dumps(to_atif(episode, model_name=model_name), indent=2, allow_nan=False) + "\n")
            written.append(path)
        return written
    rows: Iterable[dict[str, Any]]
    if format == "openai":
        rows = (to_openai_row(episode) for episode in episodes)
    elif format == "verifiers":
        rows = (to_verifiers(episode, example_id=index) for index, episode in enumerate(episodes))
    elif format == "verifiers-trace":
        from codegym.episodes.verifiers_trace import to_verifiers_trace  # (here: it imports this module)

        rows = (to_verifiers_trace(episode, model_name=model_name) for episode in episodes)
    else:
        raise ValueError(
            f"unknown export format {format!r}; expected 'atif', 'openai', 'verifiers-trace' or 'verifiers'"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as lines:
        for row in rows:
            lines.write(json.dumps(row, allow_nan=False) + "\n")
    return [out]


def episode_from_atif(trajectory: Mapping[str, Any]) -> dict[str, Any]:
    """The episode an ATIF trajectory of `to_atif` holds (``to_atif`` of it is ``trajectory``
    again).

    Raises:
        ValueError: A trajectory codegym did not write (no ``extra["codegym"]``): read one
            of another agent with `codegym.episodes.read_trajectories`.
    """
    about = (trajectory.get("extra") or {}).get("codegym")
    if not isinstance(about, Mapping) or not trajectory.get("steps"):
        raise ValueError(
            f"trajectory {trajectory.get('session_id')!r} has no extra['codegym']: codegym did not write it; "
            "read another agent's trajectory with codegym.episodes.read_trajectories(path)"
        )
    first, *agent_steps = trajectory["steps"]
    episode = episode_of(
        about,
        episode_id=trajectory["session_id"],
        version=trajectory["agent"].get("version"),
        prompt=first["message"],
        tools=(trajectory.get("agent") or {}).get("tool_definitions"),
        steps=[_step_from_atif(step) for step in agent_steps],
        returned=decode(trajectory.get("final_metrics", {}).get("extra", {}).get("return", 0.0)),
    )
    if "timestamp" in first:
        episode["started"] = first["timestamp"]
    return episode


def episode_of(
    about: Mapping[str, Any],
    *,
    episode_id: Any,
    version: Any,
    prompt: str,
    tools: list[Any] | None,
    steps: list[dict[str, Any]],
    returned: Any,
) -> dict[str, Any]:
    """A recorded episode from what an export keeps of it: `episode_about`'s record of the env
    and the episode, the prompt, the tools offered and the steps (`recorded_step`)."""
    reset_info = decode(about.get("reset_info") or {})
    if tools:
        reset_info["tools"] = tools
    episode = {
        "version": about.get("record_version"),
        "episode": episode_id,
        "codegym": version,
        **{
            key: decode(about.get(key)) for key in ("env_id", "env_kwargs", "env_kwargs_not_recorded", "family", "mode")
        },
        "task": about.get("task"),
        "reset": {
            "seed": about.get("seed"),
            "options": decode(about.get("options") or {}),
            "observation": {"prompt": prompt, "feedback": ""},
            "info": reset_info,
        },
        "steps": steps,
        "ended": about.get("ended"),
        "return": returned,
    }
    if about.get("forked_from"):
        episode["forked_from"] = about["forked_from"]
    return episode


def episode_from_openai_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The episode a `to_openai_row` row holds, as far as the row tells it: the messages, the
    final submission and its status (the grade's tests are not in a row). ``to_openai_row`` of
    it is ``row`` again. Leading messages before the first assistant one make the prompt."""
    metadata = row.get("metadata") or {}
    messages = list(row.get("messages") or [])
    start = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"), len(messages))
    prompt = "\n\n".join(text_of(m) for m in messages[:start])
    steps = steps_from_messages(messages[start:])
    status = metadata.get("status")
    if steps and status is not None:
        grade = Grade(
            Status(status),
            metrics={"pass_rate": float(metadata.get("pass_rate") or 0.0)},
            solved=bool(row.get("resolved")),
        )
        steps[-1]["info"].update(grade=grade, code=row.get("model_patch") or "", status=status)
    if steps:
        steps[-1]["reward"] = decode(row.get("reward", 0.0))
        steps[-1]["terminated"] = row.get("exit_status") == "terminated"
        steps[-1]["truncated"] = row.get("exit_status") == "truncated"
    info = {"tools": list(row["tools"])} if row.get("tools") else {}
    return {
        "episode": row.get("trajectory_id"),
        "codegym": metadata.get("codegym"),
        "env_id": metadata.get("env_id"),
        "family": metadata.get("family"),
        "mode": metadata.get("mode"),
        "task": {"id": row.get("instance_id"), "family": metadata.get("family"), "digest": metadata.get("task_digest")},
        "reset": {"seed": None, "options": {}, "observation": {"prompt": prompt, "feedback": ""}, "info": info},
        "steps": steps,
        "ended": row.get("exit_status"),
        "return": decode(row.get("reward", 0.0)),
    }


def _verifiers_message(message: Mapping[str, Any]) -> dict[str, Any]:
    if "tool_calls" not in message:
        return dict(message)
    return {**message, "tool_calls": [json.dumps(call) for call in message["tool_calls"]]}


def tool_def(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI tool (``{"type": "function", "function": {...}}``) as its function's
    ``name``, ``description`` and ``parameters``."""
    function = tool.get("function", tool)
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "parameters": function.get("parameters", {}),
    }


def _atif_step(step_id: int, turn: Turn) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "source": "agent", "message": turn.text}
    if turn.calls:
        step["tool_calls"] = [
            {"tool_call_id": call["id"], "function_name": call["name"], "arguments": encode(call["arguments"])}
            for call in turn.calls
        ]
    results: list[dict[str, Any]] = [
        {"source_call_id": result["tool_call_id"], "content": result["content"]} for result in turn.results
    ]
    if turn.said:
        results.append({"content": turn.said})
    if results:
        step["observation"] = {"results": results}
    metrics = _metrics(turn.step.get("generation"))
    if metrics:
        step["metrics"] = metrics
    step["extra"] = step_extra(turn)
    return step


def _metrics(generation: Any) -> dict[str, Any]:
    """ATIF metrics from what a trainer noted: token ids and log-probs where they are plain
    lists, the rest in ``extra``."""
    if not isinstance(generation, Mapping):
        return {}
    rest = dict(generation)
    metrics: dict[str, Any] = {}
    for ours, theirs, kind in (
        ("token_ids", "completion_token_ids", int),
        ("prompt_token_ids", "prompt_token_ids", int),
        ("logprobs", "logprobs", float),
    ):
        values = number_list(rest.get(ours), kind)
        if values is not None:
            metrics[theirs] = values
            del rest[ours]
    if rest:
        metrics["extra"] = encode(rest)
    return metrics


def number_list(value: Any, kind: type) -> list[Any] | None:
    """``value`` (a list or an array of numbers) as a list of ``kind``; None when it is not one."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [kind(v) for v in value]
    return None


def step_extra(turn: Turn) -> dict[str, Any]:
    """What an export keeps of a codegym step beyond the message, the calls, their results'
    contents and what the env said (ATIF: a step's ``extra``): `recorded_step` reads it back."""
    step, info = turn.step, turn.step["info"]
    extra: dict[str, Any] = {
        "reward": encode(step["reward"]),
        "terminated": step["terminated"],
        "truncated": step["truncated"],
        "seconds": step.get("seconds"),
    }
    if not isinstance(step["action"], str):
        extra["action"] = encode(step["action"])
    if "format_error_messages" in info:
        extra["format_errors"] = list(info["format_error_messages"])
    if turn.results:
        extra["tool_results"] = [
            {key: value for key, value in result.items() if key != "content"} for result in turn.results
        ]
    if graded(info):
        extra.update(status=info["grade"].status.value, grade=encode(info["grade"]), code=info["code"])
    extra["info"] = encode({key: value for key, value in info.items() if key not in _CARRIED})
    return extra


def _step_from_atif(step: Mapping[str, Any]) -> dict[str, Any]:
    calls = [
        {"id": call["tool_call_id"], "name": call["function_name"], "arguments": decode(call["arguments"])}
        for call in step.get("tool_calls") or ()
    ]
    results_said = (step.get("observation") or {}).get("results") or []
    contents = {r["source_call_id"]: r.get("content", "") for r in results_said if r.get("source_call_id")}
    said = "".join(r.get("content") or "" for r in results_said if not r.get("source_call_id"))
    generation = _generation(step.get("metrics"))
    return recorded_step(step["message"], calls, contents, said, step.get("extra") or {}, generation)


def recorded_step(
    text: str,
    calls: list[dict[str, Any]],
    contents: Mapping[str, str],
    said: str,
    extra: Mapping[str, Any],
    generation: Mapping[str, Any],
) -> dict[str, Any]:
    """A recorded step from what an export keeps of it (`step_extra` is the way there).

    Args:
        text: The model's message.
        calls: Its well-formed calls, ``{"id", "name", "arguments"}``.
        contents: Their results' contents, by call id.
        said: What the env said besides the results.
        extra: `step_extra` of the step.
        generation: What the trainer noted (`RecordEpisodes.note`).
    """
    info = decode(extra.get("info") or {})
    errors = list(extra.get("format_errors") or [])
    results = [
        {**result, "content": contents.get(result["tool_call_id"], "")} for result in extra.get("tool_results") or ()
    ]
    if "format_errors" in extra or results or calls:
        info.update(tool_results=results, tool_calls=calls, format_error_messages=errors)
    if "grade" in extra:
        info.update(grade=decode(extra["grade"]), code=extra["code"])
    recorded: dict[str, Any] = {"action": decode(extra["action"]) if "action" in extra else text}
    if calls or errors:
        recorded["tool_calls"] = calls + [{"error": error} for error in errors]
    if generation:
        recorded["generation"] = dict(generation)
    recorded.update(
        observation={"feedback": feedback_for(info, said)},
        reward=decode(extra.get("reward", 0.0)),
        terminated=bool(extra.get("terminated")),
        truncated=bool(extra.get("truncated")),
        info=info,
        seconds=extra.get("seconds"),
    )
    return recorded


def _generation(metrics: Any) -> dict[str, Any]:
    if not isinstance(metrics, Mapping):
        return {}
    generation = dict(decode(metrics.get("extra") or {}))
    for ours, theirs in (
        ("token_ids", "completion_token_ids"),
        ("prompt_token_ids", "prompt_token_ids"),
        ("logprobs", "logprobs"),
    ):
        if theirs in metrics:
            generation[ours] = list(metrics[theirs])
    return generation


def episode_about(episode: Mapping[str, Any]) -> dict[str, Any]:
    """What made the env and the episode (ATIF: the root's ``extra["codegym"]``): `episode_of`
    reads it back."""
    reset_info = {key: value for key, value in episode["reset"]["info"].items() if key != "tools"}
    return {
        "record_version": episode.get("version"),
        "env_id": episode.get("env_id"),
        "env_kwargs": encode(episode.get("env_kwargs") or {}),
        "env_kwargs_not_recorded": episode.get("env_kwargs_not_recorded") or {},
        "family": episode.get("family"),
        "mode": episode.get("mode"),
        "task": episode.get("task"),
        "seed": episode["reset"].get("seed"),
        "options": encode(episode["reset"].get("options") or {}),
        "reset_info": encode(reset_info),
        "ended": episode.get("ended"),
        **({"forked_from": episode["forked_from"]} if episode.get("forked_from") else {}),
    }


def _timing(episode: Mapping[str, Any]) -> dict[str, Any]:
    """``verifiers``' rollout timing (seconds since the epoch) from the recorded wall times."""
    start = epoch_of(episode.get("started"))
    setup = float(episode["reset"].get("seconds") or 0.0)
    spans, at = [], start + setup
    for step in episode["steps"]:
        seconds = float(step.get("seconds") or 0.0)
        spans.append({"start": at, "end": at + seconds, "duration": seconds})
        at += seconds
    return {
        "start_time": start,
        "setup": {"start": start, "end": start + setup, "duration": setup},
        "generation": {"start": start + setup, "end": at, "duration": at - start - setup},
        "scoring": {"start": 0.0, "end": 0.0, "duration": 0.0},
        "model": {"spans": [], "duration": 0.0},
        "env": {"spans": spans, "duration": at - start - setup},
        "total": at - start,
        "overhead": 0.0,
    }


def epoch_of(started: Any) -> float:
    """A recorded ``started`` time (ISO 8601) in seconds since the epoch; 0.0 when it is none."""
    try:
        return datetime.datetime.fromisoformat(str(started)).timestamp()
    except ValueError:
        return 0.0


def plain_grade(grade: Grade) -> dict[str, Any]:
    """A grade as plain JSON, without its artifacts (pictures a feedback tool made)."""
    plain = grade_to_dict(grade)
    del plain["artifacts"]
    return plain
