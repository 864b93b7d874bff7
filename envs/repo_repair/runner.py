"""``python -m codegym.envs.repo_repair.runner CONFIG``: a library's test suite under pytest, in
the sandbox, reporting each test's outcome over the job's channel (stdlib only until the test
environment is on ``sys.path``).

The library's code runs in the process that runs its tests, so whatever that process says
about them, the library could have made it say. The runner is therefore three processes:

- **The judge** (this process) imports pytest but never the library, and alone holds the
  channel to the harness (`codegym.envs.repo_repair.harness`). It forks the other two, relays
  the session's report, and adds its own verdict, in frames that start with `JUDGE`.
- **The session** runs the whole suite, the library loaded, and reports each event over a
  pipe to the judge, which relays it undecoded: ``{"collected": [node ids]}`` once collection
  ends, ``{"test": id, "when": phase, "outcome": ..., "wasxfail": bool, "longrepr": text}``
  for every phase of every test, ``{"exit": status}`` when the session ends. The channel's
  descriptors are closed in it: a frame it forges reaches the harness as the session's.
- **The verifier** runs again, in a process forked from the judge once the session has
  ended, the FAIL_TO_PASS tests (``verify``) that the session reported as passed. It judges
  them by the exceptions the test phases raise, caught by hook wrappers of its own, not from
  pytest's reports, hooks or exit status, and writes its result to the judge with a token
  the judge draws after the fork and hands over only through a pipe that the verifier reads
  once its tests have run: the token is in none of its Python objects while the library runs.
  The judge believes the result only from a verifier that exited with status 0 and sent that
  token; anything else fails every test it ran. The judge's frame ``{"verified": [node
  ids], "checked": [...], "problem": why or None, "tampered": [...] or None}`` says which
  passed.

A repair that rewrites pytest's reports (patched report classes, ``outcome`` properties,
wrapped hook functions, a replaced ``os.write``, frames written to any descriptor) changes
what the session says; the verifier's verdict does not depend on any of it. What it depends
on is the test phases raising, in a process the library also runs in: a repair that finds the
verifier's pipes and speaks its protocol, or makes the test function itself stop raising,
is beyond this layer. Both processes also compare, at their end, pytest's and pluggy's
functions, code objects, descriptors and the runner's own writers with the ones the judge
captured before any library code ran (`fingerprint`); a difference is reported as tampering.

CONFIG (JSON): ``site`` (the test environment's site-packages; None where the interpreter's own
environment is the test environment, as in a task image), ``python_path`` (folders of the tree
to import the library from), ``options`` and ``tests`` (pytest's options and the tests to
run), ``verify`` (the FAIL_TO_PASS node ids) and ``timeout_s`` (per test). Bytecode is neither
read from the tree (the grader writes none into it) nor written; third-party plugins never
load on their own (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): the arguments name each plugin that runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import struct
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Any

MAX_LONGREPR = 2000
# Built-in plugins that write into the tree or reach out: never wanted here.
DISABLED = ("cacheprovider", "stepwise")
CHANNEL_FDS = (3, 4)  # (the harness's channel: the judge's alone)
JUDGE = b"\x00"  # (the first byte of the judge's own frames; the session's are JSON objects)
MAX_FRAME = 16 << 20
MAX_VERDICT = 1 << 20
TOKEN_BYTES = 16
POLL_S = 0.05
MAX_READS_AFTER = 64
PR_SET_DUMPABLE = 4

# The judge's own references, taken before any library code runs: the session and the verifier
# are forked from the judge and write through these, not through whatever ``os.write`` is then.
_write, _read, _exit = os.write, os.read, os._exit
_pack = struct.pack


class Frames:
    """A writing end of length-prefixed frames, as `codegym.executor.channel` reads them
    (written here again, for this file also runs alone under a task image's Python)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, data: bytes) -> None:
        view = memoryview(_pack("!I", len(data)) + data)
        while view:
            view = view[_write(self.fd, view) :]


class Reporter:
    """The session's pytest plugin: it sends each event to the judge."""

    def __init__(self, frames: Frames, baseline: Baseline) -> None:
        self.frames = frames
        self.baseline = baseline

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
        changed = self.baseline.changed()
        if changed:
            self.send({"tampered": changed[:10]})
        self.send({"exit": int(exitstatus)})


def judge_plugin(nodes: set[str]) -> Any:
    """The verifier's pytest plugin (made once pytest is importable), which runs ``nodes``
    alone of what it collects: a test passes when it was called and none of its phases
    raised. Its hook wrappers see the exceptions themselves, before any report is made of them."""
    import pytest

    class Judge:
        def __init__(self) -> None:
            self.called: set[str] = set()
            self.failed: set[str] = set()

        def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
            # (the files are collected whole: matching each node id costs more than this)
            keep = [item for item in items if item.nodeid in nodes]
            config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in nodes])
            items[:] = keep

        def passed(self) -> list[str]:
            return sorted(self.called - self.failed)

        def _saw(self, item: Any, outcome: Any, *, call: bool) -> None:
            if outcome.excinfo is not None:
                self.failed.add(item.nodeid)
            elif call:
                self.called.add(item.nodeid)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_setup(self, item: Any) -> Any:
            self._saw(item, (yield), call=False)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item: Any) -> Any:
            self._saw(item, (yield), call=True)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_teardown(self, item: Any) -> Any:
            self._saw(item, (yield), call=False)

    return Judge()


