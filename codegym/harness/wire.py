"""The three model APIs the harness proxy speaks, as pure functions: requests in, replies out.

An agent program calls OpenAI Chat Completions (``"chat"``), OpenAI Responses (``"responses"``)
or Anthropic Messages (``"messages"``). `parse_request` reads one call into a `ModelRequest`: the
body as sent and its faithful translation to Chat Completions form (``messages``, ``tools``),
which is what a policy sees. The policy answers with a `ModelReply`, and `render` writes it back
in the caller's API, as one JSON body or as the server-sent events a streaming client reads.

Translation rules, in short:

- A system prompt (``instructions``, Anthropic's ``system``) becomes a leading system message;
  a ``developer`` message becomes a system message (Responses: those right after the
  instructions join them, since many chat templates take one system message, at the start).
- Anthropic ``tool_use``/``tool_result`` blocks and Responses ``function_call``/
  ``function_call_output``/``custom_tool_call(_output)``/``local_shell_call(_output)`` items
  become assistant ``tool_calls`` and ``tool`` messages; an errored tool result's text starts
  with ``"Error: "``; images in a tool result follow it in a user message.
- Reasoning (Responses ``reasoning`` items, Anthropic ``thinking`` blocks) rides on the next
  assistant message as ``reasoning_content``.
- Content that is only text is one string (parts joined with a newline, as vLLM joins them);
  images stay OpenAI ``image_url`` parts.
- A freeform tool (Responses ``custom``, Codex's ``apply_patch``) becomes a function taking one
  string, ``input``; a reply calling it is written back as a ``custom_tool_call`` with that
  string. Responses ``local_shell`` becomes a function ``local_shell``. Tools that run on the
  vendor's servers (web search, file search, ...) cannot be offered: they are named in
  `ModelRequest.unsupported_tools`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codegym.error import Error
from codegym.harness.recipe import Api

Json = dict[str, Any]

LOCAL_SHELL = "local_shell"
_JOIN = "\n"  # how vLLM joins a message's text parts
_DELTAS = 4  # a streamed text arrives in about this many pieces
_MIN_DELTA = 16
_ERROR_PREFIX = "Error: "
_API_PATHS: dict[str, Api] = {"/chat/completions": "chat", "/responses": "responses", "/messages": "messages"}
_TO_ANTHROPIC_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "refusal"}
_FROM_ANTHROPIC_STOP = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "stop_sequence": "stop"}
_OPENAI_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "invalid_request_error",
}
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
}
_SHELL_SCHEMA: Json = {
    "type": "object",
    "properties": {
        "command": {"type": "array", "items": {"type": "string"}, "description": "The program and its arguments."},
        "working_directory": {"type": "string"},
        "timeout_ms": {"type": "integer"},
    },
    "required": ["command"],
}


class WireError(Error, ValueError):
    """A body that is not what its API expects (the proxy answers 400 with this message)."""


@dataclass(frozen=True)
class ModelRequest:
    """One model call as the program sent it, and its translation to Chat Completions form.

    Treat the dicts as read-only: they share objects with ``body``.

    Attributes:
        api: The API called.
        path: The request path (``"/v1/responses"``).
        body: The JSON object as sent.
        stream: Whether the program asked for server-sent events.
        model: The model name it asked for.
        messages: OpenAI chat messages (system, user, assistant with ``tool_calls``, tool).
        tools: OpenAI chat function tools (``{"type": "function", "function": {...}}``).
        tool_choice: Chat Completions ``tool_choice`` (``"auto"``, ``"required"``, ``"none"`` or
            ``{"type": "function", "function": {"name": ...}}``), None when not given.
        parallel_tool_calls: Whether several calls in one reply are allowed, None when not given.
        max_tokens: The reply's token limit, None when not given.
        temperature: Sampling temperature, None when not given.
        top_p: Nucleus sampling mass, None when not given.
        stop: Stop sequences.
        custom_tools: Names of freeform tools: their calls are written back as raw text.
        unsupported_tools: Tools offered that have no function form (server-side ones).
        include_usage: Chat streaming: the program asked for a final usage chunk.
        body_bytes: The size of the body (for estimating token counts).
    """

    api: Api
    path: str
    body: Mapping[str, Any]
    stream: bool
    model: str
    messages: tuple[Json, ...]
    tools: tuple[Json, ...] = ()
    tool_choice: str | Json | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    custom_tools: frozenset[str] = frozenset()
    unsupported_tools: tuple[str, ...] = ()
    include_usage: bool = False
    body_bytes: int = 0

    def chat_body(self) -> Json:
        """The non-streaming Chat Completions request body for this call."""
        body: Json = {"model": self.model, "messages": list(self.messages)}
        if self.tools:
            body["tools"] = list(self.tools)
            if self.tool_choice is not None:
                body["tool_choice"] = self.tool_choice
            if self.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = self.parallel_tool_calls
        for key, value in (("max_tokens", self.max_tokens), ("temperature", self.temperature), ("top_p", self.top_p)):
            if value is not None:
                body[key] = value
        if self.stop:
            body["stop"] = list(self.stop)
        return body


@dataclass(frozen=True)
class ReplyToolCall:
    """One tool call in a reply.

    Attributes:
        id: The call's id ("" lets `render` make one).
        name: The tool's name.
        arguments: JSON text of the arguments; for a freeform tool, the raw input text (JSON
            ``{"input": "..."}``, as a policy calling its function form writes, is unwrapped).
    """

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelReply:
    """The policy's answer to one model call (its action).

    Attributes:
        content: The reply's text.
        tool_calls: The tools it calls.
        reasoning: Its reasoning text, written back as reasoning/thinking where the API has it.
        finish_reason: Chat Completions' reason (``"stop"``, ``"length"``, ``"tool_calls"``);
            None infers it: ``"tool_calls"`` when there are tool calls, else ``"stop"``.
        prompt_tokens: Tokens in the prompt, None to estimate (body bytes / 4).
        completion_tokens: Tokens in the reply, None to estimate (reply characters / 4).
        token_ids: The reply's token ids, where the model server gave them.
        logprobs: The log-probability of each reply token, where given.
        prompt_token_ids: The prompt's token ids, where given.
    """

    content: str = ""
    tool_calls: tuple[ReplyToolCall, ...] = ()
    reasoning: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    token_ids: tuple[int, ...] | None = None
    logprobs: tuple[float, ...] | None = None
    prompt_token_ids: tuple[int, ...] | None = None

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> ModelReply:
        """The reply an OpenAI assistant message dict holds (content, tool calls, reasoning)."""
        if not isinstance(message, Mapping):
            raise WireError(f"an assistant message is a JSON object, found {type(message).__name__}")
        calls = tuple(_reply_tool_call(call) for call in message.get("tool_calls") or ())
        reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
        return cls(content=content_text(message.get("content")), tool_calls=calls, reasoning=str(reasoning))

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> ModelReply:
        """The reply `dataclasses.asdict` made ``fields`` from (a record's, the wire's)."""
        calls = tuple(ReplyToolCall(**call) for call in fields.get("tool_calls") or ())
        tuples = {name: tuple(fields[name]) for name in ("token_ids", "logprobs", "prompt_token_ids")
                  if fields.get(name) is not None}  # fmt: skip
        return cls(**{**fields, "tool_calls": calls, **tuples})

    @classmethod
    def from_chat_response(cls, response: Mapping[str, Any]) -> ModelReply:
        """The reply a ``chat.completion`` JSON holds, with vLLM's token ids and logprobs if present."""
        choices = response.get("choices") if isinstance(response, Mapping) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise WireError("a chat.completion has a non-empty `choices` list of objects; this one has none")
        choice = choices[0]
        reply = cls.from_message(choice.get("message") or {})
        usage = response.get("usage") or {}
        logprobs = (choice.get("logprobs") or {}).get("content")
        return cls(
            content=reply.content,
            tool_calls=reply.tool_calls,
            reasoning=reply.reasoning,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            token_ids=_ints(choice.get("token_ids")),
            logprobs=tuple(float(t["logprob"]) for t in logprobs) if isinstance(logprobs, list) else None,
            prompt_token_ids=_ints(response.get("prompt_token_ids") or choice.get("prompt_token_ids")),
        )


