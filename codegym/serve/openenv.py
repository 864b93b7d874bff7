"""OpenEnv's protocol for every served env, under ``/envs/<env id>`` (its client's base URL).

A WebSocket at ``/envs/<env id>/ws`` is one session with one env, as OpenEnv serves it. The
client sends ``{"type": "reset" | "step" | "state" | "close", "data": {...}}``; the server answers
``{"type": "observation", "data": {"observation": {...}, "reward": r, "done": d}}``, ``{"type":
"state", "data": {...}}`` or ``{"type": "error", "data": {"message", "code", "error_type"}}``.

- ``reset`` data: ``seed``, ``episode_id``, ``options`` (the env's: ``task_id``, ``tiers``,
  ``history``), ``task_id`` (short for ``options.task_id``) and ``env_kwargs``. The session's env
  is made at its first reset with ``env_kwargs`` (``mode``, ``tasks``, ``limits``, ...); a later
  reset with other ``env_kwargs`` makes it again.
- ``step`` data: ``{"code": str}`` (single and refine modes), or ``{"action": ...}``: in agent
  mode the model's text or its parsed tool calls.
- An observation carries the env's observation fields (arrays as `codegym.serve.wire` encodes
  them), plus ``info`` (wire-encoded: ``info["grade"]`` is a `Grade`), ``terminated`` and
  ``truncated``; ``done`` is either.
- Snapshots and forks (codegym's extension, `codegym.episodes.branch`): ``{"type": "snapshot"}``
  answers ``{"type": "snapshot", "data": {"snapshot_id", "step_count"}}``; ``restore`` and
  ``release`` take ``{"snapshot_id"}`` (answers ``restored``, ``released``); ``fork`` takes
  ``{"n", "snapshot_id"?, "seed"?}`` and answers ``{"type": "forks", "data": {"fork_ids"}}``:
  each fork waits (within the idle timeout) for a new session of the same env to send
  ``{"type": "adopt", "data": {"fork_id"}}``, which makes it that session's env and answers
  as ``configure`` does. ``dump`` takes ``{"snapshot_id"}`` and answers ``{"type": "dump",
  "data": {"record"}}`` (JSON: `codegym.episodes.dump`); ``load`` takes ``{"record"}`` (of this
  server or another) and answers ``loaded``: the session's env goes on from it. A session's
  snapshots are released when it ends.
- codegym's own message ``{"type": "configure", "data": {"env_kwargs": ...}}`` makes the env
  now and answers ``{"type": "spaces", "data": {"observation_space", "action_space"}}``
  (`codegym.remote.RemoteEnv` uses it). ``.../stream`` is the same session, and in agent mode
  also sends ``{"type": "tool_result", "data": ...}`` for each tool call as it completes.

The HTTP routes are stateless, as OpenEnv's are: ``POST .../reset`` makes an env, resets it and
answers its first observation; ``POST .../step`` plays a one-step episode (``{"action": {"code":
...}, "task_id": ..., "seed": ..., "env_kwargs": ...}``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import gymnasium as gym
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from gymnasium.envs.registration import load_env_creator

import codegym
from codegym.agent import ToolResult
from codegym.core import CodeEnv
from codegym.episodes import RecordEpisodes, branch
from codegym.error import Error
from codegym.serve.sessions import ApiError, Fork, Session, busy, check_env_id, env_kwargs, kwargs_key, make_env
from codegym.serve.wire import decode, encode, space_to_dict

if TYPE_CHECKING:
    from codegym.serve.app import Server

logger = logging.getLogger(__name__)
RESET_FIELDS = frozenset({"seed", "episode_id", "options", "task_id", "env_kwargs"})
STEP_FIELDS = ("code", "action")


def add_routes(app: FastAPI, server: Server) -> None:
    """Register the WebSocket and HTTP routes of every served env on ``app``."""

    @app.websocket("/envs/{env_id:path}/ws")
    async def session(websocket: WebSocket, env_id: str) -> None:
        await serve_session(server, websocket, env_id, stream=False)

    @app.websocket("/envs/{env_id:path}/stream")
    async def stream(websocket: WebSocket, env_id: str) -> None:
        await serve_session(server, websocket, env_id, stream=True)

    @app.post("/envs/{env_id:path}/reset")
    async def reset(request: Request, env_id: str) -> dict[str, Any]:
        from codegym.serve.app import json_body

        data = _object(await json_body(request), "the reset request")
        env = await _http_env(server, env_id, data)
        try:
            return await server.run("reset", lambda: _observation(*_reset(env, data), None, False, False))
        finally:
            await server.offload(env.close)

    @app.post("/envs/{env_id:path}/step")
    async def step(request: Request, env_id: str) -> dict[str, Any]:
        from codegym.serve.app import json_body

        data = _object(await json_body(request), "the step request")
        action = _action(_object(data.get("action"), "the step request's action"))
        episode = {k: v for k, v in data.items() if k in RESET_FIELDS}
        env = await _http_env(server, env_id, episode)
        try:
            reply = await server.run("step", _one_step, env, episode, action)
        finally:
            await server.offload(env.close)
        _count_grade(server, env_id, reply)
        return reply

    @app.get("/envs/{env_id:path}/state")
    async def state(env_id: str) -> dict[str, Any]:
        check_env_id(env_id, server.config)
        return {"episode_id": None, "step_count": 0}  # (HTTP is stateless: sessions are WebSockets)

    @app.get("/envs/{env_id:path}/health")
    async def health(env_id: str) -> dict[str, Any]:
        check_env_id(env_id, server.config)
        return {"status": "healthy"}

    @app.get("/envs/{env_id:path}/metadata")
    async def metadata(env_id: str) -> dict[str, Any]:
        check_env_id(env_id, server.config)
        doc = (getattr(load_env_creator(gym.spec(env_id).entry_point), "__doc__", None) or "").strip()  # type: ignore[arg-type]
        return {"name": env_id, "description": doc.split("\n\n")[0], "version": codegym.__version__,
                "readme_content": None, "author": None, "documentation_url": None}  # fmt: skip

    @app.get("/envs/{env_id:path}/schema")
    async def schema(env_id: str) -> dict[str, Any]:
        check_env_id(env_id, server.config)
        action = {"type": "object", "properties": {"code": {"type": "string"}, "action": {}},
                  "description": "code (single, refine) or action (agent: text or tool calls)"}  # fmt: skip
        state = {"type": "object", "properties": {"episode_id": {"type": ["string", "null"]},
                                                  "step_count": {"type": "integer"}}}  # fmt: skip
        observation = {"type": "object", "description": "the env's observation fields, plus info, terminated and "
                       "truncated (see codegym.serve.openenv)"}  # fmt: skip
        return {"action": action, "observation": observation, "state": state}


async def _http_env(server: Server, env_id: str, data: Mapping[str, Any]) -> gym.Env[Any, Any]:
    check_env_id(env_id, server.config)
    kwargs = env_kwargs(server.config, data.get("env_kwargs"))
    return await server.run("make", make_env, env_id, kwargs)


# --- WebSocket sessions ------------------------------------------------------------------------


async def serve_session(server: Server, websocket: WebSocket, env_id: str, *, stream: bool) -> None:
    """One OpenEnv session on ``websocket`` until the client closes it or it idles out."""
    await websocket.accept()
    try:
        check_env_id(env_id, server.config)
    except ApiError as e:
        await _send(websocket, _error(e.message, "UNKNOWN_ENV", e.kind))
        await websocket.close(1008)
        return
    session = server.sessions.open(env_id)
    if session is None:
        server.metrics.count(server.metrics.busy, "session")
        retry = server.config.retry_after_s
        message = f"busy: this server holds {server.sessions.limit} sessions; retry after {retry} s or use another"
        refusal = _error(message, "CAPACITY_REACHED", "Busy")
        refusal["data"]["retry_after"] = server.config.retry_after_s
        await _send(websocket, refusal)
        await websocket.close(1013)
        return
    session.expire = lambda: _expire(websocket, server.config.idle_timeout_s)
    try:
        await _session_loop(server, websocket, session, stream)
    except WebSocketDisconnect:
        pass
    finally:
        server.sessions.drop(session)
        await server.offload(session.close_env)


async def _session_loop(server: Server, websocket: WebSocket, session: Session, stream: bool) -> None:
    while True:
        raw = await websocket.receive_text()
        session.touch()
        if len(raw.encode()) > server.config.max_request_bytes:
            reply: dict[str, Any] | None = _error(
                "the message is over the server's size limit", "TOO_LARGE", "TooLarge"
            )
        else:
            session.busy = True
            try:
                reply = await _handle(server, session, raw, websocket if stream else None)
            finally:
                session.busy = False
                session.touch()
        if reply is None:
            await websocket.close()
            return
        await _send(websocket, reply)


async def _handle(server: Server, session: Session, raw: str, stream: WebSocket | None) -> dict[str, Any] | None:
    """The answer to one message (None: the client closes the session)."""
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as e:
        return _error(f"Invalid JSON: {e}", "INVALID_JSON", "InvalidJSON")
    if not isinstance(message, dict):
        return _error('a message is a JSON object {"type": ..., "data": {...}}', "VALIDATION_ERROR", "InvalidRequest")
    kind = message.get("type", "")
    server.metrics.count(server.metrics.ws_messages, str(kind))
    handlers: dict[str, Callable[..., Any]] = {"reset": _ws_reset, "step": _ws_step, "configure": _ws_configure,
                                               "snapshot": _ws_snapshot, "restore": _ws_restore, "release": _ws_release,
                                               "fork": _ws_fork, "adopt": _ws_adopt, "dump": _ws_dump,
                                               "load": _ws_load}  # fmt: skip
    if kind == "close":
        return None
    if kind == "state":
        return {"type": "state", "data": _state(session)}
    if kind not in handlers:
        return _error(f"Unknown message type: {kind!r}; expected reset, step, state, close, configure, snapshot, "
                      "restore, release, fork, adopt, dump or load", "UNKNOWN_TYPE", "InvalidRequest")  # fmt: skip
    try:
        data = _object(message.get("data", {}), f"the {kind} message's data")
        return await handlers[kind](server, session, data, stream)
    except ApiError as e:
        error = _error(e.message, "CAPACITY_REACHED" if e.status == 503 else "VALIDATION_ERROR", e.kind)
        if "Retry-After" in e.headers:
            error["data"]["retry_after"] = int(e.headers["Retry-After"])
        return error
    except (Error, gym.error.Error, ValueError, TypeError, KeyError) as e:  # the env's answer (ResetNeeded, ...)
        return _error(str(e), "EXECUTION_ERROR", type(e).__name__)
    except Exception as e:  # a bug of the env or the server: the session goes on, the log has it
        logger.error("a %s message of session %s failed", kind, session.id, exc_info=e)
        return _error(f"{type(e).__name__}: {e}", "EXECUTION_ERROR", "InternalError")


async def _ws_configure(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    env = await _session_env(server, session, data.get("env_kwargs"), remake=True)
    spaces = {
        "observation_space": space_to_dict(env.observation_space),
        "action_space": space_to_dict(env.action_space),
    }
    return {"type": "spaces", "data": {**spaces, "session_id": session.id}}


async def _ws_reset(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    unknown = sorted(set(data) - RESET_FIELDS)
    if unknown:
        raise ApiError(400, "InvalidRequest", f"unknown reset fields {unknown}; expected {sorted(RESET_FIELDS)}")
    env = await _session_env(server, session, data.get("env_kwargs"), remake="env_kwargs" in data)
    observation, info = await server.run("reset", _reset, env, data)
    session.episode_id = str(data.get("episode_id") or uuid.uuid4().hex)
    session.step_count, session.done = 0, False
    return {"type": "observation", "data": _observation(observation, info, None, False, False)}


async def _ws_step(server: Server, session: Session, data: dict[str, Any], stream: WebSocket | None) -> dict[str, Any]:
    action = _action(data)
    if session.env is None:
        raise ApiError(409, "ResetNeeded", "send a reset message before the first step")
    env = session.env
    unwrapped = env.unwrapped
    if stream is not None and isinstance(unwrapped, CodeEnv):
        queue: asyncio.Queue[Any] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def listen(result: ToolResult) -> None:  # (in the step's thread)
            loop.call_soon_threadsafe(queue.put_nowait, result.to_dict())

        unwrapped.tool_listener = listen
        try:
            step = asyncio.ensure_future(server.run("step", env.step, action))
            await _pump(queue, step, stream)
            result = step.result()
        finally:
            unwrapped.tool_listener = None
    else:
        result = await server.run("step", env.step, action)
    session.step_count += 1
    session.done = bool(result[2] or result[3])
    reply = {"type": "observation", "data": _stepped(result)}
    _count_grade(server, session.env_id, reply["data"])
    return reply


async def _ws_snapshot(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    env = _live_env(session, "snapshot")
    taken = await server.run("snapshot", branch.snapshot, env)
    snapshot_id = uuid.uuid4().hex
    session.snapshots[snapshot_id] = (taken, session.step_count, session.done)
    return {"type": "snapshot", "data": {"snapshot_id": snapshot_id, "step_count": session.step_count}}


async def _ws_restore(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    env = _live_env(session, "restore")
    snapshot_id = _snapshot_id(session, data)
    taken, session.step_count, session.done = session.snapshots[snapshot_id]
    await server.run("restore", branch.restore, env, taken)
    return {"type": "restored", "data": {"snapshot_id": snapshot_id, "step_count": session.step_count}}


async def _ws_release(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    env = _live_env(session, "release")
    snapshot_id = _snapshot_id(session, data)
    taken, *_ = session.snapshots.pop(snapshot_id)
    await server.offload(branch.release, env, taken)
    return {"type": "released", "data": {"snapshot_id": snapshot_id}}


async def _ws_fork(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    """``n`` forks of the session's env (from ``snapshot_id``, else as it stands), each kept
    for a new session to ``adopt`` within the idle timeout."""
    env = _live_env(session, "fork")
    n, seed = data.get("n", 1), data.get("seed")
    if not isinstance(n, int) or n < 1 or (seed is not None and not isinstance(seed, int)):
        raise ApiError(400, "InvalidRequest", f"fork takes n (a count >= 1) and an optional int seed, got {data}")
    if len(server.forks) + n > server.sessions.limit:
        raise busy(server.config, f"{len(server.forks)} forks are waiting to be adopted")
    step_count, done = session.step_count, session.done
    taken = None
    if "snapshot_id" in data:
        taken, step_count, done = session.snapshots[_snapshot_id(session, data)]
    forks = await server.run("fork", lambda: branch.fork(env, n, snapshot=taken, seed=seed))
    ids = []
    for forked in forks:
        fork_id = uuid.uuid4().hex
        server.forks[fork_id] = Fork(forked, session.env_id, session.kwargs_key, step_count, done)
        ids.append(fork_id)
    return {"type": "forks", "data": {"fork_ids": ids}}


async def _ws_adopt(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    """Make a waiting fork this session's env (and answer its spaces, as ``configure`` does)."""
    fork = server.forks.pop(str(data.get("fork_id")), None)
    if fork is None or fork.env_id != session.env_id:
        raise ApiError(404, "InvalidRequest", f"no fork {data.get('fork_id')!r} of {session.env_id} waits here "
                                              "(adopted already, expired, or of another env)")  # fmt: skip
    if session.env is not None:
        await server.offload(session.close_env)
    session.env, session.kwargs_key = fork.env, fork.kwargs_key
    session.step_count, session.done = fork.step_count, fork.done
    session.episode_id = uuid.uuid4().hex
    spaces = {
        "observation_space": space_to_dict(fork.env.observation_space),
        "action_space": space_to_dict(fork.env.action_space),
    }
    return {"type": "spaces", "data": {**spaces, "session_id": session.id, "step_count": fork.step_count}}


