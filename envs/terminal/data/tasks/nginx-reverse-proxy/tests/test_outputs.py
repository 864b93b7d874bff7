"""Checks nginx on 127.0.0.1:8081 in front of the inventory API on 127.0.0.1:9000."""

import http.client
import json


def fetch(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_backend_running():
    status, body = fetch(9000, "/api/direct")
    assert status == 200
    assert json.loads(body)["path"] == "/api/direct"


def test_proxy_keeps_path_and_query():
    status, body = fetch(8081, "/api/items?id=2&sort=desc")
    assert status == 200
    assert json.loads(body)["path"] == "/api/items?id=2&sort=desc"


def test_proxy_headers():
    _, body = fetch(8081, "/api/whoami")
    headers = json.loads(body)["headers"]
    assert headers.get("x-gateway") == "nginx-8081"
    assert "127.0.0.1" in headers.get("x-forwarded-for", "")


def test_healthz_answered_by_nginx():
    status, body = fetch(8081, "/healthz")
    assert status == 200
    assert body.strip() == b"ok"


def test_static_front_page():
    status, body = fetch(8081, "/")
    assert status == 200
    assert b"Inventory front page" in body


def test_static_not_proxied():
    status, _ = fetch(8081, "/missing.html")
    assert status == 404
