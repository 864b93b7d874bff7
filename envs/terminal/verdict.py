"""codegym's pytest plugin in the verifier's box: each test's outcome, sent to the harness.

The harness puts this file in a layer of its own, above the agent's files, as
``/.codegym-verifier/codegym_verdict.py``, and runs the task's test command with
``PYTHONPATH`` naming that folder and ``PYTEST_ADDOPTS=-p codegym_verdict``, so that every
pytest the command starts loads it. The channel is a pipe the box's init gave the command
on descriptor `FD_ENV` names: at import the plugin takes it over (a close-on-exec copy, the
variable removed), so the programs the tests start inherit neither. It writes one JSON line
per event, each carrying the session's random token: ``start``, ``collected`` (the node ids,
by absolute path, and any collection errors), ``report`` (one per test phase), ``finish``.
The harness counts them against the tests the pristine test files define (`grader`).

Stdlib only, and no import of codegym: it runs on the task's own Python.
"""

from __future__ import annotations

import json
import os
from typing import Any

FD_ENV = "CODEGYM_VERDICT_FD"
MESSAGE_CHARS = 300  # of a failing test's message


def _open_channel() -> int | None:
    raw = os.environ.pop(FD_ENV, None)
    if raw is None or not raw.isdigit():
        return None
    try:
        import fcntl

        fd = fcntl.fcntl(int(raw), fcntl.F_DUPFD_CLOEXEC, 100)
    except OSError:
        return None
    return fd


_CHANNEL = _open_channel()
_TOKEN = os.urandom(16).hex()


def _send(event: str, **fields: Any) -> None:
    if _CHANNEL is None:
        return
    line = json.dumps({"session": _TOKEN, "event": event, **fields}) + "\n"
    data = line.encode()
    while data:
        written = os.write(_CHANNEL, data)
        data = data[written:]


def _node_id(item: Any) -> str:
    """The test's id by absolute path, whatever pytest took for its rootdir."""
    _, _, rest = item.nodeid.partition("::")
    return f"{item.path}::{rest}" if rest else str(item.path)


def _short(report: Any) -> str:
    """The failure's one-line message (``AssertionError: assert 3 == 4``), never the test's
    source: what refine mode may show the agent."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    text = str(getattr(crash, "message", "") or "") if crash is not None else ""
    if not text:
        lines = str(getattr(report, "longreprtext", "") or "").strip().splitlines()
        text = lines[-1] if lines else ""
    return text.strip().split("\n")[0][:MESSAGE_CHARS]


_ROOT = [os.getcwd()]  # pytest's rootdir, which collection reports' node ids are relative to


def pytest_configure(config: Any) -> None:
    _ROOT[0] = str(getattr(config, "rootpath", None) or config.rootdir)


def pytest_sessionstart(session: Any) -> None:
    _send("start", pid=os.getpid())


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        path, _, rest = str(report.nodeid).partition("::")
        where = os.path.normpath(os.path.join(_ROOT[0], path)) if path else _ROOT[0]
        _send("collect_error", where=where + (f"::{rest}" if rest else ""), message=_short(report))


_IDS: dict[str, str] = {}  # pytest's node id -> ours


def pytest_collection_finish(session: Any) -> None:
    ids = [_node_id(item) for item in session.items]
    _send("collected", ids=ids)
    _IDS.update({item.nodeid: _node_id(item) for item in session.items})


def pytest_runtest_logreport(report: Any) -> None:
    node = _IDS.get(report.nodeid, report.nodeid)
    outcome = report.outcome
    if outcome == "failed" and report.when != "call":
        outcome = "error"
    xfail = bool(getattr(report, "wasxfail", ""))
    _send("report", id=node, when=report.when, outcome=outcome, xfail=xfail, duration=float(report.duration),
          message=_short(report) if report.failed else "")  # fmt: skip


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    _send("finish", exitstatus=int(exitstatus))
