"""The server's guards and endpoints, through Starlette's test client (no sockets): busy
answers, the token, size limits, idle sessions, errors, /health, /metrics and the HTTP routes."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from codegym.error import UsageError
from codegym.executor.isolation import probe
from codegym.serve import ServeConfig, create_app
from codegym.serve.wire import decode

pytestmark = pytest.mark.timeout(120)

ENV = "codegym/PythonFunction-v0"
TASK = "codegym-py/001-count-vowel-runs"
SCORE = {"env_id": ENV, "items": [{"task_id": TASK, "code": "x = 1"}]}


def _client(**options: Any) -> TestClient:
    return TestClient(create_app(ServeConfig(**options)))


def test_a_full_server_answers_503_with_retry_after() -> None:
    with _client(max_concurrency=2, retry_after_s=3) as client:
        gate = client.app.state.server.gate  # type: ignore[attr-defined]
        with client.websocket_connect(f"/envs/{ENV}/ws") as ws:
            ws.send_json({"type": "reset", "data": {"seed": 0}})
            assert ws.receive_json()["type"] == "observation"
            gate.in_flight = gate.limit  # (two long steps running)
            response = client.post("/v1/score", json=SCORE)
            assert response.status_code == 503 and response.headers["retry-after"] == "3"
            assert response.json()["error"]["type"] == "Busy"
            ws.send_json({"type": "step", "data": {"code": "x = 1"}})
            refusal = ws.receive_json()["data"]
            assert (refusal["code"], refusal["retry_after"]) == ("CAPACITY_REACHED", 3) and "busy" in refusal["message"]
            gate.in_flight = 0
            ws.send_json({"type": "step", "data": {"code": "x = 1"}})  # (the session goes on)
            assert ws.receive_json()["data"]["done"] is True
        assert 'codegym_busy_total{what="score"} 1' in client.get("/metrics").text


def test_sessions_beyond_the_limit_are_told_busy() -> None:
    with _client(max_sessions=1) as client, client.websocket_connect(f"/envs/{ENV}/ws") as first:
        first.send_json({"type": "state"})
        assert first.receive_json()["type"] == "state"
        with client.websocket_connect(f"/envs/{ENV}/ws") as second:
            refusal = second.receive_json()["data"]
            assert refusal["code"] == "CAPACITY_REACHED" and refusal["retry_after"] == 1


def test_a_non_loopback_server_needs_a_token() -> None:
    with pytest.raises(UsageError, match="--token"):
        ServeConfig(host="0.0.0.0")
    assert ServeConfig(host="0.0.0.0", insecure=True).auth is False
    with _client(host="0.0.0.0", token="s3cret") as client:
        response = client.get("/health")
        assert response.status_code == 401 and response.json()["error"]["type"] == "Unauthorized"
        assert client.get("/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/health", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        basic = base64.b64encode(b"codegym:s3cret").decode()
        assert client.get("/metrics", headers={"Authorization": f"Basic {basic}"}).status_code == 200
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/envs/{ENV}/ws"):
            pass
        assert refused.value.code == 1008


def test_oversized_and_malformed_requests_are_structured_4xx() -> None:
    with _client(max_request_bytes=1000, max_batch=2) as client:
        big = client.post("/v1/score", content=b"{" + b" " * 2000 + b"}", headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["error"]["type"] == "TooLarge"
        bad = client.post("/v1/score", content=b"{not json", headers={"content-type": "application/json"})
        assert bad.status_code == 400 and bad.json()["error"]["type"] == "InvalidJSON"
        shape = client.post("/v1/score", json={"env_id": ENV, "items": [{"task_id": TASK}]})
        assert shape.status_code == 400 and "items[0]" in shape.json()["error"]["message"]
        many = client.post("/v1/score", json={**SCORE, "items": SCORE["items"] * 3})
        assert many.status_code == 413 and "at most 2" in many.json()["error"]["message"]
        unknown = client.post("/v1/score", json={**SCORE, "env_id": "codegym/PythonFunktion-v0"})
        assert (
            unknown.status_code == 404
            and "did you mean codegym/PythonFunction-v0" in unknown.json()["error"]["message"]
        )
        path = client.post("/v1/score", json={**SCORE, "env_kwargs": {"tasks": "/etc/passwd"}})
        assert path.status_code == 403 and "--allow-paths" in path.json()["error"]["message"]
        for kwarg, value in (("server", "http://10.0.0.1:9"), ("executor", "docker")):  # (no relay elsewhere)
            refused = client.post("/v1/score", json={**SCORE, "env_kwargs": {kwarg: value}})
            assert refused.status_code == 403 and refused.json()["error"]["type"] == "ForbiddenKwargs"
        assert client.get("/nowhere").json()["error"]["type"] == "NotFound"
        with client.websocket_connect(f"/envs/{ENV}/ws") as ws:
            ws.send_text("{oops")
            assert ws.receive_json()["data"]["code"] == "INVALID_JSON"
            ws.send_json({"type": "dance"})
            assert ws.receive_json()["data"]["code"] == "UNKNOWN_TYPE"


def test_idle_sessions_expire() -> None:
    with _client(idle_timeout_s=0.3) as client, client.websocket_connect(f"/envs/{ENV}/ws") as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        assert ws.receive_json()["type"] == "observation"
        time.sleep(1.0)  # (the reaper looks every timeout/4)
        notice = ws.receive_json()["data"]
        assert notice["code"] == "SESSION_EXPIRED" and "idle" in notice["message"]
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
        assert "codegym_sessions_expired_total 1" in client.get("/metrics").text
        assert client.app.state.server.sessions.live == {}  # type: ignore[attr-defined]


def test_health_metrics_and_score() -> None:
    with _client() as client:
        health = client.get("/health").json()
        assert health["status"] == "healthy" and health["isolation"] == probe().best
        assert {"sessions", "in_flight", "max_concurrency", "version"} <= set(health)
        items = [{"task_id": TASK, "code": "x = 1"}, {"task_id": "nope", "code": "x = 1"}]
        scored = client.post("/v1/score", json={"env_id": ENV, "items": items}).json()["results"]
        assert scored[0]["grade"]["status"] == "WA" and scored[0]["reward"] == 0.0
        assert scored[1]["error"]["type"] == "UnknownTask"
        text = client.get("/metrics").text
    assert f'codegym_grades_total{{env_id="{ENV}",status="WA"}} 1' in text
    assert 'codegym_requests_total{route="/v1/score",code="200"} 1' in text
    assert 'codegym_request_duration_seconds_bucket{route="score",le="+Inf"} 1' in text
    assert "codegym_in_flight 0" in text and "# TYPE codegym_request_duration_seconds histogram" in text


def test_openenv_http_routes() -> None:
    base = f"/envs/{ENV}"
    with _client() as client:
        first = client.post(f"{base}/reset", json={"seed": 0, "task_id": TASK}).json()
        assert first["reward"] is None and first["done"] is False
        assert decode(first["observation"])["info"]["task_id"] == TASK
        right = json.loads(python_function_row(TASK))["reference"]
        step = client.post(f"{base}/step", json={"action": {"code": right}, "task_id": TASK}).json()
        assert (step["reward"], step["done"]) == (1.0, True)
        assert client.get(f"{base}/health").json() == {"status": "healthy"}
        assert client.get(f"{base}/state").json()["step_count"] == 0
        assert set(client.get(f"{base}/schema").json()) == {"action", "observation", "state"}
        assert client.get(f"{base}/metadata").json()["name"] == ENV
        assert client.get("/v1/envs").json()["envs"].count(ENV) == 1


def python_function_row(task_id: str) -> str:
    data = Path(__file__).resolve().parents[2] / "envs" / "python_function" / "data" / "codegym_py.jsonl"
    lines = data.read_text().splitlines()
    return next(line for line in lines if json.loads(line)["task_id"] == task_id)


def test_a_scorer_pushed_out_of_the_cache_mid_batch_closes_when_the_batch_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """One scorer kept: a second env's batch pushes out the first while a batch grades on it;
    the first env is closed only once that batch is done (then at once, not at the server's end)."""
    from codegym.serve.sessions import Scorers

    closed: list[str] = []
    scorers = Scorers(limit=1)
    try:
        with scorers.use(ENV, "a", {}) as first:
            monkeypatch.setattr(first.env, "close", lambda: closed.append("a"))
            with scorers.use(ENV, "b", {}) as second:
                assert second is not first and closed == []  # (first still grading)
                assert first.score([(TASK, "x = 1")])[0].status.value == "WA"
            assert closed == []
        assert closed == ["a"]
        with scorers.use(ENV, "b", {}) as again:
            assert again is second  # (kept)
    finally:
        scorers.close()