# What `fingerprint` covers: modules and classes (by dotted name; one this pytest or pluggy
# lacks is left out) whose functions make, run, judge and carry a test and its report. Of the
# classes in `NAMED` the names are compared too (an attribute added to a report class, such as
# an ``outcome`` property, changes every report); pytest adds names to the others itself
# (`_pytest.legacypath` patches nodes and the config while a session runs).
WATCHED = (
    "_pytest.runner", "_pytest.runner:CallInfo", "_pytest.python", "_pytest.python:Function",
    "_pytest.skipping", "_pytest.outcomes", "_pytest.reports:BaseReport", "_pytest.reports:TestReport",
    "_pytest.reports:CollectReport", "_pytest.main:Session", "_pytest.nodes:Item", "pluggy:HookCaller",
    "pluggy:HookImpl", "pluggy:Result", "pluggy:PluginManager", "pluggy._callers", "pluggy._execution",
    "pluggy._result", "json", f"{__name__}:Reporter", f"{__name__}:Frames",
)  # fmt: skip
NAMED = (
    "_pytest.runner:CallInfo", "_pytest.reports:BaseReport", "_pytest.reports:TestReport",
    "_pytest.reports:CollectReport", "pluggy:HookImpl", "pluggy:Result", f"{__name__}:Reporter",
    f"{__name__}:Frames",
)  # fmt: skip
STDLIB = {"os": ("write", "read", "_exit", "fork", "waitpid"), "struct": ("pack",)}


Owners = list[tuple[str, Any]]
Fingerprint = dict[str, tuple[object, ...]]


def owners() -> Owners:
    """The objects of `WATCHED` and `STDLIB`'s modules, found once by the judge: `tampered`
    looks at these objects, not at whatever the module table holds by then."""
    import importlib

    found: Owners = []
    for dotted in WATCHED:
        module, _, name = dotted.partition(":")
        try:
            owner = importlib.import_module(module)
            found.append((dotted, getattr(owner, name) if name else owner))
        except (ImportError, AttributeError):
            continue
    return found + [(name, sys.modules[name]) for name in STDLIB]


def fingerprint(watched: Owners) -> Fingerprint:
    """Every function and descriptor of ``watched``, with the parts a repair could swap in
    place (a function's code and defaults, a property's accessors, a class method's function),
    and the names each class has: taken by the judge before any library code runs."""
    found: Fingerprint = {}
    for dotted, owner in watched:
        if dotted in STDLIB:
            for attribute in STDLIB[dotted]:
                found[f"{dotted}.{attribute}"] = _parts(getattr(owner, attribute, None))
            continue
        if dotted in NAMED:
            found[f"{dotted}:names"] = tuple(sorted(vars(owner)))
        for attribute, value in list(vars(owner).items()):
            if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
                found[f"{dotted}.{attribute}"] = _parts(value)
    return found


def _parts(value: object) -> tuple[object, ...]:
    parts: list[object] = [value]
    for inner in (value, *(getattr(value, a, None) for a in ("fget", "fset", "fdel", "__func__"))):
        code = getattr(inner, "__code__", None)
        if code is not None:
            parts += [inner, code, getattr(inner, "__defaults__", None), getattr(inner, "__kwdefaults__", None)]
    return tuple(parts)


