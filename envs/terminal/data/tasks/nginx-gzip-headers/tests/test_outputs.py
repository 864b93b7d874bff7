"""Checks gzip, X-Served-By and Cache-Control on the nginx site at 127.0.0.1:8082."""

import gzip
import http.client
import socket

import pytest

ROOT = "/app/www"


def fetch(path: str, accept_gzip: bool) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", 8082, timeout=10)
    try:
        headers = {"Accept-Encoding": "gzip"} if accept_gzip else {"Accept-Encoding": "identity"}
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def original(rel: str) -> bytes:
    with open(f"{ROOT}/{rel}", "rb") as f:
        return f.read()


@pytest.mark.parametrize("rel", ["index.html", "assets/app.css", "assets/app.js", "ships.json"])
def test_gzip_when_accepted(rel):
    path = "/" if rel == "index.html" else f"/{rel}"
    status, headers, body = fetch(path, accept_gzip=True)
    assert status == 200
    assert headers.get("content-encoding") == "gzip", rel
    assert gzip.decompress(body) == original(rel)


def test_plain_without_accept_encoding():
    status, headers, body = fetch("/assets/app.css", accept_gzip=False)
    assert status == 200
    assert "content-encoding" not in headers
    assert body == original("assets/app.css")


def test_small_file_not_compressed():
    status, headers, body = fetch("/tiny.txt", accept_gzip=True)
    assert status == 200
    assert "content-encoding" not in headers
    assert body == original("tiny.txt")


@pytest.mark.parametrize("path", ["/", "/assets/app.js", "/nope.html", "/assets/nope.css"])
def test_served_by_everywhere(path):
    _, headers, _ = fetch(path, accept_gzip=False)
    assert headers.get("x-served-by") == "fleet-web", path


def test_assets_cache_control():
    _, headers, _ = fetch("/assets/app.css", accept_gzip=True)
    cache = headers.get("cache-control", "")
    assert "public" in cache and "max-age=86400" in cache


def test_pages_not_cached_for_a_day():
    _, headers, _ = fetch("/ships.json", accept_gzip=False)
    assert "max-age=86400" not in headers.get("cache-control", "")


def test_nothing_on_port_80():
    with socket.socket() as s:
        s.settimeout(2)
        assert s.connect_ex(("127.0.0.1", 80)) != 0
