"""codegym.harness.wire: calls shaped as the agent programs send them, translated; replies rendered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegym.harness.wire import (
    ModelReply,
    ModelRequest,
    ReplyToolCall,
    WireError,
    api_for_path,
    error_body,
    parse_request,
    render,
)

PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"

# What Codex CLI sends to /v1/responses (trimmed): instructions, a developer message, reasoning
# it produced before, function and freeform tool calls with their outputs, and tools of four kinds.
CODEX_BODY: dict[str, Any] = {
    "model": "codegym-policy",
    "instructions": "You are Codex, a coding agent.",
    "input": [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "<permissions>workspace-write</permissions>"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<env>cwd=/w</env>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the failing test."}]},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Run the tests first."}],
            "content": None,
            "encrypted_content": None,
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "content": [{"type": "output_text", "text": "Running the tests.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "name": "shell",
            "arguments": '{"command":["pytest"]}',
            "call_id": "c1",
        },
        {"type": "function_call_output", "call_id": "c1", "output": "1 failed"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c2", "name": "apply_patch", "input": PATCH},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."},
        {"type": "function_call", "name": "view_image", "arguments": '{"path":"p.png"}', "call_id": "c3"},
        {
            "type": "function_call_output",
            "call_id": "c3",
            "output": [
                {"type": "input_text", "text": "the image:"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
    ],
    "tools": [
        {
            "type": "function",
            "name": "shell",
            "description": "Runs a command.",
            "strict": False,
            "parameters": {"type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}}},
        },
        {
            "type": "custom",
            "name": "apply_patch",
            "description": "Edit files with a patch.",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch hunk+ end_patch"},
        },
        {"type": "local_shell"},
        {"type": "web_search"},
    ],
    "tool_choice": "auto",
    "parallel_tool_calls": False,
    "reasoning": {"effort": "medium", "summary": "auto"},
    "store": False,
    "stream": True,
    "include": ["reasoning.encrypted_content"],
    "prompt_cache_key": "k",
    "max_output_tokens": 4096,
}

# What Claude Code sends to /v1/messages (trimmed): a system list with cache_control, thinking
# and two tool_use blocks, tool results (one with an image, one an error), a server-side tool.
CLAUDE_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 32000,
    "stream": True,
    "system": [
        {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}},
    ],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>todo list empty</system-reminder>"},
                {"type": "text", "text": "Fix the bug.", "cache_control": {"type": "ephemeral"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Read a.py first.", "signature": "sig"},
                {"type": "text", "text": "Reading it."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/a.py"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pytest -q"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [
                        {"type": "text", "text": "1\tx = 1"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                    ],
                },
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True, "content": "Exit code 1"},
                {"type": "text", "text": "keep going"},
            ],
        },
    ],
    "tools": [
        {
            "name": "Bash",
            "description": "Run a command.",
            "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
        },
        {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object", "properties": {}}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
    ],
    "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    "stop_sequences": ["</done>"],
    "temperature": 1,
    "metadata": {"user_id": "u"},
}

# What mini-swe-agent or OpenCode sends to /v1/chat/completions.
CHAT_BODY: dict[str, Any] = {
    "model": "codegym-policy",
    "messages": [
        {"role": "developer", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": "Fix it."}, {"type": "text", "text": "Quickly."}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "bash", "arguments": '{"cmd":"ls"}'}}],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "a.py"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            ],
        },
    ],
    "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
    "stream": True,
    "stream_options": {"include_usage": True},
    "max_completion_tokens": 512,
    "temperature": 0.2,
    "stop": "END",
}

REPLY = ModelReply(
    content="I will run the tests, then patch the file. " * 3,
    tool_calls=(
        ReplyToolCall("call_a", "shell", '{"command": ["pytest", "-q"]}'),
        ReplyToolCall("call_b", "apply_patch", json.dumps({"input": PATCH})),
    ),
    reasoning="The test fails on x; change it.",
    prompt_tokens=300,
    completion_tokens=40,
)


def _parse(path: str, body: dict[str, Any]) -> ModelRequest:
    return parse_request(path, json.dumps(body).encode())


def _events(chunks: list[bytes]) -> list[tuple[str | None, Any]]:
    """The (event name, data) of each SSE chunk, checking each is one complete event."""
    events: list[tuple[str | None, Any]] = []
    for chunk in chunks:
        text = chunk.decode()
        assert text.endswith("\n\n") and text.count("\n\n") == 1, text
        lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
        data = lines["data"]
        events.append((lines.get("event"), data if data == "[DONE]" else json.loads(data)))
    return events


# -- requests -------------------------------------------------------------------------------


def test_codex_responses_request_translates_items_into_chat_messages() -> None:
    request = _parse("/v1/responses", CODEX_BODY)
    assert (request.api, request.stream, request.model, request.max_tokens) == (
        "responses",
        True,
        "codegym-policy",
        4096,
    )
    system, env, task, turn, shell_out, patch_turn, patch_out, image_turn, image_out, image = request.messages
    assert system == {
        "role": "system",
        "content": "You are Codex, a coding agent.\n<permissions>workspace-write</permissions>",
    }
    assert env == {"role": "user", "content": "<env>cwd=/w</env>"}
    assert task == {"role": "user", "content": "Fix the failing test."}
    assert turn == {
        "role": "assistant",
        "content": "Running the tests.",
        "reasoning_content": "Run the tests first.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": '{"command":["pytest"]}'}}
        ],
    }
    assert shell_out == {"role": "tool", "tool_call_id": "c1", "content": "1 failed"}
    assert patch_turn["tool_calls"][0]["function"] == {"name": "apply_patch", "arguments": json.dumps({"input": PATCH})}
    assert patch_out == {"role": "tool", "tool_call_id": "c2", "content": "Success."}
    assert image_turn["tool_calls"][0]["id"] == "c3"
    assert image_out == {"role": "tool", "tool_call_id": "c3", "content": "the image:"}
    assert image == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "auto"}}],
    }


def test_codex_tools_become_functions_and_server_tools_are_named() -> None:
    request = _parse("/v1/responses", CODEX_BODY)
    names = [tool["function"]["name"] for tool in request.tools]
    assert names == ["shell", "apply_patch", "local_shell"]
    assert all(tool["type"] == "function" for tool in request.tools)
    patch = request.tools[1]["function"]
    assert patch["parameters"]["required"] == ["input"]
    assert "start: begin_patch hunk+ end_patch" in patch["parameters"]["properties"]["input"]["description"]
    assert request.tools[0]["function"]["strict"] is False
    assert request.custom_tools == frozenset({"apply_patch"})
    assert request.unsupported_tools == ("web_search",)
    assert (request.tool_choice, request.parallel_tool_calls) == ("auto", False)
    body = request.chat_body()
    assert body["tools"] == list(request.tools)
    assert body["max_tokens"] == 4096
    assert "stream" not in body


def test_responses_input_may_be_a_string_and_tool_choice_names_a_tool() -> None:
    body = {
        "model": "m",
        "input": "hi",
        "tools": [CODEX_BODY["tools"][1]],
        "tool_choice": {"type": "custom", "name": "apply_patch"},
    }
    request = _parse("/responses", body)
    assert request.messages == ({"role": "user", "content": "hi"},)
    assert request.tool_choice == {"type": "function", "function": {"name": "apply_patch"}}
    assert request.stream is False


def test_responses_local_shell_history_becomes_a_tool_call() -> None:
    action = {"type": "exec", "command": ["ls", "-la"], "env": {}, "working_directory": None}
    body = {
        "model": "m",
        "input": [
            {"type": "local_shell_call", "id": "ls_1", "call_id": "c9", "status": "completed", "action": action},
            {"type": "local_shell_call_output", "id": "c9", "output": "total 0"},
        ],
    }
    turn, output = _parse("/v1/responses", body).messages
    assert turn["tool_calls"][0]["function"] == {
        "name": "local_shell",
        "arguments": '{"command": ["ls", "-la"], "env": {}}',
    }
    assert output == {"role": "tool", "tool_call_id": "c9", "content": "total 0"}


def test_claude_code_messages_request_translates_blocks() -> None:
    request = _parse("/v1/messages", CLAUDE_BODY)
    assert (request.api, request.stream, request.max_tokens, request.temperature) == ("messages", True, 32000, 1.0)
    system, user, turn, read_out, read_image, bash_out, keep_going = request.messages
    assert system == {"role": "system", "content": "You are Claude Code.\nBe brief."}
    assert user == {"role": "user", "content": "<system-reminder>todo list empty</system-reminder>\nFix the bug."}
    assert turn == {
        "role": "assistant",
        "content": "Reading it.",
        "reasoning_content": "Read a.py first.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"file_path": "/w/a.py"}'},
            },
            {
                "id": "toolu_2",
                "type": "function",
                "function": {"name": "Bash", "arguments": '{"command": "pytest -q"}'},
            },
        ],
    }
    assert read_out == {"role": "tool", "tool_call_id": "toolu_1", "content": "1\tx = 1"}
    assert read_image == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
    }
    assert bash_out == {"role": "tool", "tool_call_id": "toolu_2", "content": "Error: Exit code 1"}
    assert keep_going == {"role": "user", "content": "keep going"}


def test_claude_code_tools_and_options() -> None:
    request = _parse("/v1/messages", CLAUDE_BODY)
    bash = request.tools[0]["function"]
    assert bash == {
        "name": "Bash",
        "description": "Run a command.",
        "parameters": CLAUDE_BODY["tools"][0]["input_schema"],
    }
    assert [t["function"]["name"] for t in request.tools] == ["Bash", "Read"]
    assert request.unsupported_tools == ("web_search_20250305",)
    assert (request.tool_choice, request.parallel_tool_calls, request.stop) == ("required", False, ("</done>",))


def test_chat_request_is_kept_with_text_parts_flattened() -> None:
    request = _parse("/v1/chat/completions", CHAT_BODY)
    system, user, turn, tool, image = request.messages
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    assert user == {"role": "user", "content": "Fix it.\nQuickly."}
    assert turn == CHAT_BODY["messages"][2]
    assert tool == CHAT_BODY["messages"][3]
    assert image["content"][1:] == CHAT_BODY["messages"][4]["content"][1:]  # images and audio kept
    assert request.tools[0]["function"]["name"] == "bash"
    assert (request.max_tokens, request.temperature, request.stop, request.include_usage) == (512, 0.2, ("END",), True)
    assert request.body == CHAT_BODY


def test_api_for_path() -> None:
    assert api_for_path("/v1/chat/completions") == "chat"
    assert api_for_path("/responses?x=1") == "responses"
    assert api_for_path("/v1/messages/") == "messages"
    assert api_for_path("/v1/messages/count_tokens") is None
    assert api_for_path("/v2/chat/completions") is None


@pytest.mark.parametrize(
    ("path", "body", "match"),
    [
        ("/v1/chat/completions", b"{not json", "not valid JSON"),
        ("/v1/chat/completions", b"\xff\xfe\x00", "not valid JSON"),
        ("/v1/chat/completions", b"[" * 100_000, "not valid JSON"),
        ("/v1/chat/completions", b"[1, 2]", "JSON list; expected a JSON object"),
        ("/v1/chat/completions", b'{"model": "m"}', "`messages` is a list; found NoneType"),
        ("/v1/chat/completions", b'{"messages": ["hi"]}', "a chat message is an object"),
        ("/v1/chat/completions", b'{"messages": [], "tools": [7]}', "`tools` is a list of objects"),
        ("/v1/responses", b'{"input": 3}', "`input` is a string or a list of items; found int"),
        ("/v1/responses", b'{"input": [{"type": "message", "role": "robot"}]}', "role is user, system, developer"),
        ("/v1/responses", b'{"input": [{"type": "function_call"}]}', "not a valid responses request: KeyError"),
        ("/v1/responses", b'{"input": "x", "previous_response_id": "r"}', "previous_response_id is not supported"),
        ("/v1/messages", b'{"messages": [{"role": "tool", "content": "x"}]}', "role user or assistant"),
        ("/v1/messages", b'{"messages": [{"role": "user", "content": 5}]}', "content is a string or a list of blocks"),
        ("/v1/embeddings", b"{}", "no model API at '/v1/embeddings'"),
    ],
)
def test_malformed_requests_say_what_was_expected(path: str, body: bytes, match: str) -> None:
    with pytest.raises(WireError, match=match):
        parse_request(path, body)


# -- replies --------------------------------------------------------------------------------


def test_reply_from_vllm_chat_response_keeps_token_ids_and_logprobs() -> None:
    response = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "prompt_token_ids": [1, 2, 3],
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "ok",
                    "reasoning_content": "think",
                    "tool_calls": [
                        {"id": "x", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}
                    ],
                },
                "finish_reason": "tool_calls",
                "token_ids": [7, 8],
                "logprobs": {"content": [{"token": "o", "logprob": -0.5}, {"token": "k", "logprob": -0.25}]},
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }
    assert ModelReply.from_chat_response(response) == ModelReply(
        content="ok",
        tool_calls=(ReplyToolCall("x", "bash", '{"cmd": "ls"}'),),
        reasoning="think",
        finish_reason="tool_calls",
        prompt_tokens=3,
        completion_tokens=2,
        token_ids=(7, 8),
        logprobs=(-0.5, -0.25),
        prompt_token_ids=(1, 2, 3),
    )


def test_reply_from_message_reads_dict_arguments_custom_calls_and_reasoning() -> None:
    reply = ModelReply.from_message(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "reasoning": "r",
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": {"k": 1}}},
                {"id": "2", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}},
            ],
        }
    )
    assert reply.content == "a\nb"
    assert reply.reasoning == "r"
    assert reply.tool_calls == (ReplyToolCall("1", "f", '{"k": 1}'), ReplyToolCall("2", "apply_patch", PATCH))
    with pytest.raises(WireError, match="non-empty `choices`"):
        ModelReply.from_chat_response({"choices": []})
    with pytest.raises(WireError, match="a tool call is an object"):
        ModelReply.from_message({"tool_calls": ["f"]})


def test_chat_render_json_infers_tool_calls_finish() -> None:
    request = _parse("/v1/chat/completions", {**CHAT_BODY, "stream": False})
    content_type, [body] = render(request, REPLY, response_id="chatcmpl-1")
    completion = json.loads(body)
    assert content_type == "application/json"
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][1]["function"]["arguments"] == json.dumps({"input": PATCH})
    assert completion["usage"] == {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340}
    _, [bare] = render(request, ModelReply(content="hi"), response_id="c")
    parsed = json.loads(bare)
    assert parsed["choices"][0]["finish_reason"] == "stop"
    assert parsed["usage"]["prompt_tokens"] == request.body_bytes // 4


def test_chat_render_stream_splits_text_into_a_few_deltas_and_ends_with_done() -> None:
    request = _parse("/v1/chat/completions", CHAT_BODY)
    content_type, chunks = render(request, REPLY, response_id="chatcmpl-1")
    events = _events(chunks)
    assert content_type == "text/event-stream"
    assert events[-1] == (None, "[DONE]")
    deltas = [e["choices"][0]["delta"] for _, e in events[:-2]]
    texts = [d["content"] for d in deltas if d.get("content")]
    assert "".join(texts) == REPLY.content
    assert 1 < len(texts) <= 4
    arguments = "".join(c["function"]["arguments"] for d in deltas for c in d.get("tool_calls", ()) if c["index"] == 0)
    assert arguments == REPLY.tool_calls[0].arguments
    usage = events[-2][1]
    assert (usage["choices"], usage["usage"]["total_tokens"]) == ([], 340)


def test_responses_render_stream_sequence() -> None:
    request = _parse("/v1/responses", CODEX_BODY)
    _, chunks = render(request, REPLY, response_id="resp_1")
    events = _events(chunks)
    assert all(name == data["type"] for name, data in events)
    assert [data["sequence_number"] for _, data in events] == list(range(len(events)))
    kinds = [name for name, _ in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert kinds.count("response.output_item.added") == kinds.count("response.output_item.done") == 4
    final = events[-1][1]["response"]
    assert [item["type"] for item in final["output"]] == ["reasoning", "message", "function_call", "custom_tool_call"]
    assert final["output"][3]["input"] == PATCH  # unwrapped from {"input": ...}
    assert final["usage"]["total_tokens"] == 340
    typed = "".join(d["delta"] for _, d in events if d["type"] == "response.custom_tool_call_input.delta")
    assert typed == PATCH


def test_responses_render_local_shell_and_raw_custom_input() -> None:
    request = _parse("/v1/responses", {**CODEX_BODY, "stream": False})
    reply = ModelReply(
        tool_calls=(
            ReplyToolCall("", "local_shell", '{"command": ["ls"], "timeout_ms": 1000}'),
            ReplyToolCall("", "apply_patch", PATCH),
            ReplyToolCall("", "local_shell", '{"command": "ls", "timeout_ms": "soon"}'),
        )
    )
    _, [body] = render(request, reply, response_id="resp_2")
    shell, patch, bad_shell = json.loads(body)["output"]
    assert bad_shell["action"] == {"type": "exec", "command": [], "env": {}}  # what Codex can read
    assert shell["type"] == "local_shell_call"
    assert shell["action"] == {"type": "exec", "command": ["ls"], "env": {}, "timeout_ms": 1000}
    assert shell["call_id"] == "call_resp_2_0"
    assert (patch["type"], patch["input"]) == ("custom_tool_call", PATCH)


def test_messages_render_json_and_stream() -> None:
    request = _parse("/v1/messages", {**CLAUDE_BODY, "stream": False})
    reply = ModelReply(
        content="Running it.",
        tool_calls=(ReplyToolCall("toolu_9", "Bash", '{"command": "pytest"}'), ReplyToolCall("", "Read", "not json")),
        finish_reason="length",
    )
    _, [body] = render(request, reply, response_id="msg_1")
    message = json.loads(body)
    assert [b["type"] for b in message["content"]] == ["text", "tool_use", "tool_use"]
    assert message["content"][1]["input"] == {"command": "pytest"}
    assert message["content"][2] == {"type": "tool_use", "id": "toolu_msg_1_1", "name": "Read", "input": {}}
    assert message["stop_reason"] == "max_tokens"
    _, chunks = render(_parse("/v1/messages", CLAUDE_BODY), reply, response_id="msg_1")
    kinds = [name for name, _ in _events(chunks)]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 3


def test_error_bodies_take_each_api_shape() -> None:
    assert json.loads(error_body("messages", 413, "too big")) == {
        "type": "error",
        "error": {"type": "request_too_large", "message": "too big"},
    }
    assert json.loads(error_body("messages", 500, "x"))["error"]["type"] == "api_error"
    openai_shape = json.loads(error_body("responses", 400, "bad"))
    assert openai_shape == {"error": {"message": "bad", "type": "invalid_request_error", "param": None, "code": None}}
    assert json.loads(error_body("chat", 503, "x"))["error"]["type"] == "server_error"


@pytest.mark.parametrize(
    ("program", "path", "api"),
    [("codex", "/v1/responses", "responses"), ("opencode", "/v1/chat/completions", "chat"),
     ("claude-code", "/v1/messages", "messages")],
)  # fmt: skip
def test_each_programs_captured_first_request_translates(program: str, path: str, api: str) -> None:
    """The first request each program really sent (captured, long texts trimmed) reads whole:
    Claude Code's environment notes come as a system message among the turns."""
    body = (Path(__file__).parent / "fixtures" / f"{program}_first_request.json").read_bytes()
    request = parse_request(path, body)
    assert request.api == api and request.stream
    assert request.messages[0]["role"] == "system" and any(m["role"] == "user" for m in request.messages)
    assert request.tools and all(tool["type"] == "function" for tool in request.tools)
