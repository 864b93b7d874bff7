"""codegym.harness.proxy: the real OpenAI and Anthropic SDK clients talk to a running ModelProxy."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import shutil
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest

from codegym.harness.proxy import Forwarder, ModelProxy, UpstreamError
from codegym.harness.wire import ModelReply, ModelRequest, ReplyToolCall, parse_request

PATCH = "*** Begin Patch\n*** Add File: b.py\n+print('hi')\n*** End Patch\n"
REPLY = ModelReply(
    content="I will run the tests and then patch the file; " * 3,
    tool_calls=(
        ReplyToolCall("call_a", "shell", '{"command": ["pytest", "-q"], "note": "caf\\u00e9 \\"quoted\\""}'),
        ReplyToolCall("call_b", "apply_patch", json.dumps({"input": PATCH})),
    ),
    reasoning="The test fails; look at it first, then patch.",
    prompt_tokens=321,
    completion_tokens=45,
)
SHELL_ARGS = {"command": ["pytest", "-q"], "note": 'café "quoted"'}
SHELL_TOOL: Any = {
    "type": "function",
    "name": "shell",
    "description": "Run a command.",
    "parameters": {"type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}}},
}
PATCH_TOOL: Any = {"type": "custom", "name": "apply_patch", "description": "Edit files."}


class Policy:
    """An ``answer`` returning fixed replies, recording what it was asked."""

    def __init__(self, reply: ModelReply = REPLY) -> None:
        self.reply = reply
        self.fail: Exception | None = None
        self.requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if self.fail is not None:
            raise self.fail
        return self.reply


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    # AF_UNIX paths are capped at 107 bytes: pytest's tmp_path can be longer
    path = Path(tempfile.mkdtemp(prefix="cgp", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class Served:
    """A running proxy, its policy, and clients that reach it (httpx, OpenAI, Anthropic)."""

    proxy: ModelProxy
    policy: Policy
    http: httpx.Client
    oai: openai.OpenAI
    claude: anthropic.Anthropic


@pytest.fixture(params=["tcp", "unix"])
def served(request: pytest.FixtureRequest, sock_dir: Path) -> Iterator[Served]:
    policy = Policy()
    # anthropic 2.x runs on httpx2, a fork of httpx: each SDK takes its own package's client
    if request.param == "tcp":
        proxy, transport, transport2 = ModelProxy(policy, port=0), httpx.HTTPTransport(), httpx2.HTTPTransport()
    else:
        path = str(sock_dir / "model.sock")
        proxy = ModelProxy(policy, path=path)
        transport, transport2 = httpx.HTTPTransport(uds=path), httpx2.HTTPTransport(uds=path)
    with proxy, httpx.Client(transport=transport, timeout=10) as http, httpx2.Client(transport=transport2) as http2:
        oai = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, http_client=http)
        claude = anthropic.Anthropic(base_url=proxy.url, api_key="x", max_retries=0, http_client=http2)
        yield Served(proxy, policy, http, oai, claude)


def _openai(proxy: ModelProxy, http: httpx.Client) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{proxy.url}/v1", api_key="x", max_retries=0, http_client=http)


def _raw(proxy: ModelProxy, data: bytes, *, read: bool = True, timeout: float = 5) -> bytes:
    """Send raw bytes on a fresh TCP connection and read until the proxy closes it."""
    address = proxy.address
    assert isinstance(address, tuple)
    with socket.create_connection(address, timeout=timeout) as conn:
        conn.sendall(data)
        received = b""
        while read and (chunk := conn.recv(65536)):
            received += chunk
        return received


CHAT_TOOLS: Any = [
    {"type": "function", "function": {"name": "shell", "parameters": SHELL_TOOL["parameters"]}},
    {"type": "function", "function": {"name": "apply_patch", "parameters": {"type": "object"}}},
]


# -- the three APIs, through the SDKs ---------------------------------------------------------


def test_chat_completion_comes_back_parsed(served: Served) -> None:
    proxy, policy = served.proxy, served.policy
    completion = served.oai.chat.completions.create(
        model="codegym-policy", messages=[{"role": "user", "content": "fix it"}], tools=CHAT_TOOLS
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == REPLY.content
    calls = choice.message.tool_calls or []
    assert [c.id for c in calls] == ["call_a", "call_b"]
    first = calls[0]
    assert first.type == "function" and json.loads(first.function.arguments) == SHELL_ARGS
    assert completion.usage is not None and completion.usage.total_tokens == 366
    [call] = proxy.calls
    assert (call.index, call.status, call.api, call.reply) == (0, 200, "chat", REPLY)
    assert call.body["messages"] == [{"role": "user", "content": "fix it"}]
    assert call.request is not None and call.request.tools[0]["function"]["name"] == "shell"
    assert json.loads(call.response)["id"] == completion.id
    assert call.started <= call.finished
    assert policy.requests[0].messages == ({"role": "user", "content": "fix it"},)


def test_chat_stream_accumulates_in_the_sdk_helper(served: Served) -> None:
    client = served.oai
    with client.chat.completions.stream(
        model="m",
        messages=[{"role": "user", "content": "go"}],
        tools=CHAT_TOOLS,
        stream_options={"include_usage": True},
    ) as stream:
        deltas = [e.delta for e in stream if e.type == "content.delta"]
        final = stream.get_final_completion()
    assert len(deltas) > 1 and "".join(deltas) == REPLY.content
    message = final.choices[0].message
    assert message.content == REPLY.content
    calls = message.tool_calls or []
    assert [(c.id, c.function.name) for c in calls] == [("call_a", "shell"), ("call_b", "apply_patch")]
    assert json.loads(calls[0].function.arguments) == SHELL_ARGS
    assert final.usage is not None and final.usage.completion_tokens == 45
    chunks = list(client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], stream=True))
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_responses_stream_ends_with_completed_response(served: Served) -> None:
    policy = served.policy
    client = served.oai
    events = list(
        client.responses.create(
            model="codegym-policy",
            instructions="Be Codex.",
            input="fix it",
            tools=[SHELL_TOOL, PATCH_TOOL],
            stream=True,
        )
    )
    assert [e.sequence_number for e in events] == list(range(len(events)))
    last = events[-1]
    assert last.type == "response.completed"
    output = last.response.output
    assert [item.type for item in output] == ["reasoning", "message", "function_call", "custom_tool_call"]
    call, patch = output[2], output[3]
    assert call.type == "function_call" and json.loads(call.arguments) == SHELL_ARGS and call.call_id == "call_a"
    assert patch.type == "custom_tool_call" and (patch.input, patch.call_id) == (PATCH, "call_b")
    assert last.response.output_text == REPLY.content
    assert last.response.usage is not None and last.response.usage.input_tokens == 321
    typed = "".join(e.delta for e in events if e.type == "response.custom_tool_call_input.delta")
    assert typed == PATCH
    assert policy.requests[0].custom_tools == frozenset({"apply_patch"})


def test_responses_stream_helper_and_non_stream(served: Served) -> None:
    client = served.oai
    with client.responses.stream(model="m", input="fix it", tools=[SHELL_TOOL, PATCH_TOOL]) as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == REPLY.content == final.output_text
    response = client.responses.create(model="m", input=[{"role": "user", "content": "hi"}], tools=[SHELL_TOOL])
    assert [item.type for item in response.output] == ["reasoning", "message", "function_call", "function_call"]
    assert response.status == "completed" and response.output_text == REPLY.content


def test_anthropic_message_has_parsed_tool_use(served: Served) -> None:
    tools: Any = [{"name": "shell", "input_schema": {"type": "object"}}]
    message = served.claude.messages.create(
        model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "go"}], tools=tools
    )
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    use = message.content[2]
    assert use.type == "tool_use" and (use.id, use.name, use.input) == ("call_a", "shell", SHELL_ARGS)
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (321, 45)
    beta = served.claude.beta.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "go"}])
    assert beta.content[-1].type == "tool_use"  # Claude Code calls /v1/messages?beta=true
    assert [c.path for c in served.proxy.calls] == ["/v1/messages", "/v1/messages"]


def test_anthropic_stream_final_message(served: Served) -> None:
    with served.claude.messages.stream(
        model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == REPLY.content
    thinking, said, shell, patch = final.content
    assert thinking.type == "thinking" and thinking.thinking == REPLY.reasoning
    assert said.type == "text" and said.text == REPLY.content
    assert shell.type == "tool_use" and shell.input == SHELL_ARGS
    assert patch.type == "tool_use" and patch.input == {"input": PATCH}
    assert final.stop_reason == "tool_use" and final.usage.output_tokens == 45


def test_models_and_token_counts(served: Served) -> None:
    proxy = served.proxy
    assert [m.id for m in served.oai.models.list()] == ["codegym-policy"]
    claude = served.claude
    assert [m.id for m in claude.models.list()] == ["codegym-policy"]
    count = claude.messages.count_tokens(model="m", messages=[{"role": "user", "content": "x" * 400}])
    assert count.input_tokens >= 100
    beta = claude.beta.messages.count_tokens(model="m", messages=[{"role": "user", "content": "x"}])  # ?beta=true
    assert beta.input_tokens >= 1
    assert proxy.calls == []  # only model calls are recorded


# -- faults -----------------------------------------------------------------------------------


def test_malformed_and_unknown_requests_get_json_errors(served: Served) -> None:
    proxy, policy, client = served.proxy, served.policy, served.http
    bad = client.post(f"{proxy.url}/v1/chat/completions", content=b"{nope")
    assert bad.status_code == 400 and "not valid JSON" in bad.json()["error"]["message"]
    shape = client.post(f"{proxy.url}/v1/messages", json={"messages": "hi"})
    assert shape.status_code == 400
    assert shape.json()["error"] == {"type": "invalid_request_error", "message": "`messages` is a list; found str"}
    assert [(c.status, c.body, c.reply) for c in proxy.calls] == [(400, None, None), (400, {"messages": "hi"}, None)]
    with pytest.raises(openai.NotFoundError, match="no such endpoint"):
        served.oai.embeddings.create(model="m", input="x")
    missing = client.get(f"{proxy.url}/v1/files", headers={"anthropic-version": "2023-06-01"})
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
    wrong = client.get(f"{proxy.url}/v1/responses")
    assert (wrong.status_code, wrong.headers["allow"]) == (405, "POST")
    assert policy.requests == []


def test_answer_failure_is_a_500_in_the_api_shape_and_the_proxy_goes_on(
    served: Served,
) -> None:
    proxy, policy = served.proxy, served.policy
    policy.fail = RuntimeError("policy down")
    with pytest.raises(anthropic.InternalServerError, match="policy down"):
        served.claude.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.InternalServerError, match="RuntimeError: policy down"):
        served.oai.responses.create(model="m", input="x", stream=True)
    policy.fail = None
    assert served.oai.responses.create(model="m", input="x").output_text == REPLY.content
    failed, also_failed, ok = proxy.calls
    assert (failed.status, failed.api, failed.reply, failed.ok) == (500, "messages", None, False)
    assert isinstance(failed.exception, RuntimeError) and "policy down" in (failed.error or "")
    assert json.loads(failed.response)["error"]["type"] == "api_error"
    assert (also_failed.status, ok.status, ok.ok) == (500, 200, True)


def test_answer_returning_the_wrong_type_is_a_500() -> None:
    with ModelProxy(lambda request: "hello", port=0) as proxy:  # pyright: ignore[reportArgumentType]
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": []})
        assert response.status_code == 500
        assert "expected a ModelReply" in response.json()["error"]["message"]


def test_bodies_over_the_cap_get_413() -> None:
    with ModelProxy(Policy(), port=0) as proxy:
        head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n"
        answer = _raw(proxy, head)
        assert answer.startswith(b"HTTP/1.1 413 ")
        assert b"over the 33554432-byte limit" in answer
    with ModelProxy(Policy(), port=0, max_body_bytes=1000) as proxy:
        chunked = httpx.post(f"{proxy.url}/v1/messages", content=iter([b"x" * 600, b"y" * 600]))
        assert chunked.status_code == 413 and chunked.json()["error"]["type"] == "request_too_large"


def test_malformed_http_is_refused() -> None:
    with ModelProxy(Policy(), port=0, max_header_bytes=2000) as proxy:
        assert _raw(proxy, b"\x00\xffgarbage\r\n\r\n").startswith(b"HTTP/1.1 400 ")
        big = b"GET /v1/models HTTP/1.1\r\nX-Big: " + b"a" * 3000 + b"\r\n\r\n"
        assert _raw(proxy, big).startswith(b"HTTP/1.1 431 ")
        bad_chunk = b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
        assert _raw(proxy, bad_chunk).startswith(b"HTTP/1.1 400 ")
        assert _raw(proxy, b"GET /v1/models HTTP/2.0\r\n\r\n").startswith(b"HTTP/1.1 400 ")


def test_keep_alive_chunked_and_expect_continue() -> None:
    with ModelProxy(Policy(ModelReply(content="ok")), port=0) as proxy:
        address = proxy.address
        assert isinstance(address, tuple)
        conn = http.client.HTTPConnection(*address, timeout=5)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        conn.request("POST", "/v1/chat/completions", body=iter([body[:10], body[10:]]), encode_chunked=True)
        first = conn.getresponse()
        assert first.status == 200 and json.loads(first.read())["choices"][0]["message"]["content"] == "ok"
        sock = conn.sock
        headers = {"Content-Type": "application/json", "Expect": "100-continue"}
        conn.request("POST", "/chat/completions", body=body, headers=headers)
        second = conn.getresponse()
        assert second.status == 200 and json.loads(second.read())["object"] == "chat.completion"
        assert conn.sock is sock  # the same connection served both
        conn.request("POST", "/v1/chat/completions", body=gzip.compress(body), headers={"Content-Encoding": "gzip"})
        assert conn.getresponse().read().startswith(b'{"id":"chatcmpl-')
        conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Encoding": "zstd"})
        refused = conn.getresponse()
        assert refused.status == 415 and b"'zstd' is not supported" in refused.read()
        conn.close()
        conn = http.client.HTTPConnection(*address, timeout=5)
        conn.request("HEAD", "/v1/models")
        head = conn.getresponse()
        assert head.status == 200 and head.read() == b"" and int(head.headers["content-length"]) > 0
        conn.close()
        assert [c.body for c in proxy.calls] == [json.loads(body)] * 3


def test_a_stalled_client_times_out_without_holding_up_others() -> None:
    with ModelProxy(Policy(), port=0, timeout_s=1.5) as proxy, httpx.Client(timeout=5) as client:
        address = proxy.address
        assert isinstance(address, tuple)
        with socket.create_connection(address, timeout=5) as stalled:
            stalled.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
            began = time.monotonic()
            response = _openai(proxy, client).chat.completions.create(model="m", messages=[])
            assert response.choices[0].message.content == REPLY.content
            assert time.monotonic() - began < 1.5  # served while the other one stalls
            answer = stalled.recv(65536)
            assert answer.startswith(b"HTTP/1.1 408 ")
            assert stalled.recv(65536) == b""  # and dropped


def test_sixteen_concurrent_clients_get_their_own_replies() -> None:
    def echo(request: ModelRequest) -> ModelReply:
        time.sleep(0.01)  # overlap the calls
        return ModelReply(content=f"echo {request.messages[-1]['content']}")

    with ModelProxy(echo, port=0) as proxy, httpx.Client(timeout=10, limits=httpx.Limits(max_connections=16)) as http:
        client = _openai(proxy, http)

        def ask(n: int) -> str | None:
            reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": str(n)}])
            return reply.choices[0].message.content

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(ask, range(64)))
        assert answers == [f"echo {n}" for n in range(64)]
        assert sorted(c.index for c in proxy.calls) == list(range(64))


def test_unix_socket_is_open_to_all_and_removed_on_close(sock_dir: Path) -> None:
    path = sock_dir / "m.sock"
    proxy = ModelProxy(Policy(), path=path).start()
    assert proxy.address == str(path) and proxy.url == "http://localhost"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o777
    idle = socket.socket(socket.AF_UNIX)
    idle.connect(str(path))  # an idle keep-alive client must not hold up close()
    idle.sendall(b"GET /v1/models HTTP/1.1\r\n\r\n")
    assert idle.recv(65536).startswith(b"HTTP/1.1 200 OK")
    began = time.monotonic()
    proxy.close()
    proxy.close()
    assert time.monotonic() - began < 2
    assert not path.exists()
    assert idle.recv(10) == b""
    idle.close()
    with pytest.raises(RuntimeError, match="closed"):
        proxy.start()


def test_a_stale_socket_file_is_replaced_but_not_another_file(sock_dir: Path) -> None:
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(sock_dir / "stale.sock"))
    stale.close()
    with ModelProxy(Policy(), path=sock_dir / "stale.sock") as proxy:
        assert proxy.calls == []
    (sock_dir / "file").write_text("keep me")
    with pytest.raises(FileExistsError, match="not a socket"):
        ModelProxy(Policy(), path=sock_dir / "file").start()
    assert (sock_dir / "file").read_text() == "keep me"
    with pytest.raises(ValueError, match="exactly one"):
        ModelProxy(Policy())


# -- Forwarder --------------------------------------------------------------------------------


VLLM_RESPONSE: dict[str, Any] = {
    "id": "chatcmpl-up",
    "object": "chat.completion",
    "model": "Qwen/Qwen3-8B",
    "prompt_token_ids": [151644, 872, 198],
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "reasoning_content": "list the files",
                "tool_calls": [
                    {
                        "id": "chatcmpl-tool-1",
                        "type": "function",
                        "function": {"name": "shell", "arguments": '{"command": "ls"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
            "token_ids": [151657, 220, 151658],
            "logprobs": {
                "content": [
                    {"token": "a", "logprob": -0.1},
                    {"token": "b", "logprob": -0.2},
                    {"token": "c", "logprob": 0.0},
                ]
            },
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6},
}


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[dict[str, Any]], Callable[[int, float], None]]]:
    """A stub vLLM server: its /v1 URL, the bodies it got, and a setter for (status, delay)."""
    seen: list[dict[str, Any]] = []
    mode = {"status": 200, "delay": 0.0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            seen.append(
                {
                    "path": self.path,
                    "auth": self.headers.get("Authorization"),
                    **json.loads(self.rfile.read(int(self.headers["Content-Length"]))),
                }
            )
            time.sleep(mode["delay"])
            body = json.dumps(VLLM_RESPONSE if mode["status"] == 200 else {"error": "boom"}).encode()
            self.send_response(int(mode["status"]))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def set_mode(status: int, delay: float) -> None:
        mode.update(status=status, delay=delay)

    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen, set_mode
    server.shutdown()
    server.server_close()


def _claude_request() -> ModelRequest:
    body = {"model": "claude-x", "max_tokens": 50, "system": "sys", "messages": [{"role": "user", "content": "go"}]}
    body["tools"] = [{"name": "shell", "input_schema": {"type": "object"}}]
    return parse_request("/v1/messages", json.dumps(body).encode())


def test_forwarder_keeps_token_ids_and_logprobs(upstream: tuple[str, list[dict[str, Any]], Any]) -> None:
    url, seen, _ = upstream
    forward = Forwarder(
        url, api_key="k", model="Qwen/Qwen3-8B", extra_body={"chat_template_kwargs": {"enable_thinking": True}}
    )
    reply = forward(_claude_request())
    assert reply.tool_calls == (ReplyToolCall("chatcmpl-tool-1", "shell", '{"command": "ls"}'),)
    assert (reply.reasoning, reply.finish_reason) == ("list the files", "tool_calls")
    assert (reply.token_ids, reply.prompt_token_ids, reply.logprobs) == (
        (151657, 220, 151658),
        (151644, 872, 198),
        (-0.1, -0.2, 0.0),
    )
    forward(_claude_request())  # a second call, on the kept connection
    sent = seen[0]
    assert (sent["path"], sent["auth"], sent["model"]) == ("/v1/chat/completions", "Bearer k", "Qwen/Qwen3-8B")
    assert (sent["logprobs"], sent["return_token_ids"], sent["stream"], sent["max_tokens"]) == (True, True, False, 50)
    assert sent["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]
    assert sent["tools"][0]["function"]["name"] == "shell"
    assert sent["chat_template_kwargs"] == {"enable_thinking": True}
    assert len(seen) == 2


def test_forwarder_failures_are_upstream_errors(upstream: tuple[str, list[dict[str, Any]], Any]) -> None:
    url, _, set_mode = upstream
    set_mode(500, 0.0)
    with pytest.raises(UpstreamError, match=r"answered HTTP 500: \{\"error\": \"boom\"\}"):
        Forwarder(url)(_claude_request())
    set_mode(200, 1.0)
    with pytest.raises(UpstreamError, match=r"did not answer within 0\.2 s"):
        Forwarder(url, timeout_s=0.2)(_claude_request())
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(UpstreamError, match="could not reach"):
        Forwarder(f"http://127.0.0.1:{port}/v1")(_claude_request())
    with pytest.raises(ValueError, match="http"):
        Forwarder("127.0.0.1:8000")


def test_proxy_over_forwarder_end_to_end(upstream: tuple[str, list[dict[str, Any]], Any], sock_dir: Path) -> None:
    url, _, _ = upstream
    with (
        ModelProxy(Forwarder(url), path=sock_dir / "m.sock") as proxy,
        httpx2.Client(transport=httpx2.HTTPTransport(uds=str(sock_dir / "m.sock"))) as http,
    ):
        tools: Any = [{"name": "shell", "input_schema": {"type": "object"}}]
        claude = anthropic.Anthropic(base_url=proxy.url, api_key="x", max_retries=0, http_client=http)
        with claude.messages.stream(
            model="claude-x", max_tokens=50, messages=[{"role": "user", "content": "go"}], tools=tools
        ) as stream:
            final = stream.get_final_message()
        use = final.content[-1]
        assert use.type == "tool_use" and use.input == {"command": "ls"}
        [call] = proxy.calls
        assert call.reply is not None and call.reply.token_ids == (151657, 220, 151658)
