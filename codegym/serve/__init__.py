"""``codegym serve``: every registered env over HTTP and WebSocket, in OpenEnv's protocol.

`create_app` builds the FastAPI app (see `codegym.serve.app` for its routes and
`codegym.serve.openenv` for the protocol); `serve` runs it with uvicorn. `codegym.remote` is the
client side: a `RemoteEnv` per session and ``codegym.score(..., server=URL)``. Needs the
``serve`` extra (fastapi, uvicorn, websockets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codegym.error import DependencyNotInstalled
from codegym.serve.config import ServeConfig

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ServeConfig", "create_app", "serve"]


def create_app(config: ServeConfig | None = None, **options: Any) -> FastAPI:
    """The server's FastAPI app (see `codegym.serve.app.create_app`)."""
    try:
        from codegym.serve.app import create_app as create
    except ImportError as e:
        raise DependencyNotInstalled(f"codegym serve needs {e.name}: pip install 'codegym[serve]'") from e
    return create(config, **options)


def serve(config: ServeConfig, *, log_level: str = "info") -> None:
    """Run the server until interrupted (uvicorn, one process; env steps on a thread pool)."""
    try:
        import uvicorn
    except ImportError as e:
        raise DependencyNotInstalled("codegym serve needs uvicorn: pip install 'codegym[serve]'") from e
    app = create_app(config)
    uvicorn.run(app, host=config.host, port=config.port, log_level=log_level, ws_max_size=config.max_request_bytes)