def api_for_path(path: str) -> Api | None:
    """The API served at ``path`` (with or without ``/v1``, query ignored), None for no model API."""
    path = path.split("?", 1)[0].rstrip("/")
    return _API_PATHS.get(path[3:] if path.startswith("/v1/") else path)


def parse_json(body: bytes) -> Json:
    """``body`` as a JSON object.

    Raises:
        WireError: It is not JSON, or not an object.
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as e:
        raise WireError(f"the body is not valid JSON ({e}); expected a JSON object") from e
    if not isinstance(data, dict):
        raise WireError(f"the body is a JSON {type(data).__name__}; expected a JSON object")
    return data


def parse_request(path: str, body: bytes) -> ModelRequest:
    """Read one model call (``body`` as POSTed to ``path``) and translate it.

    Raises:
        WireError: ``path`` is no model API, or ``body`` is not that API's request shape.
    """
    api = api_for_path(path)
    if api is None:
        raise WireError(f"no model API at {path!r}; expected /v1/chat/completions, /v1/responses or /v1/messages")
    data = parse_json(body)
    try:
        fields = _PARSERS[api](data)
    except (KeyError, TypeError, AttributeError) as e:
        raise WireError(f"not a valid {api} request: {type(e).__name__}: {e}") from e
    return ModelRequest(
        api=api,
        path=path,
        body=data,
        stream=data.get("stream") is True,
        model=str(data.get("model") or ""),
        temperature=_number(data.get("temperature")),
        top_p=_number(data.get("top_p")),
        body_bytes=len(body),
        **fields,
    )


def render(request: ModelRequest, reply: ModelReply, *, response_id: str) -> tuple[str, list[bytes]]:
    """``reply`` written in ``request``'s API: its content type and body.

    The body is one JSON document, or for a streaming request the server-sent events, each a
    complete ``event: ...\\ndata: ...\\n\\n`` (or ``data: ...\\n\\n``) chunk.
    """
    renderer = _RENDERERS[request.api]
    if request.stream:
        return "text/event-stream", list(renderer[1](request, reply, response_id))
    return "application/json", [_dumps(renderer[0](request, reply, response_id))]


def error_body(api: Api, status: int, message: str) -> bytes:
    """A JSON error body in ``api``'s error shape."""
    if api == "messages":
        kind = _ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return _dumps({"type": "error", "error": {"type": kind, "message": message}})
    kind = _OPENAI_ERRORS.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return _dumps({"error": {"message": message, "type": kind, "param": None, "code": None}})


