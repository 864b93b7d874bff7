"""The model proxy: the only network an agent program has, serving every model call it makes.

`ModelProxy` is a small HTTP/1.1 server (standard library only) on a unix socket or a loopback
TCP port. It speaks OpenAI Chat Completions, OpenAI Responses and Anthropic Messages (see
`codegym.harness.wire`), hands each call to ``answer`` (the policy) and records every exchange.
`Forwarder` is an ``answer`` that asks an OpenAI-compatible server (vLLM) for the reply, keeping
its token ids and log-probabilities.

One thread serves each connection (keep-alive), reading requests with ``Content-Length`` or
chunked bodies; a connection that stalls past ``timeout_s`` is dropped without touching others.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import io
import itertools
import json
import logging
import os
import re
import selectors
import socket
import stat
import threading
import time
import urllib.parse
import uuid
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from codegym.error import Error
from codegym.harness.recipe import Api
from codegym.harness.wire import (
    ModelReply,
    ModelRequest,
    WireError,
    api_for_path,
    error_body,
    parse_json,
    parse_request,
    render,
)

logger = logging.getLogger(__name__)

_MIB = 1 << 20
_REASONS = {
    100: "Continue",
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
}
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
_ID_PREFIX: dict[Api, str] = {"chat": "chatcmpl-", "responses": "resp_", "messages": "msg_"}
_DRAIN_S = 0.5  # how long a refused upload is read (and dropped) so its client sees the answer


class Withdrawn(Exception):
    """Raised by an ``answer`` that has no reply to give any more (its episode ended while the
    call waited): the program gets a 503, and nothing is logged."""


class UpstreamError(Error):
    """The model server behind a `Forwarder` refused a call, failed on it or did not answer."""


@dataclass(frozen=True)
class Exchange:
    """One model call through the proxy.

    Attributes:
        index: Its number, in order of arrival (from 0).
        path: The request path.
        api: The API called.
        body: The request body as parsed JSON (None when it was not JSON).
        request: Its translation (None when the body was not the API's shape).
        reply: The policy's reply (None when there was none).
        status: The HTTP status sent back.
        response: The body sent back (the SSE events joined, for a stream).
        error: What went wrong, None when nothing did.
        started: `time.monotonic` when the request was read.
        finished: `time.monotonic` when the answer was ready to send.
        exception: The exception ``answer`` raised, if it did.
    """

    index: int
    path: str
    api: Api
    body: Any
    request: ModelRequest | None
    reply: ModelReply | None
    status: int
    response: bytes
    error: str | None
    started: float
    finished: float
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """Whether the program got a reply (HTTP 200)."""
        return self.status == 200


@dataclass(frozen=True)
class _Request:
    method: str
    target: str
    version: str
    headers: Mapping[str, str]
    body: bytes


class _Reader(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...
    def read(self, size: int = -1, /) -> bytes: ...


class _HttpError(Exception):
    def __init__(self, status: int, message: str, target: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.api: Api = _guess_api(target, {})


class ModelProxy:
    """An HTTP server answering an agent program's model calls with ``answer``.

    Example::

        with ModelProxy(answer, path="/run/episode/model.sock") as proxy:
            ...  # run the program with base URL http://localhost over that socket
        replies = [call.reply for call in proxy.calls]

    Args:
        answer: The policy: called once per model call, from the connection's thread (several
            at once when the program makes concurrent calls). What it raises becomes a 500
            error in the caller's API shape, recorded in `calls`.
        path: A unix socket to listen on (made mode 0o777: the program runs as another user).
        port: A TCP port on ``host`` to listen on instead (0 picks a free one).
        sock: A socket listening already, to serve instead (one a box's loopback holds:
            `codegym.executor.rootbox.RootBox.listen`); the proxy closes it.
        host: The TCP address (loopback by default).
        model: The model name ``/v1/models`` lists.
        max_body_bytes: Larger request bodies are refused with 413.
        max_header_bytes: Larger request heads are refused with 431.
        timeout_s: How long a connection may stay silent (mid-request, or idle between
            requests) before it is dropped.
        max_connections: Connections served at once (a thread each); one more is closed as
            soon as it is accepted: a program that opens thousands holds no more threads here.
        close_timeout_s: How long `close` waits for calls in flight.
    """

    def __init__(
        self,
        answer: Callable[[ModelRequest], ModelReply],
        *,
        path: str | os.PathLike[str] | None = None,
        port: int | None = None,
        sock: socket.socket | None = None,
        host: str = "127.0.0.1",
        model: str = "codegym-policy",
        max_body_bytes: int = 32 * _MIB,
        max_header_bytes: int = 64 * 1024,
        timeout_s: float = 120.0,
        close_timeout_s: float = 10.0,
        max_connections: int = 32,
    ) -> None:
        if sum(where is not None for where in (path, port, sock)) != 1:
            raise ValueError("ModelProxy listens on path= (a unix socket), port= (TCP) or sock= (a listening socket), "
                             "exactly one of them")  # fmt: skip
        if max_body_bytes <= 0 or max_header_bytes <= 0 or timeout_s <= 0:
            raise ValueError("max_body_bytes, max_header_bytes and timeout_s must be positive")
        self._answer = answer
        self._path = None if path is None else Path(path)
        self._port = port
        self._sock = sock
        self._host = host
        self.model = model
        self.max_body_bytes = max_body_bytes
        self.max_header_bytes = max_header_bytes
        self.timeout_s = timeout_s
        self.close_timeout_s = close_timeout_s
        self.max_connections = max_connections
        self._lock = threading.Lock()
        self._calls: list[Exchange] = []
        self._counter = itertools.count()
        self._listener: socket.socket | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._acceptor: threading.Thread | None = None
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._closed = False

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> ModelProxy:
        """Bind and start serving (idempotent). Returns the proxy."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this ModelProxy is closed; make a new one")
            if self._listener is not None:
                return self
            self._listener = self._bind()
            self._wake = socket.socketpair()
            self._acceptor = threading.Thread(target=self._accept_loop, name="model-proxy-accept", daemon=True)
            self._acceptor.start()
        return self

    def close(self) -> None:
        """Stop serving, drop connections, wait for calls in flight and remove the socket file.

        Idempotent. Calls still in ``answer`` after ``close_timeout_s`` are left to finish on
        their own (daemon threads); their replies go nowhere.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            listener, wake, acceptor = self._listener, self._wake, self._acceptor
        if listener is None or wake is None or acceptor is None:
            if self._sock is not None:  # (given but never served: still ours to close)
                self._sock.close()
            return
        wake[1].send(b"x")
        acceptor.join()
        listener.close()
        for end in wake:
            end.close()
        with self._lock:
            connections = dict(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)  # wakes its thread; that thread closes it
        deadline = time.monotonic() + self.close_timeout_s
        for thread in connections.values():
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() for thread in connections.values()):
            logger.warning("ModelProxy.close: calls still in answer after %.1f s", self.close_timeout_s)
        if self._path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._path.unlink()

    def __enter__(self) -> ModelProxy:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- what it exposes ------------------------------------------------------------------------

    @property
    def address(self) -> str | tuple[str, int]:
        """The unix socket's path, or the TCP ``(host, port)`` (after `start`)."""
        if self._path is not None:
            return str(self._path)
        if self._listener is None:
            raise RuntimeError("the proxy has no port until start()")
        host, port = self._listener.getsockname()[:2]
        return host, port

    @property
    def url(self) -> str:
        """The root URL a client uses (``http://localhost`` over a unix socket)."""
        address = self.address
        if isinstance(address, str):
            return "http://localhost"
        host, port = address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def calls(self) -> list[Exchange]:
        """The model calls so far, in the order they were answered (a copy)."""
        with self._lock:
            return list(self._calls)

    def take_calls(self) -> list[Exchange]:
        """The model calls so far, forgetting them (for one episode's record)."""
        with self._lock:
            calls, self._calls = self._calls, []
            return calls

    # -- serving --------------------------------------------------------------------------------

    def _bind(self) -> socket.socket:
        if self._sock is not None:
            return self._sock
        if self._path is None:
            family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
            return socket.create_server((self._host, self._port or 0), family=family, backlog=128)
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISSOCK(self._path.stat().st_mode):
                raise FileExistsError(f"{self._path} exists and is not a socket; the proxy will not replace it")
            self._path.unlink()  # a stale socket from an earlier run
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self._path))
            os.chmod(self._path, 0o777)
            listener.listen(128)
        except OSError:
            listener.close()
            raise
        return listener

    def _accept_loop(self) -> None:
        listener, wake = self._listener, self._wake
        assert listener is not None and wake is not None
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            selector.register(wake[0], selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj is wake[0] for key, _ in ready):
                    return
                try:
                    conn, _ = listener.accept()
                except OSError as e:
                    logger.warning("ModelProxy: accept failed: %s", e)
                    if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                        time.sleep(0.1)  # out of descriptors or memory: let connections finish
                    continue
                with self._lock:
                    full = len(self._connections) >= self.max_connections
                if full:
                    conn.close()
                    continue
                thread = threading.Thread(target=self._serve, args=(conn,), name="model-proxy-conn", daemon=True)
                with self._lock:
                    self._connections[conn] = thread
                thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(self.timeout_s)
            if conn.family != socket.AF_UNIX:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with io.BufferedReader(socket.SocketIO(conn, "rb"), 64 * 1024) as reader:
                while not self._closed and self._serve_one(conn, reader):
                    pass
        except OSError:
            pass  # the client went away, or close() shut the connection
        finally:
            with self._lock:
                self._connections.pop(conn, None)
            conn.close()

    def _serve_one(self, conn: socket.socket, reader: _Reader) -> bool:
        """Read and answer one request; whether the connection stays open."""
        try:
            request = self._read_request(conn, reader)
        except _HttpError as e:
            self._send(conn, e.status, "application/json", error_body(e.api, e.status, str(e)), keep_alive=False)
            if e.status != 408:
                self._drain(conn)
            return False
        if request is None:
            return False
        keep_alive = _keep_alive(request)
        status, content_type, body, extra = self._route(request)
        head_only = request.method == "HEAD"
        self._send(conn, status, content_type, body, keep_alive=keep_alive, extra=extra, head_only=head_only)
        return keep_alive

    def _read_request(self, conn: socket.socket, reader: _Reader) -> _Request | None:
        try:
            line = reader.readline(self.max_header_bytes + 1)
            while line in (b"\r\n", b"\n"):  # stray line ends between requests are allowed
                line = reader.readline(self.max_header_bytes + 1)
        except TimeoutError:
            return None  # idle past timeout_s: close quietly
        if not line:
            return None
        try:
            method, target, version = line.decode("latin-1").split()
        except ValueError:
            raise _HttpError(400, f"malformed request line {line[:100]!r}") from None
        headers: dict[str, str] = {}
        try:
            if not version.startswith("HTTP/1."):
                raise _HttpError(400, f"unsupported protocol {version[:20]!r}; expected HTTP/1.1")
            headers = self._read_headers(reader, len(line))
            body = self._read_body(conn, reader, headers)
        except TimeoutError:
            raise _HttpError(408, f"the request was not complete after {self.timeout_s} s of silence", target) from None
        except _HttpError as e:
            e.api = _guess_api(target, headers)
            raise
        return _Request(method=method, target=target, version=version, headers=headers, body=body)

    def _read_headers(self, reader: _Reader, used: int) -> dict[str, str]:
        headers: dict[str, str] = {}
        while True:
            line = reader.readline(self.max_header_bytes + 1)
            used += len(line)
            if used > self.max_header_bytes:
                raise _HttpError(431, f"the request head is over {self.max_header_bytes} bytes")
            if not line.endswith(b"\n"):
                raise _HttpError(400, "the connection ended inside the request head")
            if line in (b"\r\n", b"\n"):
                return headers
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep or not name or name != name.strip():
                raise _HttpError(400, f"malformed header line {line[:100]!r}")
            key, value = name.lower(), value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value

    def _read_body(self, conn: socket.socket, reader: _Reader, headers: Mapping[str, str]) -> bytes:
        coding = headers.get("transfer-encoding", "").lower()
        if coding and coding.rsplit(",", 1)[-1].strip() != "chunked":
            raise _HttpError(501, f"transfer-encoding {coding!r} is not supported; send chunked or Content-Length")
        length = headers.get("content-length")
        if not coding and length is not None:
            if not (length.isascii() and length.isdigit()):
                raise _HttpError(400, f"malformed Content-Length {length[:40]!r}")
            if int(length) > self.max_body_bytes:
                raise _HttpError(413, f"the body is {length} bytes, over the {self.max_body_bytes}-byte limit")
        if headers.get("expect", "").lower() == "100-continue":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if coding:
            body = self._read_chunked(reader)
        elif length is None:
            body = b""
        else:
            body = reader.read(int(length))
            if len(body) < int(length):
                raise ConnectionAbortedError("the client went away mid-body")
        return self._decompress(body, headers.get("content-encoding", "").strip().lower())

    def _decompress(self, body: bytes, coding: str) -> bytes:
        if coding in ("", "identity"):
            return body
        if coding not in ("gzip", "x-gzip", "deflate"):
            raise _HttpError(415, f"Content-Encoding {coding!r} is not supported; send the body plain, gzip or deflate")
        inflater = zlib.decompressobj(31 if coding.endswith("gzip") else 15)
        try:
            plain = inflater.decompress(body, self.max_body_bytes + 1)
        except zlib.error as e:
            raise _HttpError(400, f"the {coding} body does not decompress: {e}") from e
        if len(plain) > self.max_body_bytes:
            raise _HttpError(413, f"the body decompresses to over the {self.max_body_bytes}-byte limit")
        return plain

    def _read_chunked(self, reader: _Reader) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = reader.readline(1024)
            size_text = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or not _HEX.fullmatch(size_text):
                raise _HttpError(400, f"malformed chunk size line {line[:40]!r}")
            size = int(size_text, 16)
            if size == 0:
                break
            total += size
            if total > self.max_body_bytes:
                raise _HttpError(413, f"the chunked body is over the {self.max_body_bytes}-byte limit")
            chunk = reader.read(size)
            if len(chunk) < size or reader.readline(3) not in (b"\r\n", b"\n"):
                raise _HttpError(400, "a chunk is shorter than its size, or lacks its line end")
            parts.append(chunk)
        self._read_headers(reader, 0)  # trailers, dropped
        return b"".join(parts)

    def _route(self, request: _Request) -> tuple[int, str, bytes, str]:
        path = request.target.split("?", 1)[0]
        short = path[3:] if path.startswith("/v1/") else path
        api = api_for_path(path)
        if request.method == "POST" and api is not None:
            return self._model_call(path, api, request.body)
        if request.method == "POST" and short == "/messages/count_tokens":
            estimate = json.dumps({"input_tokens": max(1, len(request.body) // 4)}).encode()
            return 200, "application/json", estimate, ""
        if request.method in ("GET", "HEAD") and (short == "/models" or short.startswith("/models/")):
            return 200, "application/json", self._models(short.removeprefix("/models").strip("/")), ""
        guess = _guess_api(path, request.headers)
        if api is not None or short == "/messages/count_tokens" or short.startswith("/models"):
            allow = "GET" if short.startswith("/models") else "POST"
            message = f"{request.method} is not allowed on {path}; use {allow}"
            return 405, "application/json", error_body(guess, 405, message), f"Allow: {allow}\r\n"
        message = f"no such endpoint: {request.method} {path}; the model proxy serves /v1/chat/completions, "
        message += "/v1/responses, /v1/messages and /v1/models"
        return 404, "application/json", error_body(guess, 404, message), ""

    def _models(self, name: str) -> bytes:
        model = {
            "id": name or self.model,
            "object": "model",
            "created": 0,
            "owned_by": "codegym",
            "type": "model",
            "display_name": name or self.model,
            "created_at": "1970-01-01T00:00:00Z",
        }
        if name:
            return json.dumps(model).encode()
        listing = {"object": "list", "data": [model], "has_more": False, "first_id": self.model, "last_id": self.model}
        return json.dumps(listing).encode()

    def _model_call(self, path: str, api: Api, body: bytes) -> tuple[int, str, bytes, str]:
        with self._lock:
            index = next(self._counter)
        started = time.monotonic()
        request = reply = exception = None
        status, content_type = 200, "application/json"
        try:
            request = parse_request(path, body)
            reply = self._answer(request)
            if not isinstance(reply, ModelReply):
                raise TypeError(f"answer returned {type(reply).__name__}; expected a ModelReply")
            content_type, chunks = render(request, reply, response_id=f"{_ID_PREFIX[api]}{uuid.uuid4().hex}")
            sent, error = b"".join(chunks), None
        except WireError as e:
            status, error = 400, str(e)
            sent = error_body(api, status, error)
        except Withdrawn as e:
            status, error = 503, f"no reply: {e}"
            sent = error_body(api, status, error)
        except Exception as e:
            status, error, exception = 500, f"the policy failed to answer: {type(e).__name__}: {e}", e
            sent = error_body(api, status, error)
            logger.warning("ModelProxy: answer failed on call %d", index, exc_info=e)
        exchange = Exchange(
            index=index,
            path=path,
            api=api,
            body=request.body if request is not None else _json_or_none(body),
            request=request,
            reply=reply,
            status=status,
            response=sent,
            error=error,
            started=started,
            finished=time.monotonic(),
            exception=exception,
        )
        with self._lock:  # recorded before sending, so a client that has its reply finds it here
            self._calls.append(exchange)
        return status, content_type, sent, ""

    def _send(
        self,
        conn: socket.socket,
        status: int,
        content_type: str,
        body: bytes,
        *,
        keep_alive: bool,
        extra: str = "",
        head_only: bool = False,
    ) -> None:
        head = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Unknown')}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n"
            f"Cache-Control: no-cache\r\n{extra}\r\n"
        )
        conn.sendall(head.encode("latin-1") if head_only else head.encode("latin-1") + body)

    def _drain(self, conn: socket.socket) -> None:
        """Read (and drop) what a refused client is still sending, briefly, so that closing
        does not reset the connection before it reads the refusal."""
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + _DRAIN_S
            received = 0
            while received <= self.max_body_bytes and (left := deadline - time.monotonic()) > 0:
                conn.settimeout(left)
                data = conn.recv(256 * 1024)
                if not data:
                    return
                received += len(data)


def _guess_api(target: str, headers: Mapping[str, str]) -> Api:
    """Whose error shape suits a request that may not name a model API."""
    api = api_for_path(target)
    if api is not None:
        return api
    return "messages" if "anthropic-version" in headers or "/messages" in target else "chat"


def _keep_alive(request: _Request) -> bool:
    connection = request.headers.get("connection", "").lower()
    if request.version == "HTTP/1.0":
        return "keep-alive" in connection
    return "close" not in connection


def _json_or_none(body: bytes) -> Any:
    try:
        return parse_json(body)
    except WireError:
        return None


class Forwarder:
    """An ``answer`` that asks an OpenAI-compatible model server (vLLM) for each reply.

    It POSTs the call's Chat Completions translation (non-streaming) to ``{url}/chat/completions``
    asking for ``logprobs`` and vLLM's ``return_token_ids``, so the reply keeps its token ids and
    log-probabilities. Each thread keeps its own keep-alive connection.

    Args:
        url: The server's API root, such as ``http://127.0.0.1:8000/v1``.
        api_key: Sent as a bearer token, if given.
        timeout_s: How long the server may stay silent (connecting, or before its answer).
        extra_body: Fields added to (or replacing) each request body's
            (``{"chat_template_kwargs": {...}}``).
        model: The served model's name, replacing the one the program asked for.
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 600.0,
        extra_body: Mapping[str, Any] | None = None,
        model: str | None = None,
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"Forwarder url is an http(s) URL like http://127.0.0.1:8000/v1; got {url!r}")
        self.url = url.rstrip("/")
        self._parts = parts
        self._path = parts.path.rstrip("/") + "/chat/completions"
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self.timeout_s = timeout_s
        self.extra_body = dict(extra_body or {})
        self.model = model
        self._local = threading.local()

    def __call__(self, request: ModelRequest) -> ModelReply:
        """The model server's reply to ``request``.

        Raises:
            UpstreamError: The server answered an HTTP error or something that is not a chat
                completion, or did not answer within ``timeout_s``.
        """
        body = request.chat_body()
        body.update(stream=False, logprobs=True, return_token_ids=True)
        if self.model is not None:
            body["model"] = self.model
        body.update(self.extra_body)
        status, payload = self._post(json.dumps(body, ensure_ascii=False).encode())
        where = f"{self.url}/chat/completions"
        if status >= 400:
            raise UpstreamError(f"{where} answered HTTP {status}: {payload[:1000].decode(errors='replace')}")
        try:
            return ModelReply.from_chat_response(json.loads(payload))
        except (ValueError, TypeError, KeyError) as e:
            raise UpstreamError(f"{where} answered something that is not a chat completion: {e}") from e

    def _post(self, data: bytes) -> tuple[int, bytes]:
        for attempt in range(2):
            conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
            reused = conn is not None
            if conn is None:
                conn = self._connect()
                self._local.conn = conn
            try:
                conn.request("POST", self._path, body=data, headers=self._headers)
                response = conn.getresponse()
                return response.status, response.read()
            except TimeoutError as e:
                self._drop()
                raise UpstreamError(f"{self.url}/chat/completions did not answer within {self.timeout_s} s") from e
            except (http.client.HTTPException, OSError) as e:
                self._drop()
                if reused and attempt == 0 and isinstance(e, (http.client.RemoteDisconnected, ConnectionError)):
                    continue  # the server closed an idle keep-alive connection: one fresh try
                raise UpstreamError(f"could not reach {self.url}/chat/completions: {type(e).__name__}: {e}") from e
        raise AssertionError("unreachable")

    def _connect(self) -> http.client.HTTPConnection:
        parts = self._parts
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        return cls(parts.hostname or "", parts.port, timeout=self.timeout_s)

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()


__all__ = ["Exchange", "Forwarder", "ModelProxy", "UpstreamError"]
