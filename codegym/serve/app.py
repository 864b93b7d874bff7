"""`create_app`: the FastAPI application of ``codegym serve``.

Routes (every one behind the bearer token when the server has one):

- ``/envs/<env id>/ws``: an OpenEnv session (see `codegym.serve.openenv`); ``.../stream``: the
  same, each tool call of an agent step streamed as it completes; ``.../reset``, ``.../step``,
  ``.../state``, ``.../health``, ``.../metadata``, ``.../schema``: OpenEnv's HTTP routes.
- ``POST /v1/score``: grade a batch on one long-lived env per (env id, kwargs), in order.
- ``GET /v1/envs``: the served env ids; ``GET /health``: liveness and the sandbox's isolation
  tier; ``GET /metrics``: Prometheus text.

Errors are JSON, ``{"error": {"type": ..., "message": ...}}``; a full server answers 503 with
``Retry-After``. Env operations block, so they run on a thread pool, never on the event loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import codegym
from codegym.error import Error
from codegym.serve import openenv
from codegym.serve.config import ServeConfig
from codegym.serve.metrics import Metrics
from codegym.serve.sessions import (
    ApiError,
    Fork,
    Gate,
    Scorers,
    Sessions,
    busy,
    check_env_id,
    env_kwargs,
    kwargs_key,
    served_ids,
)
from codegym.serve.wire import grade_to_dict

logger = logging.getLogger(__name__)
T = TypeVar("T")


class Server:
    """What one app holds: its config, sessions, gate, scoring envs, thread pool and metrics."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.gate = Gate(config.max_concurrency)
        self.sessions = Sessions(config.max_sessions)
        self.forks: dict[str, Fork] = {}  # forks no session adopted yet (see openenv's fork and adopt)
        self.scorers = Scorers(config.scorers)
        self.pool = ThreadPoolExecutor(max_workers=config.max_concurrency + 4, thread_name_prefix="codegym-serve")
        self.isolation: dict[str, Any] = {"tier": None, "detail": "not probed yet"}
        gauges = {
            "codegym_in_flight": lambda: self.gate.in_flight,
            "codegym_in_flight_limit": lambda: self.gate.limit,
            "codegym_sessions": lambda: len(self.sessions.live),
            "codegym_sessions_limit": lambda: self.sessions.limit,
            "codegym_sessions_expired_total": lambda: self.sessions.expired,
        }
        self.metrics.gauges.update(gauges)

    async def run(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the thread pool, within the gate (else a busy `ApiError`)."""
        if not self.gate.try_enter():
            self.metrics.count(self.metrics.busy, what)
            raise busy(self.config, f"{self.gate.limit} env operations are running")
        started = time.perf_counter()
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, lambda: fn(*args))
        finally:
            self.gate.leave()
            self.metrics.observe(what, time.perf_counter() - started)

    async def offload(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the thread pool, outside the gate (closing an env)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, lambda: fn(*args))

    async def reap(self) -> None:
        """Close sessions idle for longer than the config allows, until cancelled."""
        period = min(1.0, self.config.idle_timeout_s / 4)
        while True:
            await asyncio.sleep(period)
            for session in self.sessions.idle(self.config.idle_timeout_s):
                self.sessions.drop(session)
                self.sessions.expired += 1
                if session.expire is not None:
                    await session.expire()
            now = time.monotonic()
            for fork_id, fork in list(self.forks.items()):
                if now - fork.made > self.config.idle_timeout_s:
                    del self.forks[fork_id]
                    await self.offload(fork.env.close)

    def probe_isolation(self) -> None:
        """Find the sandbox's isolation tier (as ``codegym doctor`` does) for ``/health``."""
        from codegym.executor.isolation import probe

        try:
            report = probe()
        except Error as e:
            self.isolation = {"tier": None, "detail": str(e)}
            return
        self.isolation = {"tier": report.best, "detail": report.situation}

    def close(self) -> None:
        for session in list(self.sessions.live.values()):
            session.close_env()
        for fork in self.forks.values():
            fork.env.close()
        self.forks.clear()
        self.scorers.close()
        self.pool.shutdown(wait=False, cancel_futures=True)


def create_app(config: ServeConfig | None = None, **options: Any) -> FastAPI:
    """The server's FastAPI app.

    Args:
        config: How it runs (`ServeConfig`); or give its fields as ``options``.

    Raises:
        UsageError: A non-loopback host without a token (or ``insecure``), a limit below 1.
    """
    config = config or ServeConfig(**options)
    server = Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = asyncio.create_task(server.reap())
        probing = asyncio.get_running_loop().run_in_executor(server.pool, server.probe_isolation)
        try:
            yield
        finally:
            reaper.cancel()
            probing.cancel()
            server.close()

    app = FastAPI(title="codegym", version=codegym.__version__, lifespan=lifespan)
    app.state.server = server
    _add_error_handlers(app)
    _add_routes(app, server)
    openenv.add_routes(app, server)
    app.add_middleware(Guard, config=config, metrics=server.metrics)
    return app


def _add_routes(app: FastAPI, server: Server) -> None:
    @app.get("/health")
    async def health() -> dict[str, Any]:
        if server.isolation["detail"] == "not probed yet":
            await server.offload(server.probe_isolation)
        return {
            "status": "healthy" if server.isolation["tier"] else "degraded",
            "isolation": server.isolation["tier"],
            "isolation_detail": server.isolation["detail"],
            "version": codegym.__version__,
            "sessions": len(server.sessions.live),
            "max_sessions": server.sessions.limit,
            "in_flight": server.gate.in_flight,
            "max_concurrency": server.gate.limit,
        }

    @app.get("/metrics")
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(server.metrics.render(), media_type="text/plain; version=0.0.4")

    @app.get("/v1/envs")
    async def envs() -> dict[str, Any]:
        return {"envs": served_ids(server.config)}

    @app.post("/v1/score")
    async def score(request: Request) -> Response:
        body = await json_body(request)
        env_id, requested, items = _score_request(body, server.config)
        kwargs = env_kwargs(server.config, requested)
        key = kwargs_key(requested)
        # (encoded in the grading thread: FastAPI's own encoder would run on the event loop, and slowly)
        encoded = await server.run("score", _score, server, env_id, key, kwargs, items)
        return Response(encoded, media_type="application/json")


def _score_request(body: Any, config: ServeConfig) -> tuple[str, dict[str, Any], list[tuple[str, str]]]:
    """``(env_id, env_kwargs, [(task_id, code), ...])`` of a ``/v1/score`` body, or a 4xx."""
    if not isinstance(body, dict) or not isinstance(body.get("env_id"), str) or not isinstance(body.get("items"), list):
        raise ApiError(400, "InvalidRequest", 'expected {"env_id": str, "env_kwargs": {...}, "items": [{"task_id": '
                       '..., "code": str}, ...]}')  # fmt: skip
    items = body["items"]
    if len(items) > config.max_batch:
        raise ApiError(413, "TooLarge", f"{len(items)} items; this server takes at most {config.max_batch} per "
                       "request: send smaller chunks")  # fmt: skip
    pairs = []
    for number, item in enumerate(items):
        if not (
            isinstance(item, dict) and isinstance(item.get("task_id"), (str, int)) and isinstance(item.get("code"), str)
        ):
            raise ApiError(400, "InvalidRequest", f"items[{number}] must be {{\"task_id\": str, \"code\": str}}, got "
                           f"{str(item)[:200]}")  # fmt: skip
        pairs.append((str(item["task_id"]), item["code"]))
    return check_env_id(body["env_id"], config), body.get("env_kwargs") or {}, pairs


def _score(server: Server, env_id: str, key: str, kwargs: dict[str, Any], items: list[tuple[str, str]]) -> bytes:
    """``{"env_id", "results"}`` as JSON: each item's ``{"grade", "reward"}``, or ``{"error"}``
    where it cannot be graded (an unknown task id, a sandbox failure under
    ``on_infra_error="raise"``): the others go on."""
    with server.scorers.use(env_id, key, kwargs) as scorer:
        futures: list[Any] = []
        for task_id, code in items:
            try:
                futures.append(scorer.submit(task_id, code))
            except Error as e:
                futures.append(e)
        results = []
        for future in futures:
            try:
                if isinstance(future, Error):
                    raise future
                grade = future.result()
            except Error as e:
                results.append({"error": {"type": type(e).__name__, "message": str(e)}})
                continue
            server.metrics.grade(env_id, grade.status.value)
            results.append({"grade": grade_to_dict(grade), "reward": scorer.env.reward_of(grade)})
        return json.dumps({"env_id": env_id, "results": results}).encode()


async def json_body(request: Request) -> Any:
    """The request's JSON body, or a 400 saying why it is not JSON."""
    raw = await request.body()
    try:
        return json.loads(raw) if raw.strip() else {}
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(400, "InvalidJSON", f"the request body is not JSON: {e}") from e


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.body(), status_code=error.status, headers=error.headers)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(error.status_code, "HTTPError")
        return JSONResponse({"error": {"type": kind, "message": str(error.detail)}}, status_code=error.status_code)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": {"type": "InvalidRequest", "message": str(error.errors())[:2000]}}, 422)

    @app.exception_handler(Error)
    async def codegym_error(request: Request, error: Error) -> JSONResponse:
        return JSONResponse({"error": {"type": type(error).__name__, "message": str(error)}}, status_code=400)

    @app.exception_handler(Exception)
    async def crash(request: Request, error: Exception) -> JSONResponse:
        logger.error("request %s failed", request.url.path, exc_info=error)
        return JSONResponse({"error": {"type": "InternalError", "message": f"{type(error).__name__}: {error}"}}, 500)


