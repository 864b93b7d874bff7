"""Trajectories of other agents, read as they lay them out (`read_trajectories`).

- mini-swe-agent ``<instance_id>.traj.json`` (``trajectory_format`` ``mini-swe-agent-1`` or
  ``-1.1``): ``info.submission``, ``info.exit_status``, ``info.config``, ``messages`` (chat
  messages with an ``extra`` of the agent's: its parsed ``actions``; v2 ends with a
  ``role: "exit"`` message) and, from its SWE-bench runs, ``instance_id``;
- SWE-agent ``<instance_id>.traj``: ``trajectory`` (``action``, ``observation``, ``response``,
  ``thought``, ...), ``history`` (chat messages; ``tool`` ones name ``tool_call_ids``, a
  demonstration's are ``is_demo``), ``info.submission``, ``info.exit_status``,
  ``info.model_stats``, and ``replay_config`` (a JSON string, or an object, whose
  ``problem_statement.id`` is the instance); a retry loop's file holds ``attempts``; a
  submission a terminal turned to CRLF line ends is turned back;
- OpenHands: a conversation's ``events/<n>.json`` files, a JSON list of events (a saved
  trajectory), or the rows of an evaluation's ``output.jsonl`` (``instance_id``, ``history``,
  ``test_result.git_patch``; older rows hold ``[action, observation]`` pairs); without a patch,
  the files its edits left (each ``edit`` observation's ``new_content``) stand for it;
- ATIF trajectories (a Harbor trial's ``agent/trajectory.json``, whose task the trial's
  ``result.json`` names; codegym's own, from `codegym.episodes.to_atif`, carry their episode);
- ``verifiers.v1`` traces (a run's ``traces.jsonl``, one a line): the last branch's messages,
  the last reply as the submission, the task named in ``task.data.info`` (as
  `codegym.integrations.verifiers_env` writes it) or ``task.data.id``; codegym's own, from
  `codegym.episodes.to_verifiers_trace`, carry their episode;
- chat-trajectory rows (``messages`` or ``trajectory``, ``instance_id``, ``model_patch``,
  ``patch`` or ``generated_patch``, ``resolved`` or ``target``), older ``verifiers``' rollouts,
  SWE-bench predictions (``preds.json``, ``all_preds.jsonl``) and codegym's episode records.

Each becomes an `ImportedRun`; `codegym.episodes.mapping` maps runs to codegym's tasks.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.episodes.chat import final_step, solved_by, to_messages
from codegym.episodes.export import episode_from_atif
from codegym.episodes.record import RECORD_VERSION
from codegym.episodes.verifiers_trace import episode_from_verifiers_trace, last_branch
from codegym.serve.wire import decode

BASH_TOOLS = frozenset({"bash", "execute_bash", "run_shell_command", "shell", "terminal"})


@dataclass(frozen=True)
class ImportedRun:
    """One trajectory read from another tool's files.

    Attributes:
        source: The file it came from (``path#n`` for the n-th row or item of one).
        format: ``"mini-swe-agent"``, ``"swe-agent"``, ``"openhands"``, ``"atif"``,
            ``"verifiers"`` (a ``verifiers.v1`` trace), ``"openai"``, ``"predictions"`` or
            ``"codegym"``.
        instance_id: The task the file names (None when it names none).
        submission: The final patch or code (None when the run left none).
        exit_status: How the run ended, in its own words.
        messages: The conversation as OpenAI chat messages.
        commands: The shell commands it ran, in order.
        edits: Each file its edits left, by path, with its final content (None: deleted).
        env_id: The env the file names (codegym's own exports).
        resolved: What the file says of the submission (a dataset's label), if anything.
        model: The model that ran, where the file names it.
        notes: Odd corners met while reading it.
    """

    source: str
    format: str
    instance_id: str | None
    submission: str | None
    exit_status: str | None = None
    messages: tuple[Mapping[str, Any], ...] = ()
    commands: tuple[str, ...] = ()
    edits: Mapping[str, str | None] = field(default_factory=dict)
    env_id: str | None = None
    resolved: bool | None = None
    model: str | None = None
    notes: tuple[str, ...] = ()


def read_trajectories(path: str | os.PathLike[str], *, instance_id: str | None = None) -> list[ImportedRun]:
    """The runs in a trajectory file, or in every trajectory file under a folder (an OpenHands
    conversation's folder is one run; a ``.json`` file that holds no trajectory, such as a
    run's ``config.json``, and a predictions file such as ``preds.json``, which repeats the
    trajectories' patches, are passed over there: name one to read it).

    Args:
        path: A file or a folder.
        instance_id: The task of a run whose file names none (an OpenHands conversation's,
            whose id is otherwise its folder's name; a foreign ATIF trajectory's).

    Raises:
        ValueError: A file that is none of the formats read here (its keys say what it holds).
    """
    path = Path(path)
    if path.is_dir():
        events = _events_folder(path)
        if events is not None:
            return [_openhands(_read_events(events), str(path), instance_id or _session_id(events))]
        runs = []
        for child in sorted(path.iterdir()):
            if child.is_dir():
                runs.extend(read_trajectories(child, instance_id=instance_id))
            elif child.suffix == ".json":
                runs.extend(run for run in _passed_over(child, instance_id) if run.format != "predictions")
            elif child.name.endswith((".traj", ".jsonl")):
                runs.extend(_read_file(child, instance_id))
        return runs
    return _read_file(path, instance_id)


def _passed_over(path: Path, instance_id: str | None) -> list[ImportedRun]:
    """A folder's ``.json`` file's runs; none when it holds no trajectory."""
    try:
        return _read_file(path, instance_id)
    except ValueError:
        return []


def _read_file(path: Path, instance_id: str | None) -> list[ImportedRun]:
    text = path.read_text(encoding="utf-8", errors="replace")
    source = str(path)
    if path.suffix == ".jsonl":
        return [_row(row, f"{source}#{n}", instance_id) for n, row in enumerate(_json_lines(text, source))]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{source}: not JSON ({e}); expected a trajectory file") from e
    if isinstance(data, list) and data and all(isinstance(item, Mapping) for item in data):
        if any("action" in item or "observation" in item for item in data):
            return [_openhands(data, source, instance_id or _stem(path))]
        return [_row(item, f"{source}#{n}", instance_id) for n, item in enumerate(data)]
    if isinstance(data, Mapping) and data and all(isinstance(v, Mapping) and "model_patch" in v for v in data.values()):
        return [_predictions(row, f"{source}#{key}", key) for key, row in data.items()]  # (preds.json)
    if isinstance(data, Mapping):
        return [_document(data, path, instance_id)]
    raise ValueError(f"{source}: a JSON {type(data).__name__}; expected a trajectory object or a list of events")


def _json_lines(text: str, source: str) -> list[Any]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{source}:{number}: not JSON ({e}); expected one trajectory a line") from e
    return rows


def _document(data: Mapping[str, Any], path: Path, instance_id: str | None) -> ImportedRun:
    source = str(path)
    if str(data.get("trajectory_format", "")).startswith("mini-swe-agent"):
        return _mini_swe_agent(data, source, instance_id or _stem(path))
    if "history" in data and ("trajectory" in data or "attempts" in data):
        return _swe_agent(data, source, instance_id or _stem(path))
    if str(data.get("schema_version", "")).startswith("ATIF"):
        return _atif(data, source, instance_id or _harbor_task(path))
    return _row(data, source, instance_id)


def _row(row: Mapping[str, Any], source: str, instance_id: str | None) -> ImportedRun:
    if row.get("version") == RECORD_VERSION and "steps" in row and "reset" in row:
        return _codegym(decode(row), source)
    if isinstance(row.get("nodes"), list) and isinstance(row.get("task"), Mapping) and "agent" in row:
        return _verifiers_trace(row, source, instance_id)
    if isinstance(row.get("history"), list) and ("test_result" in row or "instance_id" in row):
        patch = (row.get("test_result") or {}).get("git_patch")
        return _openhands(_flat_history(row["history"]), source, row.get("instance_id") or instance_id, patch)
    if "messages" in row or "trajectory" in row or ("prompt" in row and "completion" in row):
        return _openai(row, source, instance_id)
    if "model_patch" in row:
        return _predictions(row, source, row.get("instance_id") or instance_id)
    raise ValueError(
        f"{source}: keys {sorted(map(str, row))[:12]}; expected a mini-swe-agent .traj.json, a SWE-agent .traj, "
        "OpenHands events, an ATIF trajectory, verifiers traces, chat-trajectory rows (messages, instance_id, "
        "model_patch), SWE-bench predictions or codegym episode records"
    )


def _mini_swe_agent(data: Mapping[str, Any], source: str, instance_id: str) -> ImportedRun:
    info = data.get("info") or {}
    messages, commands, notes = [], [], []
    for message in data.get("messages") or ():
        if not isinstance(message, Mapping) or "role" not in message:
            notes.append("an item without a role (the Responses API's) is left out of the messages")
            continue
        if message["role"] == "exit":  # (v2: the run's end, holding the submission)
            continue
        messages.append(_chat(message))
        if message["role"] == "assistant":
            commands.extend(_mini_commands(message))
    model = ((info.get("config") or {}).get("model") or {}).get("model_name")
    return ImportedRun(
        source=source,
        format="mini-swe-agent",
        instance_id=str(data.get("instance_id") or instance_id),
        submission=info.get("submission") or None,
        exit_status=info.get("exit_status"),
        messages=tuple(messages),
        commands=tuple(commands),
        model=model,
        notes=tuple(dict.fromkeys(notes)),
    )


def _mini_commands(message: Mapping[str, Any]) -> list[str]:
    """An assistant message's commands: its parsed actions (v2), its bash calls, or the
    fenced blocks of its text (v1)."""
    actions = (message.get("extra") or {}).get("actions")
    if isinstance(actions, list):
        return [a["command"] for a in actions if isinstance(a, Mapping) and isinstance(a.get("command"), str)]
    from_calls = _bash_calls(message.get("tool_calls") or ())
    if from_calls:
        return from_calls
    fences = re.findall(r"```(?:bash|sh|mswea_bash_command)[ \t]*\n(.*?)\n```", _text(message.get("content")), re.S)
    return fences[:1]  # (v1 runs exactly one block a turn)


def _swe_agent(data: Mapping[str, Any], source: str, fallback: str) -> ImportedRun:
    notes = []
    if "trajectory" not in data and data.get("attempts"):
        data = {**data, **data["attempts"][-1]}
        notes.append("no chosen attempt: the last of the retry loop's attempts is read")
    info = data.get("info") or {}
    replay = data.get("replay_config")
    if isinstance(replay, str):
        try:
            replay = json.loads(replay)
        except json.JSONDecodeError:
            replay = None
    replay = replay if isinstance(replay, Mapping) else {}
    statement = replay.get("problem_statement") or {}
    model = ((replay.get("agent") or {}).get("model") or {}).get("name")
    messages = []
    for item in data.get("history") or ():
        if item.get("role") == "tool":
            for call_id in item.get("tool_call_ids") or [None]:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _text(item.get("content"))})
        else:
            messages.append(_chat(item))
    if any(item.get("is_demo") for item in data.get("history") or ()):
        notes.append("the history holds demonstrations (is_demo), kept as they were shown")
    submission = info.get("submission")
    if isinstance(submission, str) and "\r\n" in submission and "\n" not in submission.replace("\r\n", ""):
        submission = submission.replace("\r\n", "\n").lstrip("\n")
        notes.append("the submission's CRLF line ends (a terminal's) were turned back to LF")
    commands = [c for m in messages if m.get("role") == "assistant" for c in _bash_calls(m.get("tool_calls") or ())]
    return ImportedRun(
        source=source,
        format="swe-agent",
        instance_id=str(statement.get("id") or fallback),
        submission=submission or None,
        exit_status=info.get("exit_status"),
        messages=tuple(messages),
        commands=tuple(commands),
        model=model,
        notes=tuple(notes),
    )


def _events_folder(path: Path) -> Path | None:
    """The events folder of an OpenHands conversation at ``path`` (itself or ``events/``)."""
    for folder in (path / "events", path):
        names = [p.name for p in folder.glob("*.json")] if folder.is_dir() else []
        if names and all(re.fullmatch(r"\d+\.json", name) for name in names):
            return folder
    return None


def _read_events(folder: Path) -> list[Mapping[str, Any]]:
    paths = sorted(folder.glob("*.json"), key=lambda p: int(p.stem))
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def _session_id(events: Path) -> str:
    return (events.parent if events.name == "events" else events).name


def _flat_history(history: list[Any]) -> list[Mapping[str, Any]]:
    """An evaluation row's history: events, or (older rows) ``[action, observation]`` pairs."""
    events: list[Mapping[str, Any]] = []
    for item in history:
        if isinstance(item, list):
            events.extend(part for part in item if isinstance(part, Mapping))
        elif isinstance(item, Mapping):
            events.append(item)
    return events


def _openhands(
    events: Sequence[Mapping[str, Any]], source: str, instance_id: str | None, patch: str | None = None
) -> ImportedRun:
    messages: list[dict[str, Any]] = []
    commands: list[str] = []
    edits: dict[str, str | None] = {}
    exit_status = model = None
    for event in events:
        model = ((event.get("tool_call_metadata") or {}).get("model_response") or {}).get("model") or model
        if "action" in event:
            exit_status = _openhands_action(event, messages, commands) or exit_status
        elif event.get("observation") == "edit" and isinstance((event.get("extras") or {}).get("new_content"), str):
            edits[event["extras"]["path"]] = event["extras"]["new_content"]
        if "observation" in event and event.get("tool_call_metadata"):
            call_id = event["tool_call_metadata"].get("tool_call_id")
            messages.append({"role": "tool", "tool_call_id": call_id, "content": _text(event.get("content"))})
    for message in messages:
        message.pop("_response", None)  # (which model response an assistant message holds the calls of)
    return ImportedRun(
        source=source,
        format="openhands",
        instance_id=instance_id,
        submission=patch or None,
        exit_status=exit_status,
        messages=tuple(messages),
        commands=tuple(commands),
        edits=edits,
        model=model,
    )


def _openhands_action(event: Mapping[str, Any], messages: list[dict[str, Any]], commands: list[str]) -> str | None:
    """Add an action event to the conversation; the exit status a ``finish`` gives."""
    args, kind, source = event.get("args") or {}, event["action"], event.get("source")
    if kind == "system":
        messages.append({"role": "system", "content": _text(args.get("content"))})
    elif kind == "message" and not event.get("tool_call_metadata"):
        messages.append({"role": "user" if source == "user" else "assistant", "content": _text(args.get("content"))})
    elif source == "agent" and event.get("tool_call_metadata"):
        metadata = event["tool_call_metadata"]
        call = _openhands_call(metadata, args)
        response = (metadata.get("model_response") or {}).get("id")
        last = messages[-1] if messages else {}
        if last.get("role") == "assistant" and response and last.get("_response") == response:
            last["tool_calls"].append(call)
        else:
            messages.append(
                {
                    "role": "assistant",
                    "content": _text(args.get("thought")),
                    "tool_calls": [call],
                    "_response": response,
                }
            )
    if kind == "run" and source == "agent" and isinstance(args.get("command"), str):
        commands.append(args["command"])
    return (
        ("finish" if args.get("task_completed") in (None, True, "true") else "finish (not completed)")
        if kind == "finish"
        else None
    )


def _openhands_call(metadata: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI call an action came from: as the model's response gave it, else rebuilt."""
    call_id = metadata.get("tool_call_id")
    for choice in (metadata.get("model_response") or {}).get("choices") or ():
        for call in (choice.get("message") or {}).get("tool_calls") or ():
            if call.get("id") == call_id:
                return {"id": call_id, "type": "function", "function": dict(call.get("function") or {})}
    arguments = {key: value for key, value in args.items() if key not in ("thought", "security_risk")}
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": metadata.get("function_name"), "arguments": json.dumps(arguments)},
    }


def _atif(data: Mapping[str, Any], source: str, instance_id: str | None) -> ImportedRun:
    if isinstance((data.get("extra") or {}).get("codegym"), Mapping):
        return _codegym(episode_from_atif(data), source, "atif")
    messages: list[dict[str, Any]] = []
    commands: list[str] = []
    for step in data.get("steps") or ():
        role = {"agent": "assistant"}.get(step.get("source"), step.get("source"))
        message: dict[str, Any] = {"role": role, "content": _text(step.get("message"))}
        calls = step.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "id": c["tool_call_id"],
                    "type": "function",
                    "function": {"name": c["function_name"], "arguments": json.dumps(c.get("arguments") or {})},
                }
                for c in calls
            ]
            commands.extend(
                str(c["arguments"]["command"])
                for c in calls
                if c.get("function_name") in BASH_TOOLS and "command" in (c.get("arguments") or {})
            )
        messages.append(message)
        for result in (step.get("observation") or {}).get("results") or ():
            if result.get("source_call_id"):
                messages.append(
                    {"role": "tool", "tool_call_id": result["source_call_id"], "content": _text(result.get("content"))}
                )
            elif result.get("content"):
                messages.append({"role": "user", "content": _text(result["content"])})
    extra = data.get("extra") or {}
    named = extra.get("instance_id") or extra.get("task_id") or extra.get("task_name")
    return ImportedRun(
        source=source,
        format="atif",
        instance_id=instance_id or (str(named) if named else None),
        submission=None,
        messages=tuple(messages),
        commands=tuple(commands),
        model=(data.get("agent") or {}).get("model_name"),
    )


def _verifiers_trace(trace: Mapping[str, Any], source: str, instance_id: str | None) -> ImportedRun:
    """A ``verifiers.v1`` trace: codegym's own export carries its episode; another's final reply
    is the submission (what `codegym.integrations.verifiers_env` grades)."""
    info = trace["info"] if isinstance(trace.get("info"), Mapping) else {}
    if isinstance(info.get("record"), Mapping):
        return _codegym(episode_from_verifiers_trace(trace), source, "verifiers")
    messages = [_chat(node["message"]) for node in last_branch(trace) if isinstance(node.get("message"), Mapping)]
    data = trace["task"].get("data") or {}
    about = data["info"] if isinstance(data.get("info"), Mapping) else {}
    named = about.get("task_id") or data.get("id") or instance_id
    replies = [m["content"] for m in messages if m["role"] == "assistant" and m["content"]]
    verdict = info["codegym"] if isinstance(info.get("codegym"), Mapping) else {}
    commands = [c for m in messages if m.get("role") == "assistant" for c in _bash_calls(m.get("tool_calls") or ())]
    return ImportedRun(
        source=source,
        format="verifiers",
        instance_id=str(named) if named else None,
        submission=replies[-1] if replies else None,
        exit_status=trace.get("stop_condition"),
        messages=tuple(messages),
        commands=tuple(commands),
        env_id=about.get("env_id"),
        resolved=bool(verdict["correct"]) if verdict.get("correct") is not None else None,
        model=((trace.get("agent") or {}).get("config") or {}).get("model"),
    )


def _harbor_task(path: Path) -> str | None:
    """The task of a Harbor trial's ``agent/trajectory.json`` (its ``result.json`` names it)."""
    trial = path.parent.parent
    for result in (trial / "result.json", trial / "results.json", path.parent / "result.json"):
        if result.is_file():
            try:
                name = json.loads(result.read_text(encoding="utf-8")).get("task_name")
            except (json.JSONDecodeError, AttributeError):
                continue
            if name:
                return str(name)
    return None


def _openai(row: Mapping[str, Any], source: str, instance_id: str | None) -> ImportedRun:
    """A chat-trajectory row (or a ``verifiers`` rollout: ``prompt`` and ``completion``)."""
    if "completion" in row and "prompt" in row:
        found = [*_listed(row["prompt"]), *_listed(row["completion"])]
        about: Mapping[str, Any] = row["info"] if isinstance(row.get("info"), Mapping) else {}
        resolved = (row.get("metrics") or {}).get("solved")
        patch = row.get("submission")
    else:
        found = _listed(row.get("messages") if "messages" in row else row.get("trajectory"))
        about = row["metadata"] if isinstance(row.get("metadata"), Mapping) else {}
        resolved = next((row[key] for key in ("resolved", "target") if key in row), None)
        patch = next((row[key] for key in ("model_patch", "patch", "generated_patch") if row.get(key)), None)
    messages = [_chat(m) for m in found if isinstance(m, Mapping)]
    named = row.get("instance_id") or about.get("task_id") or instance_id
    commands = [c for m in messages if m.get("role") == "assistant" for c in _bash_calls(m.get("tool_calls") or ())]
    return ImportedRun(
        source=source,
        format="openai",
        instance_id=str(named) if named else None,
        submission=patch or None,
        exit_status=row.get("exit_status") or row.get("stop_condition"),
        messages=tuple(messages),
        commands=tuple(commands),
        env_id=about.get("env_id"),
        resolved=None if resolved is None or resolved == -1 else bool(resolved),
        model=row.get("model") or row.get("model_name_or_path"),
    )


def _listed(messages: Any) -> list[Any]:
    """Messages kept as a list, or as a JSON string of one (some datasets do), or a bare
    completion string."""
    if isinstance(messages, str):
        try:
            messages = json.loads(messages)
        except json.JSONDecodeError:
            return [{"role": "assistant", "content": messages}]
    return list(messages) if isinstance(messages, list) else []


def _predictions(row: Mapping[str, Any], source: str, instance_id: str | None) -> ImportedRun:
    return ImportedRun(source=source, format="predictions", instance_id=instance_id,
                       submission=row.get("model_patch") or None, model=row.get("model_name_or_path"))  # fmt: skip


def _codegym(episode: Mapping[str, Any], source: str, format: str = "codegym") -> ImportedRun:
    final = final_step(episode)
    calls = [call for step in episode["steps"] for call in step.get("tool_calls") or () if "error" not in call]
    commands = [str(call["arguments"]["command"]) for call in calls if call.get("name") == "bash"]
    return ImportedRun(
        source=source,
        format=format,
        instance_id=(episode.get("task") or {}).get("id"),
        submission=final["info"]["code"] if final else None,
        exit_status=episode.get("ended"),
        messages=tuple(to_messages(episode)),
        commands=tuple(commands),
        env_id=episode.get("env_id"),
        resolved=None if final is None else solved_by(final),
    )


def _chat(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat message in OpenAI's shape (a tool's extra fields left out)."""
    out: dict[str, Any] = {"role": message.get("role"), "content": _text(message.get("content"))}
    if message.get("tool_calls"):
        out["tool_calls"] = [_normalized_call(call) for call in message["tool_calls"]]
    if message.get("tool_call_id"):
        out["tool_call_id"] = message["tool_call_id"]
    return out


def _normalized_call(call: Any) -> dict[str, Any]:
    if isinstance(call, str):  # (older verifiers saved each call as a JSON string)
        call = json.loads(call)
    flat = {"name": call.get("name"), "arguments": call.get("arguments", "{}")}  # (verifiers.v1's shape)
    function = call.get("function") or flat
    arguments = function.get("arguments", "{}")
    return {
        "id": call.get("id"),
        "type": "function",
        "function": {
            "name": function.get("name"),
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


def _bash_calls(calls: Iterable[Any]) -> list[str]:
    commands = []
    for call in calls:
        function = _normalized_call(call)["function"]
        if function["name"] in BASH_TOOLS:
            try:
                arguments = json.loads(function["arguments"] or "{}")
            except json.JSONDecodeError:
                continue
            if isinstance(arguments, Mapping) and isinstance(arguments.get("command"), str):
                commands.append(arguments["command"])
    return commands


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # (parts: keep the text ones)
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return "" if content is None else str(content)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".traj.json", ".traj", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