async def _ws_dump(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    env = _live_env(session, "dump")
    taken, *_ = session.snapshots[_snapshot_id(session, data)]
    record = await server.run("dump", branch.dump, env, taken)
    return {"type": "dump", "data": {"record": record}}


async def _ws_load(server: Server, session: Session, data: dict[str, Any], stream: Any) -> dict[str, Any]:
    """Make the session's env go on from a dumped snapshot (of this server or another)."""
    env = _live_env(session, "load")
    record = _object(data.get("record"), "the load message's record")
    await server.run("load", branch.load, env, record)
    session.step_count, session.done = 0, bool(getattr(env.unwrapped, "_done", False))
    return {"type": "loaded", "data": {}}


def _live_env(session: Session, what: str) -> gym.Env[Any, Any]:
    if session.env is None:
        raise ApiError(409, "ResetNeeded", f"send a reset message before a {what}")
    return session.env


def _snapshot_id(session: Session, data: Mapping[str, Any]) -> str:
    snapshot_id = data.get("snapshot_id")
    if snapshot_id not in session.snapshots:
        raise ApiError(404, "InvalidRequest", f"no snapshot {snapshot_id!r} in this session (released, or another's)")
    return str(snapshot_id)


async def _pump(queue: asyncio.Queue[Any], step: asyncio.Future[Any], websocket: WebSocket) -> None:
    """Send each tool result as it comes, until ``step`` is done and the queue empty."""
    while True:
        getter = asyncio.ensure_future(queue.get())
        await asyncio.wait({getter, step}, return_when=asyncio.FIRST_COMPLETED)
        if not getter.done():
            getter.cancel()
            while not queue.empty():
                await _send(websocket, {"type": "tool_result", "data": encode(queue.get_nowait())})
            return
        await _send(websocket, {"type": "tool_result", "data": encode(getter.result())})


async def _session_env(server: Server, session: Session, requested: Any, *, remake: bool) -> gym.Env[Any, Any]:
    """The session's env, made (again) with ``requested`` kwargs when it has none or they changed."""
    key = kwargs_key(requested or {})
    if session.env is not None and (not remake or key == session.kwargs_key):
        return session.env
    kwargs = env_kwargs(server.config, requested)
    env = await server.run("make", make_env, session.env_id, kwargs)
    if server.config.record is not None:  # (every episode of the session, one line each)
        env = RecordEpisodes(env, server.config.record)
    await server.offload(session.close_env)
    session.env, session.kwargs_key = env, key
    return env


async def _expire(websocket: WebSocket, timeout_s: float) -> None:
    """Tell the client its idle session is over, then close it."""
    try:
        await _send(websocket, _error(f"session expired: idle for over {timeout_s:g} s; open a new one",
                                      "SESSION_EXPIRED", "SessionExpired"))  # fmt: skip
        await websocket.close(1001)
    except (RuntimeError, WebSocketDisconnect):  # (already closing)
        pass


# --- messages ----------------------------------------------------------------------------------


def _reset(env: gym.Env[Any, Any], data: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    options = dict(_object(data.get("options") or {}, "reset options"))
    if "task_id" in data:
        options["task_id"] = data["task_id"]
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ApiError(400, "InvalidRequest", f"seed must be an integer, got {seed!r}")
    return env.reset(seed=seed, options=options or None)


def _one_step(env: gym.Env[Any, Any], episode: Mapping[str, Any], action: Any) -> dict[str, Any]:
    """A one-step episode: reset with ``episode``'s fields, then step ``action``."""
    _reset(env, episode)
    return _stepped(env.step(action))


def _action(data: Mapping[str, Any]) -> Any:
    given = [name for name in STEP_FIELDS if name in data]
    if len(given) != 1:
        raise ApiError(400, "InvalidRequest", 'a step carries {"code": str} (the submission) or {"action": ...} (an '
                       f"agent's text or tool calls); got the fields {sorted(data)}")  # fmt: skip
    return decode(data[given[0]])  # (a harness reply travels tagged: `codegym.serve.wire.encode`)


def _stepped(result: tuple[Any, ...]) -> dict[str, Any]:
    """The payload of ``step``'s ``(observation, reward, terminated, truncated, info)``."""
    observation, reward, terminated, truncated, info = result
    return _observation(observation, info, reward, terminated, truncated)


def _observation(
    observation: Any, info: Mapping[str, Any], reward: float | None, terminated: bool, truncated: bool
) -> dict[str, Any]:
    """An OpenEnv observation payload: the env's observation fields plus ``info``,
    ``terminated`` and ``truncated``, all wire-encoded (``reward`` None after a reset)."""
    fields = encode(observation) if isinstance(observation, Mapping) else {"value": encode(observation)}
    body = {**fields, "info": encode(dict(info)), "terminated": bool(terminated), "truncated": bool(truncated)}
    return {"observation": body, "reward": None if reward is None else float(reward), "done": terminated or truncated}


def _state(session: Session) -> dict[str, Any]:
    env = session.env.unwrapped if session.env is not None else None
    task = getattr(env, "task", None)
    return {"episode_id": session.episode_id, "step_count": session.step_count, "env_id": session.env_id,
            "session_id": session.id, "task_id": getattr(task, "id", None), "mode": getattr(env, "mode", None),
            "done": session.done}  # fmt: skip


def _count_grade(server: Server, env_id: str, payload: Mapping[str, Any]) -> None:
    status = payload.get("observation", {}).get("info", {}).get("status")
    if isinstance(status, str):
        server.metrics.grade(env_id, status)


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(400, "InvalidRequest", f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def _error(message: str, code: str, kind: str) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code, "error_type": kind}}


async def _send(websocket: WebSocket, message: Mapping[str, Any]) -> None:
    await websocket.send_text(json.dumps(message))