# --- the guard: authentication, size limit, request metrics ------------------------------------


class Guard:
    """ASGI middleware around every route: the bearer token (401, or a WebSocket closed with
    1008 before it opens), the request size limit (413) and the request metrics."""

    def __init__(self, app: ASGIApp, config: ServeConfig, metrics: Metrics) -> None:
        self.app, self.config, self.metrics = app, config, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if self.config.token and not authorized(scope, self.config.token):
            return await self._refuse(scope, receive, send)
        if scope["type"] == "websocket":
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), [500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            body = await self._body(scope, receive)
            if body is None:
                status[0] = 413
                limit = self.config.max_request_bytes
                message = f"the request body is over this server's limit of {limit} bytes: send smaller requests"
                return await _json(send, 413, {"error": {"type": "TooLarge", "message": message}})
            await self.app(scope, _replay(body, receive), sending)
        finally:
            route = scope.get("route")
            self.metrics.request(getattr(route, "path", "unmatched"), status[0], time.perf_counter() - started)

    async def _body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None when it is over the limit (read no further than that)."""
        limit = self.config.max_request_bytes
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return None
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                return None
            more = message.get("more_body", False)
        return b"".join(chunks)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.metrics.request("unauthorized", 401, 0.0)
        if scope["type"] == "websocket":
            await receive()  # (websocket.connect)
            await send({"type": "websocket.close", "code": 1008, "reason": "unauthorized"})
            return
        how = "Authorization: Bearer TOKEN (or HTTP Basic auth, TOKEN the password)"
        if dict(scope.get("headers") or ()).get(b"authorization"):  # (what was sent is not repeated)
            message = f"the token this request carries is not this server's: send its token as {how}"
        else:
            message = f"this server needs a token: send {how}"
        await _json(send, 401, {"error": {"type": "Unauthorized", "message": message}},
                    {"www-authenticate": 'Bearer realm="codegym"'})  # fmt: skip


def authorized(scope: Scope, token: str) -> bool:
    """Whether the request carries ``token``: ``Authorization: Bearer TOKEN``, or Basic auth
    with TOKEN as the password (what a URL ``http://user:TOKEN@host`` sends)."""
    header = dict(scope.get("headers") or ()).get(b"authorization", b"").decode("latin-1")
    kind, _, value = header.partition(" ")
    if kind.lower() == "bearer":
        given = value.strip()
    elif kind.lower() == "basic":
        try:
            given = base64.b64decode(value.strip()).decode("utf-8").partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return False
    else:
        return False
    return hmac.compare_digest(given.encode(), token.encode())


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body already read given back first."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _json(send: Send, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})
