"""The page renderer's side of the sandbox: Debian's Chromium, headless, driven over CDP.

A step ``python -m codegym.envs.visual.browser <width> <height> <nonce> <javascript>`` forks
a **client** and becomes Chromium itself, headless, with ``--remote-debugging-pipe`` and its
own sandbox off (it runs inside codegym's, with no network). With scripts off (the default)
it is one process (``--single-process``: no zygote, no renderer or GPU process), which, being
the step's own, may read its own /proc, as the `container` tier allows a step's first process
alone; with scripts on, a renderer process too (see `chromium_argv`). The client speaks the
DevTools protocol on the pipe (stdlib only): a fresh page of ``width`` x ``height`` CSS pixels
opens ``page.html`` from the work dir; when it has loaded (with JavaScript on, once a
virtual-time budget of a second has run out, so timers cannot make a render depend on the
clock) the step takes a screenshot and a DOM snapshot, and writes one frame to stdout::

    codegym-render <nonce> <width> <height> <png length> <record length>\\n<PNG><record JSON>

The record is what the browser laid out: every element's tag, box and background colour, and
every text run's text, box and colour (`records`-style, read by `page_records`). JavaScript is
off unless the env turns it on (``--blink-settings=scriptEnabled=false``). Once the frame is
written the client closes the browser, and the step ends with Chromium's exit. A client that
fails says why on stderr (``the browser failed: ...``) and kills Chromium.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import math
import os
import signal
import sys
import time
from typing import Any

from codegym.executor.channel import ready

CHROMIUM = "/usr/lib/chromium/chromium"  # (Debian's /usr/bin/chromium is a shell wrapper)
PAGE = "page.html"
FRAME = b"codegym-render"
LOAD_TIMEOUT_S = 10.0
FAILED = "the browser failed: "  # (the client's word on stderr when it could not render)
PROFILE_ENV = "CODEGYM_CHROMIUM_PROFILE"  # where the step puts Chromium's profile (its own temp dir)
STYLES = ("color", "background-color", "font-size", "visibility", "opacity")


class BrowserError(Exception):
    """Chromium did not answer as the protocol says (it crashed, or a limit stopped it)."""


def chromium_argv(width: int, height: int, javascript: bool) -> list[str]:
    """Chromium's command line: headless, the DevTools protocol on fds 3 and 4; one process
    with scripts off. With scripts on, a renderer process of its own: one process's virtual
    clock is not exact (timers fire a few more or fewer times from run to run), a renderer's is."""
    processes = [] if javascript else ["--single-process", "--no-zygote"]
    argv = [
        CHROMIUM, "--headless", "--no-sandbox", *processes, "--disable-gpu", "--in-process-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
        "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
        "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
        "--font-render-hinting=none", "--disable-lcd-text", f"--window-size={width},{height}",
        f"--user-data-dir={os.environ.get(PROFILE_ENV, '/tmp/chromium-profile')}", "--remote-debugging-pipe",
    ]  # fmt: skip
    if not javascript:
        argv.append("--blink-settings=scriptEnabled=false")
    return [*argv, "about:blank"]


class Browser:
    """The DevTools protocol on a Chromium's pipe: ``send`` carries our commands (its fd 3),
    ``receive`` its replies and events (its fd 4)."""

    def __init__(self, send: int, receive: int) -> None:
        self._send, self._receive = send, receive
        self._next = 0
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._pending: dict[int, str] = {}  # the commands sent and not yet answered: their methods
        self._replies: dict[int, dict[str, Any]] = {}  # answers that came before they were asked for
        self.deadline = math.inf  # (monotonic) no answer is waited for past it: a page's wall limit

    def call(self, method: str, session: str | None = None, timeout: float = LOAD_TIMEOUT_S, **params: Any) -> Any:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        return self.result(self.send(method, session, **params), timeout)

    def send(self, method: str, session: str | None = None, **params: Any) -> int:
        """Send one command without waiting for its answer: its id, for `result` (commands
        that do not depend on each other's answers go out together, a round trip each saved)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        self._pending[self._next] = method
        return self._next

    def result(self, ident: int, timeout: float = LOAD_TIMEOUT_S) -> Any:
        """The result of command ``ident`` (`send`), waiting for it; `BrowserError` if it failed."""
        deadline = time.monotonic() + timeout
        while ident not in self._replies:
            self._keep(self._read(deadline))
        reply, method = self._replies.pop(ident), self._pending.pop(ident)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def wait_for(self, method: str, session: str | None = None, timeout: float = LOAD_TIMEOUT_S) -> dict[str, Any]:
        """The next event ``method`` (of ``session``'s, when given: a warm browser's earlier
        pages sent theirs too), one that came already, or the next to come."""
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self._events):
                if event.get("method") == method and (session is None or event.get("sessionId") == session):
                    return self._events.pop(index)
            self._keep(self._read(deadline))

    def _keep(self, message: dict[str, Any]) -> None:
        """Keep ``message``: an answer for its `result`, an event for `wait_for`."""
        if message.get("id") in self._pending:
            self._replies[message["id"]] = message
        else:
            self._events.append(message)

    def forget_events(self) -> None:
        """Drop the events kept so far (a warm browser's, between pages)."""
        self._events.clear()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._send, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")

    def _read(self, deadline: float) -> dict[str, Any]:
        deadline = min(deadline, self.deadline)
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not ready(self._receive, left):
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._receive, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe (it crashed or was stopped)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)