# -- requests -------------------------------------------------------------------------------


def _parse_chat(data: Json) -> Json:
    messages = _required_list(data, "messages")
    options = data.get("stream_options") or {}
    tools, unsupported = [], []
    for tool in _tools(data):
        if tool.get("type", "function") == "function" and isinstance(tool.get("function"), Mapping):
            tools.append(_function(tool["function"]))
        else:
            unsupported.append(_tool_label(tool))
    return {
        "messages": tuple(_chat_message(m) for m in messages),
        "tools": tuple(tools),
        "unsupported_tools": tuple(unsupported),
        "tool_choice": _tool_choice(data.get("tool_choice")),
        "parallel_tool_calls": data.get("parallel_tool_calls"),
        "max_tokens": _int(data.get("max_completion_tokens", data.get("max_tokens"))),
        "stop": _strings(data.get("stop")),
        "include_usage": bool(options.get("include_usage")),
    }


def _chat_message(message: Any) -> Json:
    if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
        raise WireError(f"a chat message is an object with a string `role`; found {str(message)[:200]}")
    out = dict(message)
    if out["role"] == "developer":
        out["role"] = "system"
    if isinstance(out.get("content"), list):
        out["content"] = _content(out["content"], keep_other=True)
    return out


def _parse_responses(data: Json) -> Json:
    if data.get("previous_response_id"):
        raise WireError("previous_response_id is not supported: send the whole conversation in `input` (store=false)")
    raw = data.get("input")
    messages: list[Json] = []
    if isinstance(data.get("instructions"), str) and data["instructions"]:
        messages.append({"role": "system", "content": data["instructions"]})
    if isinstance(raw, str):
        messages.append({"role": "user", "content": raw})
    elif isinstance(raw, list):
        messages.extend(_responses_items(raw))
    else:
        raise WireError(f"`input` is a string or a list of items; found {type(raw).__name__}")
    tools, custom, unsupported = _responses_tools(_tools(data))
    return {
        "messages": _merge_leading_system(messages),
        "tools": tools,
        "custom_tools": custom,
        "unsupported_tools": unsupported,
        "tool_choice": _tool_choice(data.get("tool_choice")),
        "parallel_tool_calls": data.get("parallel_tool_calls"),
        "max_tokens": _int(data.get("max_output_tokens")),
    }


