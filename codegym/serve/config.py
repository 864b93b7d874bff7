"""`ServeConfig`: what ``codegym serve`` binds, admits and lets clients choose."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from codegym.error import UsageError

MiB = 1 << 20
# Env keyword arguments a client may not set: the backend and files on the server's disk are
# the operator's choice (``--option`` sets them for every env), and ``server`` would have this
# server open connections wherever a client says (a `RemoteEnv` to another host).
SERVER_ONLY_KWARGS = frozenset({"executor", "quarantine", "render_mode", "validate", "server"})


@dataclass(frozen=True)
class ServeConfig:
    """How a codegym server runs.

    Attributes:
        host: The address it binds; a non-loopback one needs ``token`` (or ``insecure``).
        port: The TCP port.
        token: The bearer token every request must carry (``Authorization: Bearer TOKEN``, or
            HTTP Basic auth with TOKEN as the password: ``http://codegym:TOKEN@host/...``).
        insecure: Serve a non-loopback address without a token (a trusted network only).
        max_sessions: Live sessions (WebSockets) at once; one more is told ``busy``.
        max_concurrency: Env operations (resets, steps, score batches) running at once; one
            more is answered 503 (a WebSocket: an error ``busy``) with ``Retry-After``.
        idle_timeout_s: A session that sends nothing for this long is closed.
        max_request_bytes: The largest request body or WebSocket message (413 / close 1009).
        max_batch: The most items of one ``/v1/score`` request.
        retry_after_s: The ``Retry-After`` a busy answer suggests.
        env_kwargs: Keyword arguments of every env the server makes (``--option``); a
            client's own ``env_kwargs`` come on top.
        env_ids: Registered ids served besides every ``codegym/`` one.
        allow_paths: Let clients name files on the server (``tasks="/data/x.jsonl"``).
        scorers: Long-lived scoring envs kept, one per (env id, kwargs).
        record: A JSON-lines file every session's episodes are appended to, one line each
            (`codegym.wrappers.RecordEpisodes`), or None.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = field(default=None, repr=False)  # (never in a repr or a log)
    insecure: bool = False
    max_sessions: int = 64
    max_concurrency: int = field(default_factory=lambda: max(2, 2 * (os.cpu_count() or 1)))
    idle_timeout_s: float = 600.0
    max_request_bytes: int = 16 * MiB
    max_batch: int = 4096
    retry_after_s: int = 1
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    env_ids: tuple[str, ...] = ()
    allow_paths: bool = False
    scorers: int = 8
    record: str | None = None

    def __post_init__(self) -> None:
        for name in ("max_sessions", "max_concurrency", "max_request_bytes", "max_batch", "scorers"):
            if getattr(self, name) < 1:
                raise UsageError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.idle_timeout_s <= 0:
            raise UsageError(f"idle_timeout_s must be positive, got {self.idle_timeout_s}")
        if not self.token and not self.insecure and not is_loopback(self.host):
            raise UsageError(
                f"refusing to serve {self.host} (not a loopback address) without authentication: pass --token "
                "TOKEN (clients send Authorization: Bearer TOKEN), or --insecure on a network you trust"
            )

    @property
    def auth(self) -> bool:
        """Whether requests must carry the token."""
        return bool(self.token)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
