"""Servers for the serve tests: ``codegym serve``'s app on free loopback ports, in threads of
this process (so that they share its warm executor and loaded task sets with the in-process
envs the tests compare them with)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from codegym.serve import ServeConfig, create_app

START_TIMEOUT_S = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(config: ServeConfig) -> tuple[Any, threading.Thread]:
    uvicorn = pytest.importorskip("uvicorn")
    server = uvicorn.Server(uvicorn.Config(create_app(config), host=config.host, port=config.port, log_level="warning"))
    thread = threading.Thread(target=server.run, name=f"codegym-serve-{config.port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"the test server on port {config.port} did not start")
        time.sleep(0.02)
    return server, thread


@pytest.fixture(scope="session")
def servers() -> Iterator[list[str]]:
    """Two servers' URLs (task files allowed: the tests write their own)."""
    started = [_start(ServeConfig(port=_free_port(), allow_paths=True, max_concurrency=8)) for _ in range(2)]
    yield [f"http://127.0.0.1:{server.config.port}" for server, _ in started]
    for server, thread in started:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def server_url(servers: list[str]) -> str:
    return servers[0]