def tampered(watched: Owners, frozen: Fingerprint) -> list[str]:
    """The names in ``frozen`` whose functions, their parts, or whose classes' names changed
    since (objects compared by identity, names by value: nothing of the library's is called)."""
    now = fingerprint(watched)
    changed = []
    for name, parts in frozen.items():
        current = now.get(name, ())
        same = current == parts if name.endswith(":names") else _identical(current, parts)
        if not same:
            changed.append(name)
    return changed


class Baseline:
    """The judge's `fingerprint` of what it `owners`, to compare with at the end."""

    def __init__(self) -> None:
        self.owners = owners()
        self.prints = fingerprint(self.owners)

    def changed(self) -> list[str]:
        return tampered(self.owners, self.prints)


def _identical(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def pytest_arguments(config: dict[str, Any], tests: Iterable[str]) -> list[str]:
    """What pytest runs with: the fixed plugin list (pytest-timeout where the environment has
    it), the suite's options and ``tests``."""
    import importlib.util

    plugins = [arg for name in DISABLED for arg in ("-p", f"no:{name}")]
    timeout = []
    if config.get("timeout_s") and importlib.util.find_spec("pytest_timeout") is not None:
        timeout = ["-p", "pytest_timeout", f"--timeout={config['timeout_s']}"]
    return [*plugins, *timeout, "-o", "addopts=", "--rootdir=.", "-q", "--tb=short", *config["options"], *tests]


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
    import pytest  # noqa: F401  (imported before the fork: the session and the verifier share it)

    _undumpable()
    baseline = Baseline()
    channel = Frames(CHANNEL_FDS[1])
    status, passed = session(config, channel, baseline)
    verdict = verify(config, [node for node in config.get("verify", ()) if node in passed], baseline)
    channel.send(JUDGE + json.dumps(verdict).encode())
    raise SystemExit(status)


def _undumpable() -> None:
    """Make the judge undumpable (best effort: ctypes may be missing from a task image): no
    other process of the uid may then open its descriptors through ``/proc/PID/fd``."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass


def session(config: dict[str, Any], channel: Frames, baseline: Baseline) -> tuple[int, set[str]]:
    """Run the suite in a forked process, relaying its frames; its exit status (a signal it
    died of is the judge's death too) and the ``verify`` tests it reported as passed."""
    read_fd, write_fd = os.pipe()

    def run() -> int:
        os.close(read_fd)
        reporter = Reporter(Frames(write_fd), baseline)
        return _pytest_main(pytest_arguments(config, config["tests"]), reporter)

    pid = _fork(run, keep=(write_fd,))
    os.close(write_fd)
    watched = set(config.get("verify", ()))
    phases: dict[str, list[tuple[str, str]]] = {}

    def relay(frame: bytes) -> None:
        if frame[:1] == JUDGE:
            return  # (the judge's marker is the judge's)
        channel.send(frame)
        event = _event(frame)
        if event is not None and event.get("test") in watched and not event.get("wasxfail"):
            phases.setdefault(event["test"], []).append((str(event.get("when")), str(event.get("outcome"))))

    wait = _pump(read_fd, pid, relay)
    if os.WIFSIGNALED(wait):
        _die_of(os.WTERMSIG(wait))
    passed = {
        node for node, runs in phases.items() if ("call", "passed") in runs and all(o == "passed" for _, o in runs)
    }
    return os.waitstatus_to_exitcode(wait), passed


def verify(config: dict[str, Any], nodes: list[str], baseline: Baseline) -> dict[str, Any]:
    """Run ``nodes`` again in a fresh process forked from the judge (see the module docstring)."""
    verdict: dict[str, Any] = {"verified": [], "checked": nodes, "problem": None, "tampered": None}
    if not nodes:
        return verdict
    read_fd, write_fd = os.pipe()
    token_read, token_write = os.pipe()

    def run() -> int:
        os.close(read_fd)
        os.close(token_write)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        judge = judge_plugin(set(nodes))
        files = sorted({node.partition("::")[0] for node in nodes})
        _pytest_main([*pytest_arguments(config, files), "--tb=no"], judge)
        token = _read(token_read, TOKEN_BYTES)
        result = {"passed": judge.passed(), "tampered": baseline.changed()}
        Frames(write_fd).send(token + json.dumps(result).encode())
        return 0

    pid = _fork(run, keep=(write_fd, token_read), cpu_spent=_cpu_spent())
    os.close(write_fd)
    os.close(token_read)
    token = os.urandom(TOKEN_BYTES)  # (drawn after the fork: never in the verifier's memory)
    with contextlib.suppress(OSError):
        _write(token_write, token)
    os.close(token_write)
    frames: list[bytes] = []
    wait = _pump(read_fd, pid, frames.append, limit=MAX_VERDICT)
    if not (os.WIFEXITED(wait) and os.WEXITSTATUS(wait) == 0):
        verdict["problem"] = f"the verifier's process ended with status {os.waitstatus_to_exitcode(wait)}"
    elif len(frames) != 1 or frames[0][:TOKEN_BYTES] != token:
        verdict["problem"] = "the verifier's process ended without its result"
    else:
        result = _event(frames[0][TOKEN_BYTES:]) or {}
        passed, changed = result.get("passed"), result.get("tampered")
        verdict["verified"] = [node for node in nodes if isinstance(passed, list) and node in passed]
        verdict["tampered"] = [str(name) for name in changed[:10]] if isinstance(changed, list) and changed else None
    return verdict


def _event(frame: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(frame)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def _pytest_main(arguments: list[str], plugin: object) -> int:
    import pytest

    try:
        return int(pytest.main(arguments, plugins=[plugin]))
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except BaseException:
        traceback.print_exc()
        return 1


def _cpu_spent() -> float:
    """CPU seconds the judge and its reaped children have used (the limit is per process)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _fork(run: Callable[[], int], *, keep: tuple[int, ...], cpu_spent: float = 0.0) -> int:
    """Fork a process in its own process group, without the channel, that exits with what
    ``run`` returns; ``cpu_spent`` is taken off its CPU limit (the step's is for all three)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.setpgid(0, 0)
        for fd in CHANNEL_FDS:
            if fd not in keep:
                _close(fd)
        if cpu_spent:
            _shorten_cpu(cpu_spent)
        code = run()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
    finally:
        _exit(code)


def _die_of(number: int) -> None:
    """End the judge as the session ended: killed by signal ``number`` (the sandbox reads a
    limit that fired from it)."""
    with contextlib.suppress(OSError, ValueError):
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    _exit(128 + number)


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _shorten_cpu(spent: float) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft != resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_CPU, (max(1, soft - int(spent)), hard))


def _pump(fd: int, pid: int, deliver: Callable[[bytes], None], *, limit: int = MAX_FRAME) -> int:
    """Read frames from ``fd`` and hand each to ``deliver`` until the process ``pid`` has exited
    and what it wrote is read (a descendant that keeps the pipe open is not waited for), then
    kill what is left of its process group; the process's wait status. A frame over ``limit``
    ends the reading."""
    os.set_blocking(fd, False)
    buffer = bytearray()
    wait: int | None = None
    after = 0  # (reads once the process has exited: what a descendant still writes is cut short)
    while after < MAX_READS_AFTER:
        ready = select.select([fd], [], [], POLL_S if wait is None else 0)[0]
        chunk = _read_some(fd) if ready else None
        if chunk == b"":
            break
        if chunk:
            buffer += chunk
            if not _frames(buffer, deliver, limit):
                break
        elif wait is not None:
            break
        if wait is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            wait = status if done else None
        else:
            after += 1
    os.close(fd)
    if wait is None:
        wait = os.waitpid(pid, 0)[1]
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    return wait


def _read_some(fd: int) -> bytes | None:
    try:
        return _read(fd, 1 << 16)
    except BlockingIOError:
        return None


def _frames(buffer: bytearray, deliver: Callable[[bytes], None], limit: int) -> bool:
    """Hand over each whole frame in ``buffer`` (removing it); False at a frame over ``limit``."""
    while len(buffer) >= 4:
        (size,) = struct.unpack("!I", buffer[:4])
        if size > limit:
            return False
        if len(buffer) < 4 + size:
            return True
        deliver(bytes(buffer[4 : 4 + size]))
        del buffer[: 4 + size]
    return True


if __name__ == "__main__":  # (run as a file by a task image's own Python)
    if sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # (the tree's root comes back as python_path says, after the plugin's imports)
    main()
