"""Inventory API: answers GET /api/... with JSON describing the request it received."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ITEMS = {"1": "anchor", "2": "compass", "3": "lantern"}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith("/api/"):
            self.send_error(404, "the API lives under /api/")
            return
        body = {
            "path": self.path,
            "items": ITEMS,
            "headers": {k.lower(): v for k, v in self.headers.items()},
        }
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", 9000), Handler).serve_forever()