def _responses_items(items: list[Any]) -> list[Json]:
    out: list[Json] = []
    reasoning: list[str] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise WireError(f"an `input` item is an object; found {type(item).__name__}")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            if role not in ("user", "system", "developer", "assistant"):
                raise WireError(f"a message item's role is user, system, developer or assistant; found {role!r}")
            if role == "assistant":
                _new_assistant(out, reasoning)["content"] = content_text(item.get("content"))
            else:
                out.append({"role": "user" if role == "user" else "system", "content": _content(item.get("content"))})
        elif kind == "reasoning":
            parts = [*(item.get("summary") or ()), *(item.get("content") or ())]
            reasoning.extend(p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            _assistant(out, reasoning).setdefault("tool_calls", []).append(_history_call(item))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            out.extend(_tool_result(str(item.get("call_id") or item.get("id") or ""), item.get("output"), False))
    return out


def _history_call(item: Mapping[str, Any]) -> Json:
    kind = item["type"]
    if kind == "custom_tool_call":
        name, arguments = item["name"], _dumps_text({"input": item.get("input", "")})
    elif kind == "local_shell_call":
        action = {k: v for k, v in (item.get("action") or {}).items() if k != "type" and v is not None}
        name, arguments = LOCAL_SHELL, _dumps_text(action)
    else:
        name, arguments = item["name"], item.get("arguments") or "{}"
    call_id = str(item.get("call_id") or item.get("id") or "")
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _responses_tools(raw: Sequence[Mapping[str, Any]]) -> tuple[tuple[Json, ...], frozenset[str], tuple[str, ...]]:
    tools, custom, unsupported = [], set(), []
    for tool in raw:
        kind = tool.get("type")
        if kind == "function":
            tools.append(_function(tool))
        elif kind == "custom":
            tools.append(_freeform_function(tool))
            custom.add(tool["name"])
        elif kind == LOCAL_SHELL:
            desc = "Run a command on the local machine (argv form) and read its output."
            tools.append(_function({"name": LOCAL_SHELL, "description": desc, "parameters": _SHELL_SCHEMA}))
        else:
            unsupported.append(_tool_label(tool))
    return tuple(tools), frozenset(custom), tuple(unsupported)


def _freeform_function(tool: Mapping[str, Any]) -> Json:
    fmt = tool.get("format") or {}
    about = "The tool's raw input text (not JSON)."
    if fmt.get("type") == "grammar" and fmt.get("definition"):
        about += f" It must match this {fmt.get('syntax', '')} grammar:\n{fmt['definition']}"
    schema = {
        "type": "object",
        "properties": {"input": {"type": "string", "description": about}},
        "required": ["input"],
    }
    return _function({"name": tool["name"], "description": tool.get("description") or "", "parameters": schema})


def _parse_messages(data: Json) -> Json:
    raw = _required_list(data, "messages")
    messages: list[Json] = []
    system = data.get("system")
    if system:
        messages.append({"role": "system", "content": content_text(system)})
    for message in raw:
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "assistant", "system"):
            raise WireError(f"a message is an object with role user or assistant; found {str(message)[:200]}")
        content = message.get("content")
        if message["role"] == "system":  # (Claude Code sends its environment notes so, among the turns)
            messages.append({"role": "system", "content": content_text(content)})
            continue
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            raise WireError(f"a message's content is a string or a list of blocks; found {type(content).__name__}")
        messages.extend((_anthropic_assistant if message["role"] == "assistant" else _anthropic_user)(blocks))
    tools, unsupported = [], []
    for tool in _tools(data):
        if "input_schema" in tool and tool.get("type") in (None, "custom"):
            tools.append(_function({**tool, "parameters": tool["input_schema"]}))
        else:
            unsupported.append(_tool_label(tool))
    choice = data.get("tool_choice") or {}
    return {
        "messages": tuple(messages),
        "tools": tuple(tools),
        "unsupported_tools": tuple(unsupported),
        "tool_choice": _tool_choice(choice),
        "parallel_tool_calls": False if choice.get("disable_parallel_tool_use") else None,
        "max_tokens": _int(data.get("max_tokens")),
        "stop": _strings(data.get("stop_sequences")),
    }


def _anthropic_user(blocks: list[Any]) -> list[Json]:
    out: list[Json] = []
    parts: list[Any] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_result":
            out.extend(_tool_result(str(block.get("tool_use_id", "")), block.get("content"), block.get("is_error")))
        elif kind == "document":
            source = block.get("source") or {}
            parts.append({"type": "text", "text": source.get("data") if source.get("type") == "text" else "[document]"})
        else:
            parts.append(block)
    if parts:
        out.append({"role": "user", "content": _content(parts)})
    return out


