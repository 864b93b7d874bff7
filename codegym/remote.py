"""Envs and scoring on ``codegym serve`` servers: `RemoteEnv` and `score_remote`.

`RemoteEnv` is a `gymnasium.Env` whose env lives on a server: one WebSocket session (OpenEnv's
protocol, see `codegym.serve.openenv`), its spaces sent by the server, its observations, infos
and `Grade` values decoded exactly (`codegym.serve.wire`). ``gym.make("codegym/<Family>-v<N>",
server=URL)`` makes one; a list of URLs spreads sessions over servers, round robin. `score_remote`
(``codegym.score(..., server=URL_or_list)``) posts batches to ``/v1/score`` in chunks spread over
the servers and returns the grades the env would give in this process.

A server with a token: pass ``token=`` (to `RemoteEnv`, ``gym.make(..., server=URL, token=T)``
or ``codegym.score(..., server=URL, token=T)``), set ``$CODEGYM_SERVER_TOKEN``, or put it in the
URL as the password (``http://codegym:TOKEN@host:8000``). It goes out in the ``Authorization``
header only: it is never sent as an env setting, and never shown in a message, a repr or an
env's spec (a spec keeps the URL without its credentials and no ``token``; an env remade from
it takes the token from ``$CODEGYM_SERVER_TOKEN``). ``gym.make_vec(..., token=T)`` is the
exception: Gymnasium keeps the vector env's keyword arguments in its spec as given, so give a
vector env its token by ``$CODEGYM_SERVER_TOKEN``. Needs ``websockets`` (the ``serve`` extra)
for `RemoteEnv`; `score_remote` needs only the standard library.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import itertools
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import gymnasium as gym
from gymnasium.envs.registration import EnvSpec
from tqdm import tqdm

from codegym import error
from codegym.grade import Grade
from codegym.serve.wire import decode, encode, grade_from_dict, space_from_dict

TOKEN_VARIABLE = "CODEGYM_SERVER_TOKEN"
TOKEN_HELP = f"pass token=, set ${TOKEN_VARIABLE}, or put the token in the URL as its password"
CHUNK = 256  # items per /v1/score request
BUSY_RETRIES = 120  # 503 answers waited out per chunk
_turns: dict[tuple[str, ...], itertools.count[int]] = {}
_turns_lock = threading.Lock()


def pick(servers: str | Sequence[str]) -> str:
    """The next of ``servers`` in round robin (this process's turn for that list)."""
    if isinstance(servers, str):
        return servers
    urls = tuple(servers)
    if not urls:
        raise ValueError("server: expected a URL or a non-empty list of URLs, got an empty list")
    with _turns_lock:
        turn = next(_turns.setdefault(urls, itertools.count()))
    return urls[turn % len(urls)]


class RemoteEnv(gym.Env[dict[str, Any], Any]):
    """A codegym env played on a ``codegym serve`` server over one WebSocket session.

    Args:
        server: The server's URL (``http://host:8000``), or a list of them (round robin).
        env_id: The registered env, e.g. ``"codegym/PythonFunction-v0"``.
        env_kwargs: The env's keyword arguments, made on the server (``mode``, ``tasks`` by
            name, ``limits``, ``agent``; JSON values or those dataclasses).
        token: The server's token (else ``$CODEGYM_SERVER_TOKEN`` or the URL's password).
        timeout_s: How long one reset or step may take before `RemoteError`.
        connect_timeout_s: How long opening the session may take.
        adopt: A fork waiting on the server (`forked`, ``codegym.episodes.fork``): the
            session takes that env, as it stands, instead of making one.

    Raises:
        RemoteError: The server cannot be reached, or refuses the session (busy, a bad token,
            an env it does not serve, kwargs it does not accept).
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        server: str | Sequence[str],
        env_id: str,
        *,
        env_kwargs: Mapping[str, Any] | None = None,
        token: str | None = None,
        timeout_s: float = 600.0,
        connect_timeout_s: float = 30.0,
        adopt: str | None = None,
    ) -> None:
        try:
            from websockets.sync.client import connect
        except ImportError as e:
            raise error.DependencyNotInstalled("RemoteEnv needs websockets: pip install 'codegym[serve]'") from e
        chosen = pick(server)
        self.server, self.env_id, self.timeout_s = redact(chosen), env_id, timeout_s
        base, headers = _auth(chosen, token)
        url = _ws_url(base) + f"/envs/{env_id}/ws"
        try:
            opened = connect(url, additional_headers=headers, open_timeout=connect_timeout_s, max_size=None)
            self._ws: Any = opened.__enter__()  # (closed in close(), not by a with block)
        except Exception as e:  # (OSError, a timeout, websockets' InvalidStatus for a refusal)
            status = getattr(getattr(e, "response", None), "status_code", None)
            if status in (401, 403):  # (a WebSocket refused before it opens: the token)
                raise error.RemoteError(_refused(self.server, status, sent=bool(headers))) from e
            raise error.RemoteError(f"cannot open a session at {url}: {e}") from e
        self._login = _Hidden((chosen, token))  # (for forks: a new session at the same server)
        if adopt is None:
            spaces = self._call("configure", {"env_kwargs": wire_kwargs(env_kwargs or {})}, expect="spaces")
        else:  # (a fork of another session's env, waiting on the server: `forked`)
            spaces = self._call("adopt", {"fork_id": adopt}, expect="spaces")
        self.observation_space = space_from_dict(spaces["observation_space"])
        self.action_space = space_from_dict(spaces["action_space"])
        self.session_id: str = spaces.get("session_id", "")

    @property
    def spec(self) -> EnvSpec | None:  # pyright: ignore[reportIncompatibleVariableOverride]
        """The env's spec, as ``gym.make`` recorded it, less its credentials: no ``token``, and
        server URLs without a user and password."""
        return self._spec

    @spec.setter
    def spec(self, spec: EnvSpec | None) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        if spec is not None:
            kwargs = {k: v for k, v in spec.kwargs.items() if k != "token"}
            if "server" in kwargs:
                servers = kwargs["server"]
                kwargs["server"] = redact(servers) if isinstance(servers, str) else [redact(u) for u in servers]
            spec = dataclasses.replace(spec, kwargs=kwargs)
        self._spec = spec

    _spec: EnvSpec | None = None

    def __repr__(self) -> str:
        return f"<RemoteEnv {self.env_id} at {self.server}>"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the server's env (``options`` as the env takes them: ``task_id``, ...)."""
        super().reset(seed=seed)
        data: dict[str, Any] = {"options": options or {}}
        if seed is not None:
            data["seed"] = seed
        observation, _, _, _, info = _step_result(self._call("reset", data, expect="observation"))
        return observation, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Step the server's env with ``action`` (code; in agent mode text or tool calls)."""
        return _step_result(self._call("step", {"action": encode(action)}, expect="observation"))

    def snapshot_state(self) -> dict[str, Any]:
        """A snapshot of the server's env, kept there (`codegym.episodes.snapshot`)."""
        return {"remote": self._call("snapshot", {}, expect="snapshot")["snapshot_id"]}

    def restore_state(self, state: Mapping[str, Any], *, fork: bool = False) -> None:
        self._call("restore", {"snapshot_id": state["remote"]}, expect="restored")

    def release_state(self, state: Mapping[str, Any]) -> None:
        self._call("release", {"snapshot_id": state["remote"]}, expect="released")

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The server's snapshot as JSON (`codegym.episodes.dump`)."""
        return self._call("dump", {"snapshot_id": state["remote"]}, expect="dump")["record"]

    def load_state(self, record: Mapping[str, Any]) -> None:
        """Make the server's env go on from a `dump_state` record (of any server or process)."""
        self._call("load", {"record": record}, expect="loaded")

    def forked(self, state: Mapping[str, Any], seed: int | None) -> RemoteEnv:
        """A new session on the same server adopting a fork of this one's env."""
        data: dict[str, Any] = {"n": 1, "snapshot_id": state["remote"]}
        if seed is not None:
            data["seed"] = seed
        [fork_id] = self._call("fork", data, expect="forks")["fork_ids"]
        url, token = self._login.value
        return RemoteEnv(url, self.env_id, token=token, timeout_s=self.timeout_s, adopt=fork_id)

    def close(self) -> None:
        """End the session (the server closes its env)."""
        ws, self._ws = getattr(self, "_ws", None), None
        if ws is None:
            return
        with contextlib.suppress(Exception):  # (a session already gone is closed)
            ws.send(json.dumps({"type": "close"}))
        ws.close()

    def _call(self, kind: str, data: Mapping[str, Any], *, expect: str) -> dict[str, Any]:
        """Send one request and return its answer's data; a busy server's refusal is waited
        out as its ``retry_after`` says (`BUSY_RETRIES` times), as `score_remote` does."""
        for _ in range(BUSY_RETRIES):
            reply = self._exchange(kind, data)
            busy = reply.get("type") == "error" and reply.get("data", {}).get("code") == "CAPACITY_REACHED"
            if not busy:
                break
            time.sleep(float(reply["data"].get("retry_after") or 1))
        else:
            raise error.RemoteError(
                f"{self.server} stayed busy for {BUSY_RETRIES} tries; add servers or lower the load"
            )
        if reply.get("type") == "error":
            raise remote_exception(reply.get("data", {}))
        if reply.get("type") != expect:
            raise error.RemoteError(f"expected a {expect!r} answer to {kind}, got {str(reply)[:200]}")
        return reply["data"]

    def _exchange(self, kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
        if self._ws is None:
            raise error.RemoteError("this RemoteEnv is closed; make another")
        message = json.dumps({"type": kind, "data": data})  # (a value JSON cannot carry fails here, clearly)
        try:
            with contextlib.suppress(Exception):  # (closed by the server: its last message says why, read below)
                self._ws.send(message)
            while True:
                reply = json.loads(self._ws.recv(timeout=self.timeout_s))
                if reply.get("type") != "tool_result":  # (streamed tool results are for /stream clients)
                    break
        except TimeoutError as e:
            raise error.RemoteError(f"{self.server} did not answer a {kind} within {self.timeout_s:g} s") from e
        except Exception as e:
            if isinstance(e, error.Error):
                raise
            raise error.RemoteError(f"the session at {self.server} ended during a {kind}: {e}") from e
        return reply


class _Hidden:
    """A value kept out of every repr (a server's URL with its password, a token)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<hidden>"


def _step_result(payload: Mapping[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
    body = decode(payload["observation"])
    info, terminated, truncated = body.pop("info"), body.pop("terminated"), body.pop("truncated")
    return body, float(payload.get("reward") or 0.0), terminated, truncated, info


def env_id_of(cls: type, kwargs: Mapping[str, Any]) -> str:
    """The registered id whose entry point is ``cls`` (of several, the one ``kwargs`` match)."""
    entry = f"{cls.__module__}:{cls.__name__}"
    ids = [spec for spec in gym.registry.values() if spec.entry_point == entry]
    fitting = [spec for spec in ids if all(kwargs.get(k) == v for k, v in spec.kwargs.items())] or ids
    if len(fitting) != 1:
        found = ", ".join(spec.id for spec in fitting) or "none"
        raise ValueError(f"cannot tell which registered env {entry} is (ids: {found}); make RemoteEnv(server, env_id)")
    return fitting[0].id


def wire_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` as JSON for a server: dataclass values (`Limits`, `AgentLimits`) as objects of
    their fields; anything else must be JSON already (a task set by name, not a `TaskSet`)."""
    out = {k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) and not isinstance(v, type) else v
           for k, v in kwargs.items()}  # fmt: skip
    try:
        json.dumps(out)
    except TypeError as e:
        raise TypeError(
            f"env kwargs sent to a server must be JSON values (a task set by name, not an object): {e}"
        ) from e
    return out


def remote_exception(data: Mapping[str, Any]) -> Exception:
    """The exception a server's error stands for: codegym's own (`UnknownTask`, `ResetNeeded`,
    `SandboxError`, ...) or ValueError/TypeError/KeyError by name, else `RemoteError`."""
    kind, message = str(data.get("error_type") or data.get("type") or ""), str(data.get("message", ""))
    found = getattr(error, kind, None)
    if isinstance(found, type) and issubclass(found, error.Error):
        return found(message)
    if kind in ("ValueError", "TypeError", "KeyError"):
        return getattr(builtins, kind)(message)
    code = data.get("code")
    return error.RemoteError(f"{kind or code or 'error'}: {message}")


# --- scoring ---------------------------------------------------------------------------------


def score_remote(
    env_id: str,
    submissions: Iterable[tuple[str, str]],
    server: str | Sequence[str],
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    token: str | None = None,
    chunk_size: int = CHUNK,
    progress: bool = False,
    timeout_s: float = 3600.0,
) -> list[Grade]:
    """Grade ``(task_id, answer)`` pairs on ``codegym serve`` servers, in input order.

    The pairs go in chunks of ``chunk_size``, spread over the servers and sent at once (two
    per server); a busy server's 503 is waited out as its ``Retry-After`` says. An item the
    server cannot grade raises what grading it here raises (`UnknownTask`, `SandboxError`).
    """
    servers = [server] if isinstance(server, str) else list(server)
    if not servers:
        raise ValueError("server: expected a URL or a non-empty list of URLs, got an empty list")
    items = [{"task_id": str(task_id), "code": code} for task_id, code in submissions]
    chunks = [items[i : i + chunk_size] for i in range(0, len(items), chunk_size)]
    start = servers.index(pick(servers))
    body = {"env_id": env_id, "env_kwargs": wire_kwargs(env_kwargs or {})}
    with ThreadPoolExecutor(max_workers=max(1, min(len(chunks), 2 * len(servers)))) as pool:
        futures = [pool.submit(_post, servers[(start + i) % len(servers)], "/v1/score", {**body, "items": chunk},
                               token, timeout_s) for i, chunk in enumerate(chunks)]  # fmt: skip
        bar = tqdm(total=len(items), disable=not progress, desc="scoring", unit="sample")
        results: list[Any] = []
        for future, chunk in zip(futures, chunks, strict=True):
            results += future.result()["results"]
            bar.update(len(chunk))
        bar.close()
    for result in results:
        if "error" in result:
            raise remote_exception(result["error"])
    return [grade_from_dict(result["grade"]) for result in results]


def _post(url: str, path: str, body: Any, token: str | None, timeout_s: float) -> Any:
    """POST ``body`` as JSON; wait out 503s; a JSON error becomes its exception."""
    base, headers = _auth(url, token)
    server = redact(url)
    data = json.dumps(body).encode()
    request = urllib.request.Request(base + path, data, {**headers, "Content-Type": "application/json"}, method="POST")
    for _ in range(BUSY_RETRIES):
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            if e.code == 503:
                time.sleep(float(e.headers.get("Retry-After") or 1))
                continue
            if e.code in (401, 403):
                raise error.RemoteError(_refused(server, e.code, sent=bool(headers))) from e
            raise _http_error(server, e) from e
        except (urllib.error.URLError, OSError) as e:
            raise error.RemoteError(f"cannot reach {server}: {e}") from e
    raise error.RemoteError(f"{server} stayed busy for {BUSY_RETRIES} tries; add servers or lower the load")


def _http_error(server: str, e: urllib.error.HTTPError) -> Exception:
    try:
        detail = json.loads(e.read())["error"]
    except (ValueError, KeyError, TypeError):
        return error.RemoteError(f"{server} answered HTTP {e.code}: {e.reason}")
    found = remote_exception({"error_type": detail.get("type"), "message": detail.get("message")})
    if isinstance(found, error.RemoteError):
        return error.RemoteError(f"{server} answered HTTP {e.code}: {detail.get('type')}: {detail.get('message')}")
    return found


# --- URLs and tokens ---------------------------------------------------------------------------


def _auth(url: str, token: str | None) -> tuple[str, dict[str, str]]:
    """``url`` without credentials, and the header that carries the token (the argument, the
    URL's password, or ``$CODEGYM_SERVER_TOKEN``)."""
    parts = urlsplit(url.rstrip("/"))
    netloc = parts.netloc.rpartition("@")[2]
    token = token or parts.password or os.environ.get(TOKEN_VARIABLE)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return urlunsplit((parts.scheme or "http", netloc, parts.path, "", "")), headers


def redact(url: str) -> str:
    """``url`` without its user and password (what messages, reprs and specs show)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))


def _refused(server: str, status: int, *, sent: bool) -> str:
    """What a refusal for the token says (never the token)."""
    if sent:
        return f"{server} refused the token (HTTP {status}): it is not this server's token; {TOKEN_HELP}"
    return f"{server} needs a token (HTTP {status}) and none was given: {TOKEN_HELP}"


def _ws_url(url: str) -> str:
    if url.startswith("https://"):
        return "wss://" + url[len("https://") :]
    if url.startswith("http://"):
        return "ws://" + url[len("http://") :]
    return url
