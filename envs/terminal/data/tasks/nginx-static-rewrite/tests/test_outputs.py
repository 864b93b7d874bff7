"""Checks the nginx site on 127.0.0.1:8080 (static files, extensionless pages, /old/ redirects, 404)."""

import http.client
import socket
import urllib.parse

SITE = "/app/site"


def fetch(path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", 8080, timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def read(rel: str) -> bytes:
    with open(f"{SITE}/{rel}", "rb") as f:
        return f.read()


def test_index():
    status, _, body = fetch("/")
    assert status == 200
    assert b"Harbor Docs home" in body


def test_static_file():
    status, headers, body = fetch("/assets/style.css")
    assert status == 200
    assert body == read("assets/style.css")
    assert headers.get("content-type", "").startswith("text/css")


def test_extensionless_page():
    status, _, body = fetch("/docs/guide")
    assert status == 200
    assert b"The deployment guide" in body


def test_html_still_served_with_extension():
    status, _, body = fetch("/docs/faq.html")
    assert status == 200
    assert b"Frequently asked questions" in body


def test_old_redirects_permanently():
    for old, new in [("/old/faq", "/docs/faq"), ("/old/guide", "/docs/guide")]:
        status, headers, _ = fetch(old)
        assert status == 301, (old, status)
        assert urllib.parse.urlparse(headers["location"]).path == new


def test_custom_404():
    status, _, body = fetch("/no/such/page")
    assert status == 404
    assert b"Lost at sea (custom 404)" in body


def test_nothing_on_port_80():
    with socket.socket() as s:
        s.settimeout(2)
        assert s.connect_ex(("127.0.0.1", 80)) != 0