def _anthropic_assistant(blocks: list[Any]) -> list[Json]:
    texts, thinking, calls = [], [], []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            texts.append(block["text"])
        elif kind == "thinking":
            thinking.append(block.get("thinking", ""))
        elif kind == "tool_use":
            arguments = _dumps_text(block.get("input") or {})
            calls.append(
                {"id": block["id"], "type": "function", "function": {"name": block["name"], "arguments": arguments}}
            )
    message: Json = {"role": "assistant", "content": _JOIN.join(texts)}
    if thinking:
        message["reasoning_content"] = _JOIN.join(thinking)
    if calls:
        message["tool_calls"] = calls
    return [message]


def _tool_result(call_id: str, output: Any, is_error: Any) -> list[Json]:
    content = _content(output) if isinstance(output, list) else ("" if output is None else str(output))
    images = [p for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []
    text = _JOIN.join(p["text"] for p in content if p.get("type") == "text") if isinstance(content, list) else content
    if is_error:
        text = _ERROR_PREFIX + text
    out: list[Json] = [{"role": "tool", "tool_call_id": call_id, "content": text}]
    if images:
        out.append({"role": "user", "content": images})
    return out


def _new_assistant(out: list[Json], reasoning: list[str]) -> Json:
    message: Json = {"role": "assistant", "content": ""}
    if reasoning:
        message["reasoning_content"] = _JOIN.join(reasoning)
        reasoning.clear()
    out.append(message)
    return message


def _assistant(out: list[Json], reasoning: list[str]) -> Json:
    """The assistant message a tool call joins: the last message when it is one, else a new one."""
    if out and out[-1]["role"] == "assistant" and not reasoning:
        return out[-1]
    return _new_assistant(out, reasoning)


def _merge_leading_system(messages: list[Json]) -> tuple[Json, ...]:
    """One system message for ``instructions`` and the developer messages right after it:
    many chat templates accept a system message only at the start."""
    count = 0
    while count < len(messages) and messages[count]["role"] == "system" and isinstance(messages[count]["content"], str):
        count += 1
    if count < 2:
        return tuple(messages)
    merged = {"role": "system", "content": _JOIN.join(m["content"] for m in messages[:count])}
    return (merged, *messages[count:])


def _content(parts: Any, *, keep_other: bool = False) -> str | list[Json]:
    """Message content as one string when it is only text, else OpenAI parts (other parts,
    such as audio, kept as they are with ``keep_other``, else dropped)."""
    if not isinstance(parts, list):
        return "" if parts is None else str(parts)
    out: list[Json] = []
    for part in parts:
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
            continue
        image = _image_part(part)
        if image is not None:
            out.append(image)
        elif isinstance(part.get("text"), str):
            out.append({"type": "text", "text": part["text"]})
        elif isinstance(part.get("refusal"), str):
            out.append({"type": "text", "text": part["refusal"]})
        elif keep_other:
            out.append(dict(part))
    if all(p["type"] == "text" for p in out):
        return _JOIN.join(p["text"] for p in out)
    return out


def _image_part(part: Mapping[str, Any]) -> Json | None:
    kind = part.get("type")
    if kind == "image_url":
        return dict(part)
    if kind == "input_image":
        url = part.get("image_url") or f"[image {part.get('file_id', '')}]"
        return {"type": "image_url", "image_url": {"url": url, "detail": part.get("detail") or "auto"}}
    if kind == "image":
        source = part.get("source") or {}
        if source.get("type") == "base64":
            return {"type": "image_url", "image_url": {"url": f"data:{source['media_type']};base64,{source['data']}"}}
        return {"type": "image_url", "image_url": {"url": source.get("url", "")}}
    return None


def content_text(content: Any) -> str:
    """Only the text of some content: a string, or a list of text parts/blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _JOIN.join(p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    raise WireError(f"content is a string or a list of parts; found {type(content).__name__}")


def _function(spec: Mapping[str, Any]) -> Json:
    if not isinstance(spec.get("name"), str):
        raise WireError(f"a function tool has a string `name`; found {str(spec)[:200]}")
    function: Json = {"name": spec["name"], "description": spec.get("description") or ""}
    function["parameters"] = spec.get("parameters") or {"type": "object", "properties": {}}
    if spec.get("strict") is not None:
        function["strict"] = spec["strict"]
    return {"type": "function", "function": function}


def _tool_choice(choice: Any) -> str | Json | None:
    if isinstance(choice, str):
        return {"any": "required"}.get(choice, choice)
    if not isinstance(choice, Mapping) or not choice:
        return None
    kind = choice.get("type")
    if kind in ("auto", "none", "any"):
        return "required" if kind == "any" else kind
    if kind == "allowed_tools":
        return choice.get("mode", "auto")
    name = (choice.get("function") or {}).get("name") or choice.get("name")
    return {"type": "function", "function": {"name": name}} if name else None


def _tools(data: Json) -> list[Mapping[str, Any]]:
    tools = data.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(tool, Mapping) for tool in tools):
        raise WireError(f"`tools` is a list of objects; found {str(tools)[:200]}")
    return tools


def _tool_label(tool: Mapping[str, Any]) -> str:
    return str(tool.get("type") or tool.get("name") or "?")


def _required_list(data: Json, key: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise WireError(f"`{key}` is a list; found {type(value).__name__}")
    return value


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value or ())


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _ints(value: Any) -> tuple[int, ...] | None:
    return tuple(int(v) for v in value) if isinstance(value, list) else None


def _reply_tool_call(call: Any) -> ReplyToolCall:
    if not isinstance(call, Mapping):
        raise WireError(f"a tool call is an object; found {type(call).__name__}")
    if call.get("type") == "custom":
        custom = call.get("custom") or {}
        return ReplyToolCall(
            id=str(call.get("id") or ""), name=str(custom.get("name")), arguments=custom.get("input", "")
        )
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = _dumps_text(arguments if arguments is not None else {})
    return ReplyToolCall(id=str(call.get("id") or ""), name=str(function.get("name") or ""), arguments=arguments)


_PARSERS: dict[Api, Callable[[Json], Json]] = {
    "chat": _parse_chat,
    "responses": _parse_responses,
    "messages": _parse_messages,
}


# -- replies --------------------------------------------------------------------------------


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _dumps_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


def _pieces(text: str) -> Iterator[str]:
    """``text`` in a few pieces (never one per character), so clients accumulate deltas."""
    size = max(_MIN_DELTA, -(-len(text) // _DELTAS))
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _finish(reply: ModelReply) -> str:
    reason = _FROM_ANTHROPIC_STOP.get(reply.finish_reason or "", reply.finish_reason)
    if reply.tool_calls and reason in (None, "stop"):
        return "tool_calls"
    return reason or "stop"


def _usage(request: ModelRequest, reply: ModelReply) -> tuple[int, int]:
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else request.body_bytes // 4
    if reply.completion_tokens is not None:
        return prompt, reply.completion_tokens
    size = len(reply.content) + len(reply.reasoning) + sum(len(c.name) + len(c.arguments) for c in reply.tool_calls)
    return prompt, max(1, size // 4)


def _call_id(call: ReplyToolCall, response_id: str, index: int, prefix: str = "call") -> str:
    return call.id or f"{prefix}_{response_id}_{index}"


def _custom_input(arguments: str) -> str:
    """A freeform tool's raw input: the ``input`` of a function-style call, else the text itself."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    return value["input"] if isinstance(value, dict) and isinstance(value.get("input"), str) else arguments


def _tool_input(arguments: str) -> Json:
    """Anthropic's ``input`` object for a call (``{}`` when the arguments are not a JSON object)."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _chat_completion(request: ModelRequest, reply: ModelReply, response_id: str) -> Json:
    message: Json = {"role": "assistant", "content": reply.content or (None if reply.tool_calls else "")}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(c, response_id, i),
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, c in enumerate(reply.tool_calls)
        ]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(reply)}
    return {
        **_chat_head(request, response_id, "chat.completion"),
        "choices": [choice],
        "usage": _chat_usage(request, reply),
    }


def _chat_events(request: ModelRequest, reply: ModelReply, response_id: str) -> Iterator[bytes]:
    head = _chat_head(request, response_id, "chat.completion.chunk")

    def chunk(delta: Json, finish: str | None = None) -> bytes:
        return _sse({**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    yield from (chunk({"reasoning_content": piece}) for piece in _pieces(reply.reasoning))
    yield from (chunk({"content": piece}) for piece in _pieces(reply.content))
    for i, call in enumerate(reply.tool_calls):
        start = {"index": i, "id": _call_id(call, response_id, i), "type": "function"}
        yield chunk({"tool_calls": [{**start, "function": {"name": call.name, "arguments": ""}}]})
        for piece in _pieces(call.arguments):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, _finish(reply))
    if request.include_usage:
        yield _sse({**head, "choices": [], "usage": _chat_usage(request, reply)})
    yield b"data: [DONE]\n\n"


def _chat_head(request: ModelRequest, response_id: str, kind: str) -> Json:
    return {"id": response_id, "object": kind, "created": int(time.time()), "model": request.model}


def _chat_usage(request: ModelRequest, reply: ModelReply) -> Json:
    prompt, completion = _usage(request, reply)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _response_items(request: ModelRequest, reply: ModelReply, response_id: str) -> list[Json]:
    items: list[Json] = []
    if reply.reasoning:
        summary = [{"type": "summary_text", "text": reply.reasoning}]
        items.append({"type": "reasoning", "id": f"rs_{response_id}", "summary": summary})
    if reply.content or not reply.tool_calls:
        part = {"type": "output_text", "text": reply.content, "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_{response_id}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for i, call in enumerate(reply.tool_calls):
        item: Json = {"id": f"fc_{response_id}_{i}", "call_id": _call_id(call, response_id, i), "status": "completed"}
        if call.name in request.custom_tools:
            item.update(type="custom_tool_call", name=call.name, input=_custom_input(call.arguments))
        elif call.name == LOCAL_SHELL and any(t["function"]["name"] == LOCAL_SHELL for t in request.tools):
            item.update(type="local_shell_call", action=_shell_action(_tool_input(call.arguments)))
        else:
            item.update(type="function_call", name=call.name, arguments=call.arguments)
        items.append(item)
    return items


def _shell_action(arguments: Json) -> Json:
    """A ``local_shell_call`` action from a call's arguments, keeping only well-typed fields
    (Codex rejects an item whose fields have the wrong types)."""
    command = arguments.get("command")
    ok = isinstance(command, list) and all(isinstance(word, str) for word in command)
    action: Json = {"type": "exec", "command": command if ok else [], "env": {}}
    for key, kind in (("working_directory", str), ("timeout_ms", int), ("user", str)):
        if isinstance(arguments.get(key), kind):
            action[key] = arguments[key]
    return action


def _response(request: ModelRequest, reply: ModelReply, response_id: str, output: list[Json] | None = None) -> Json:
    """The Responses ``response`` object: complete, or in progress when ``output`` is None."""
    body = request.body
    response: Json = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress" if output is None else "completed",
        "error": None,
        "incomplete_details": None,
        "model": request.model,
        "output": output or [],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": [],  # not echoed: the program has them, and they are large
        "temperature": request.temperature,
        "top_p": request.top_p,
        "max_output_tokens": request.max_tokens,
        "store": False,
        "text": {"format": {"type": "text"}},
        "usage": None,
    }
    if output is not None:
        prompt, completion = _usage(request, reply)
        response["usage"] = {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        }
    return response


def _responses_body(request: ModelRequest, reply: ModelReply, response_id: str) -> Json:
    return _response(request, reply, response_id, _response_items(request, reply, response_id))


def _responses_events(request: ModelRequest, reply: ModelReply, response_id: str) -> Iterator[bytes]:
    sequence = iter(range(1 << 62))

    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, "sequence_number": next(sequence), **fields}, kind)

    started = _response(request, reply, response_id)
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    output = _response_items(request, reply, response_id)
    for index, item in enumerate(output):
        yield from _item_events(event, index, item)
    yield event("response.completed", response=_response(request, reply, response_id, output))


def _item_events(event: Callable[..., bytes], index: int, item: Json) -> Iterator[bytes]:
    at = {"item_id": item["id"], "output_index": index}
    kind = item["type"]
    empty = {"reasoning": {"summary": []}, "message": {"content": []}, "function_call": {"arguments": ""}}
    empty["custom_tool_call"] = {"input": ""}
    yield event(
        "response.output_item.added", output_index=index, item={**item, "status": "in_progress", **empty.get(kind, {})}
    )
    if kind == "reasoning":
        text = item["summary"][0]["text"]
        yield event(
            "response.reasoning_summary_part.added", **at, summary_index=0, part={"type": "summary_text", "text": ""}
        )
        for piece in _pieces(text):
            yield event("response.reasoning_summary_text.delta", **at, summary_index=0, delta=piece)
        yield event("response.reasoning_summary_text.done", **at, summary_index=0, text=text)
        yield event("response.reasoning_summary_part.done", **at, summary_index=0, part=item["summary"][0])
    elif kind == "message":
        part = item["content"][0]
        yield event("response.content_part.added", **at, content_index=0, part={**part, "text": ""})
        for piece in _pieces(part["text"]):
            yield event("response.output_text.delta", **at, content_index=0, delta=piece, logprobs=[])
        yield event("response.output_text.done", **at, content_index=0, text=part["text"], logprobs=[])
        yield event("response.content_part.done", **at, content_index=0, part=part)
    elif kind == "function_call":
        for piece in _pieces(item["arguments"]):
            yield event("response.function_call_arguments.delta", **at, delta=piece)
        yield event("response.function_call_arguments.done", **at, name=item["name"], arguments=item["arguments"])
    elif kind == "custom_tool_call":
        for piece in _pieces(item["input"]):
            yield event("response.custom_tool_call_input.delta", **at, delta=piece)
        yield event("response.custom_tool_call_input.done", **at, input=item["input"])
    yield event("response.output_item.done", output_index=index, item=item)


def _message_blocks(request: ModelRequest, reply: ModelReply, response_id: str) -> list[Json]:
    blocks: list[Json] = []
    if reply.reasoning:
        blocks.append({"type": "thinking", "thinking": reply.reasoning, "signature": f"codegym-{response_id}"})
    if reply.content or not reply.tool_calls:
        blocks.append({"type": "text", "text": reply.content})
    for i, call in enumerate(reply.tool_calls):
        call_id = _call_id(call, response_id, i, "toolu")
        blocks.append({"type": "tool_use", "id": call_id, "name": call.name, "input": _tool_input(call.arguments)})
    return blocks


def _message(request: ModelRequest, reply: ModelReply, response_id: str, blocks: list[Json] | None = None) -> Json:
    prompt, completion = _usage(request, reply)
    finish = _finish(reply)
    return {
        "id": response_id,
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": _message_blocks(request, reply, response_id) if blocks is None else blocks,
        "stop_reason": None if blocks is not None else _TO_ANTHROPIC_STOP.get(finish, finish),
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt,
            "output_tokens": completion if blocks is None else 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _message_events(request: ModelRequest, reply: ModelReply, response_id: str) -> Iterator[bytes]:
    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, **fields}, kind)

    yield event("message_start", message=_message(request, reply, response_id, blocks=[]))
    for index, block in enumerate(_message_blocks(request, reply, response_id)):
        kind = block["type"]
        if kind == "thinking":
            yield event("content_block_start", index=index, content_block={**block, "thinking": "", "signature": ""})
            for piece in _pieces(block["thinking"]):
                yield event("content_block_delta", index=index, delta={"type": "thinking_delta", "thinking": piece})
            yield event(
                "content_block_delta", index=index, delta={"type": "signature_delta", "signature": block["signature"]}
            )
        elif kind == "text":
            yield event("content_block_start", index=index, content_block={"type": "text", "text": ""})
            for piece in _pieces(block["text"]):
                yield event("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
        else:
            yield event("content_block_start", index=index, content_block={**block, "input": {}})
            for piece in _pieces(_dumps_text(block["input"])):
                yield event(
                    "content_block_delta", index=index, delta={"type": "input_json_delta", "partial_json": piece}
                )
        yield event("content_block_stop", index=index)
    finish = _finish(reply)
    delta = {"stop_reason": _TO_ANTHROPIC_STOP.get(finish, finish), "stop_sequence": None}
    yield event("message_delta", delta=delta, usage={"output_tokens": _usage(request, reply)[1]})
    yield event("message_stop")


_Renderer = Callable[[ModelRequest, ModelReply, str], Any]
_RENDERERS: dict[Api, tuple[_Renderer, _Renderer]] = {
    "chat": (_chat_completion, _chat_events),
    "responses": (_responses_body, _responses_events),
    "messages": (_message, _message_events),
}

__all__ = [
    "LOCAL_SHELL",
    "ModelReply",
    "ModelRequest",
    "ReplyToolCall",
    "WireError",
    "api_for_path",
    "error_body",
    "parse_json",
    "parse_request",
    "render",
]
