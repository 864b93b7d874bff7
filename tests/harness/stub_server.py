"""A vLLM-shaped OpenAI Chat Completions server on the host, for pass-through tests: a script
(the request body -> a `ModelReply`) answers; every reply carries token ids and log-probs."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from codegym.harness.wire import ModelReply


class StubServer:
    TOKEN_IDS = (11, 12, 13)
    PROMPT_TOKEN_IDS = (7, 8, 9)

    def __init__(self, script: Callable[[Mapping[str, Any]], ModelReply]) -> None:
        stub = self
        self.bodies: list[dict[str, Any]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.bodies.append(body)
                data = json.dumps(stub.response(body, script(body))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def response(self, body: Mapping[str, Any], reply: ModelReply) -> dict[str, Any]:
        """``reply`` as a vLLM chat.completion (with ``return_token_ids`` and ``logprobs``)."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [{"id": call.id, "type": "function",
                                      "function": {"name": call.name, "arguments": call.arguments}}
                                     for call in reply.tool_calls]  # fmt: skip
        logprobs = [
            {"token": str(token), "logprob": -0.5, "bytes": None, "top_logprobs": []} for token in self.TOKEN_IDS
        ]
        return {"id": f"cmpl-{len(self.bodies)}", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "prompt_token_ids": list(self.PROMPT_TOKEN_IDS),
                "choices": [{"index": 0, "message": message, "token_ids": list(self.TOKEN_IDS),
                             "logprobs": {"content": logprobs},
                             "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}}  # fmt: skip

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
