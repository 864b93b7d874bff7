"""``python -m codegym.envs.repo_repair.runner CONFIG``: a library's test suite under pytest, in
the sandbox, reporting each test's outcome over the job's channel (stdlib only until the test
environment is on ``sys.path``).

The report never touches the tree: it goes, a frame per event, to the harness
(`codegym.envs.repo_repair.harness`) in the worker's supervising process. Events:
``{"collected": [node ids]}`` once collection ends, ``{"test": id, "when": phase, "outcome":
..., "wasxfail": bool, "longrepr": text}`` for every phase of every test, and ``{"exit":
status}`` when the session ends. The grader checks them against one another and against the
step's exit status (`codegym.envs.repo_repair.grader`).

CONFIG (JSON): ``site`` (the test environment's site-packages; None where the interpreter's own
environment is the test environment, as in a task image), ``python_path`` (folders of the tree
to import the library from), ``args`` (pytest's arguments) and ``timeout_s`` (per test).
Bytecode is neither read from the tree (the grader writes none into it) nor written;
third-party plugins never load on their own (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): the
arguments name each plugin that runs.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any

MAX_LONGREPR = 2000
# Built-in plugins that write into the tree or reach out: never wanted here.
DISABLED = ("cacheprovider", "stepwise")


class Frames:
    """The channel's writing end: length-prefixed frames, as `codegym.executor.channel` reads
    them (written here again, for this file also runs alone under a task image's Python)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, data: bytes) -> None:
        view = memoryview(struct.pack("!I", len(data)) + data)
        while view:
            view = view[os.write(self.fd, view) :]


class Reporter:
    """The pytest plugin that sends each event over the channel."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.watched = watched()

    def send(self, event: dict[str, Any]) -> None:
        self.frames.send(json.dumps(event).encode())

    def pytest_collection_finish(self, session: Any) -> None:
        self.send({"collected": [item.nodeid for item in session.items]})

    def pytest_runtest_logreport(self, report: Any) -> None:
        longrepr = report.longreprtext[-MAX_LONGREPR:] if report.failed or report.skipped else ""
        self.send({
            "test": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "wasxfail": hasattr(report, "wasxfail"),
            "longrepr": longrepr,
        })  # fmt: skip

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.send({"collect_error": report.nodeid, "longrepr": report.longreprtext[-MAX_LONGREPR:]})

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        now = watched()
        changed = sorted(name for name, value in self.watched.items() if now.get(name) is not value)
        if changed:
            self.send({"tampered": changed[:10]})
        self.send({"exit": int(exitstatus)})


def watched() -> dict[str, object]:
    """pytest's functions that make, judge and carry a test's report, and this plugin's
    own: a repair that replaces one of them while the tests run is caught at the end."""
    import _pytest.main
    import _pytest.outcomes
    import _pytest.python
    import _pytest.reports
    import _pytest.runner
    import _pytest.skipping
    import pluggy

    found: dict[str, object] = {}
    for owner in (_pytest.runner, _pytest.python, _pytest.skipping, _pytest.outcomes, _pytest.reports.BaseReport,
                  _pytest.reports.TestReport, _pytest.runner.CallInfo, _pytest.main.Session, pluggy.HookCaller,
                  Reporter, Frames, json):  # fmt: skip
        for name, value in vars(owner).items():
            if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
                found[f"{getattr(owner, '__name__', owner)}.{name}"] = value
    return found


def pytest_arguments(config: dict[str, Any]) -> list[str]:
    """What pytest runs with: the suite's arguments and the fixed plugin list (pytest-timeout
    where the environment has it)."""
    import importlib.util

    plugins = [arg for name in DISABLED for arg in ("-p", f"no:{name}")]
    timeout = []
    if config.get("timeout_s") and importlib.util.find_spec("pytest_timeout") is not None:
        timeout = ["-p", "pytest_timeout", f"--timeout={config['timeout_s']}"]
    return [*plugins, *timeout, "-o", "addopts=", "--rootdir=.", "-q", "--tb=short", *config["args"]]


def main() -> None:
    config = json.loads(sys.argv[1])
    sys.dont_write_bytecode = True
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    paths = [os.path.abspath(path) for path in config["python_path"]]
    paths += [config["site"]] if config.get("site") else []
    sys.path[:0] = paths
    if config.get("site"):
        # A test that starts Python again gets the same interpreter and paths (the worker's
        # executable may be a virtual environment's, which the sandbox does not show).
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        sys.executable = os.path.realpath(sys.executable)
    import pytest

    status = pytest.main(pytest_arguments(config), plugins=[Reporter(Frames(4))])
    raise SystemExit(int(status))


if __name__ == "__main__":  # (run as a file by a task image's own Python)
    if sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # (the tree's root comes back as python_path says, after the plugin's imports)
    main()