def open_tab(browser: Browser, width: int, height: int, context: str | None = None) -> str:
    """A fresh blank tab of ``width`` x ``height`` CSS pixels, attached, its page's events on:
    its session. ``context``: the browser context to open it in (a warm browser's fresh one
    per page, prepared before the page comes: see `warm.WarmBrowser`)."""
    where: dict[str, Any] = {"browserContextId": context} if context else {}
    target = browser.call("Target.createTarget", url="about:blank", **where)["targetId"]
    session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    sent = [browser.send("Page.enable", session),
            browser.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                         deviceScaleFactor=1, mobile=False)]  # fmt: skip
    for ident in sent:
        browser.result(ident)
    return session


def render(
    browser: Browser, width: int, height: int, javascript: bool, *, url: str | None = None, session: str | None = None
) -> tuple[bytes, dict[str, Any]]:
    """``page.html`` (or ``url``) rendered on a ``width`` x ``height`` page: the PNG and the
    layout record. ``session``: a tab `open_tab` made for it (else one is opened here)."""
    session = session or open_tab(browser, width, height)
    browser.call("Page.navigate", session, url=url or f"file://{os.path.abspath(PAGE)}")
    browser.wait_for("Page.loadEventFired", session)
    if javascript:  # (then timers run on a virtual clock, a second of it, and stop)
        browser.call("Emulation.setVirtualTimePolicy", session, policy="advance", budget=1000)
        browser.wait_for("Emulation.virtualTimeBudgetExpired", session)
    # (neither changes the page: the two go out together)
    shot = browser.send("Page.captureScreenshot", session, format="png")
    snapshot = browser.send("DOMSnapshot.captureSnapshot", session, computedStyles=list(STYLES))
    return base64.b64decode(browser.result(shot)["data"]), page_records(browser.result(snapshot))


def page_records(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What the browser laid out, from a ``DOMSnapshot.captureSnapshot``: ``tags`` (the
    elements' names in document order), ``boxes`` ([tag, x, y, w, h, background colour]) and
    ``texts`` ([text, x, y, w, h, colour])."""
    strings = snapshot["strings"]
    document = snapshot["documents"][0]
    nodes, layout = document["nodes"], document["layout"]
    names = [strings[i] for i in nodes["nodeName"]]
    styles = {name: i for i, name in enumerate(STYLES)}
    tags = [name.lower() for name in names if not name.startswith("#")]
    boxes, texts = [], []
    for node, bounds, style, text in zip(layout["nodeIndex"], layout["bounds"], layout["styles"], layout["text"],
                                         strict=True):  # fmt: skip
        if len(style) != len(STYLES):  # (the document itself)
            continue
        value = [strings[i] if i >= 0 else "" for i in style]
        if value[styles["visibility"]] == "hidden":
            continue
        box = [round(float(v), 1) for v in bounds]
        if text >= 0 and strings[text].strip():  # (a text run: its colour is its element's, inherited)
            texts.append([" ".join(strings[text].split()), *box, value[styles["color"]]])
        elif not names[node].startswith("#"):
            boxes.append([names[node].lower(), *box, value[styles["background-color"]]])
    return {"tags": tags, "boxes": boxes, "texts": texts}


def main() -> None:
    """The step: fork the client, become Chromium."""
    width, height, nonce, javascript = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "on"
    commands_r, commands_w = os.pipe()
    replies_r, replies_w = os.pipe()
    chromium = os.getpid()
    if os.fork() == 0:
        os.close(commands_r)
        os.close(replies_w)
        _client(Browser(commands_w, replies_r), chromium, width, height, nonce, javascript)
    os.close(commands_w)
    os.close(replies_r)
    # Chromium reads our commands on fd 3 and writes on fd 4 (moved clear of them first).
    reading = fcntl.fcntl(commands_r, fcntl.F_DUPFD, 16)
    writing = fcntl.fcntl(replies_w, fcntl.F_DUPFD, 16)
    os.dup2(reading, 3)
    os.dup2(writing, 4)
    os.closerange(5, 4096)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # (only the client writes the step's stdout)
    try:
        os.execv(CHROMIUM, chromium_argv(width, height, javascript))
    finally:
        os._exit(127)


def _client(browser: Browser, chromium: int, width: int, height: int, nonce: str, javascript: bool) -> None:
    """Render, write the frame, close the browser; never returns."""
    try:
        png, record = render(browser, width, height, javascript)
        body = json.dumps(record, separators=(",", ":")).encode()
        os.write(1, b"%s %s %d %d %d %d\n" % (FRAME, nonce.encode(), width, height, len(png), len(body)))
        _write_all(png + body)
    except (BrowserError, OSError, KeyError, ValueError) as e:
        with contextlib.suppress(OSError):
            os.write(2, f"{FAILED}{e}\n".encode())
        with contextlib.suppress(OSError):
            os.kill(chromium, signal.SIGKILL)
        os._exit(2)
    browser.close()
    os._exit(0)


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]
