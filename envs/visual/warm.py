"""Warm browsers for HTMLFromScreenshot: one sandboxed Chromium kept between pages.

Starting Chromium is most of a page's step. `WarmPageExecutor` wraps the env's local
executor: a page render job (``python -m codegym.envs.visual.browser ...``) goes to a warm
browser, every other job to the executor itself, and a page render comes back as the same
`RunResult` the per-job path returns (the same frame on stdout, the same ``the browser
failed:`` word on stderr, the same ``limit``), so the env judges, retries and blames exactly
as it does for a render job.

Why a sandbox of the browser's own, rather than the warm worker keeping Chromium between its
jobs: a worker forks each job a fresh, confined process tree and kills it whole when the job
ends; a child that outlived its jobs would sit outside every job's confinement, and the
worker's loop (in C) would have to learn about it. A `WarmBrowser` is instead confined once,
as long as it lives, by the executor's own primitives (`_browser_box`: the worker's user,
mount, net, ipc, uts and pid namespaces, its read-only view of the toolchain with codegym's
files masked, a private tmpfs /tmp and profile, a cgroup of its own for memory and
processes, rlimits, an unprivileged uid, no_new_privs, the seccomp deny list), and the host
drives it over the DevTools pipe (fds 3 and 4). The candidate's HTML reaches it through one
read-only folder; the PNG and the layout record come out; the target never goes in.

Each page gets a fresh browser context (``Target.createBrowserContext``, disposed after the
page): no storage, cache, cookie or service worker of one page reaches the next. The context
and its blank tab (its renderer process started, attached, sized) are made before the page
comes, in the background while the host grades the last page (`WarmBrowser.ready` waits for
them): a spare that no page has seen, used for one page only. A page that
fails in any way (a crash, a hang, a limit) costs the browser its life: it is killed with its
whole namespace and started afresh for the next page, which never sees its state. The wall
limit is the host's deadline on the page; memory and processes, the box's cgroup, set for
each page above what the idle browser holds (`Cgroup.prepare`). CPU seconds are not metered
per page: the protocol's per-call deadline (`browser.LOAD_TIMEOUT_S`, shorter than any CPU
limit) ends a page that keeps the browser busy, as on the per-job path.

Where a warm browser cannot live, the per-job path renders: executors other than the local
one (Docker, Ray), the `container` tier (no namespaces to build the box from), and a machine
where the box fails to start (the first failure is logged, and later pages go per job too).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import queue
import resource
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codegym.envs.visual import browser as page_browser

from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, _cgroup
from codegym.executor._pool import UIDS_PER_POOL
from codegym.executor.base import StepResult
from codegym.executor.local import ROOT_PREFIX, LocalExecutor, _etc_files, _spawner

logger = logging.getLogger(__name__)

BOX_SCRIPT = str(Path(__file__).with_name("_browser_box.py"))
BROWSER = "codegym.envs.visual.browser"
PAGES = "/pages"  # (the box's view of the pages folder: `_browser_box.PAGES`)
WARM_TIERS = ("full", "userns")
START_TIMEOUT_S = 30.0
TMP_BYTES = 256 << 20  # the box's /tmp (Chromium's profile and its shared-memory files)
# Chromium maps far more than it touches (thread stacks, V8's heaps): where rlimits stand in
# for a cgroup, each process may map this much past the memory limit (as `Step.memory_slack_bytes`).
CHROMIUM_SLACK = 6 << 30


class WarmStartError(SandboxError):
    """A warm browser could not start (the page then renders on the per-job path)."""


def is_page_job(job: Job) -> bool:
    """Whether ``job`` is one page render: the browser's one step on the job's one file."""
    if len(job.steps) != 1 or job.harness is not None or set(job.files) != {page_browser.PAGE}:
        return False
    argv = job.steps[0].argv
    return argv[:3] == ("python", "-m", BROWSER) and len(argv) == 7


def can_warm(executor: Executor) -> bool:
    """Whether a warm browser can live beside ``executor``: a local one, in a tier with namespaces."""
    return isinstance(executor, LocalExecutor) and executor.isolation in WARM_TIERS


class WarmBrowser:
    """One Chromium in a sandbox of its own, kept between pages of one size and one script
    setting, driven from here over its DevTools pipe.

    Args:
        executor: The local executor whose view, tier, launcher and interpreter the box uses.
        index: Its number among the warm browsers beside ``executor`` (its uid comes from it).
        key: ``(width, height, javascript)``.
        limits: The page's limits; the box's rlimits and processes come from them.
    """

    def __init__(self, executor: LocalExecutor, index: int, key: tuple[int, int, bool], limits: Limits) -> None:
        self.executor = executor
        self.index = index
        self.key = key
        self.limits = limits
        self.process: subprocess.Popen[bytes] | None = None
        self.browser: page_browser.Browser | None = None
        self.pages = ""
        self.root = ""
        self.cgroup = _cgroup.WorkerCgroup("none", {})
        self._limiter: _cgroup.Cgroup | None = None  # (it keeps its files open: one per start)
        self._fds: list[int] = []
        self._spare: Future[tuple[str, str]] | None = None  # the next page's (context, session)
        self._preparing: threading.Thread | None = None

    # --- life ------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the box and wait until Chromium answers; `WarmStartError` if it does not."""
        ex = self.executor
        name = f"{ROOT_PREFIX}{os.getpid()}-browser{self.index}-"
        self.root = tempfile.mkdtemp(prefix=name)
        self.pages = tempfile.mkdtemp(prefix=f"{name}pages-")
        for folder, mode in ((self.root, 0o755), (self.pages, 0o711)):
            os.chmod(folder, mode)  # (the box may run as another user; pages' names are unguessable)
        self.cgroup = _cgroup.WorkerCgroup.create(ex.cgroup_version, f"{os.getpid()}.browser{ex.serial}.{self.index}")
        if self.cgroup.version != "none":
            self._limiter = _cgroup.Cgroup(self.cgroup.version, dict(self.cgroup.paths))
            self._limiter._write("pids", "pids.max", str(self.limits.processes + 2))
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        argv = [*ex.launcher, ex.python, "-s", "-S", "-B", "-P", BOX_SCRIPT, json.dumps(self._config())]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
        with tempfile.TemporaryFile() as log:
            try:
                # (the box's fds 3 and 4 are the pipe Chromium speaks on: see `_browser_box._exec_chromium`)
                self.process = _spawner.popen(
                    argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                    pass_fds=(3, 4), preexec_fn=_on_fds(commands_r, replies_w),
                )  # fmt: skip
            finally:
                os.close(commands_r)
                os.close(replies_w)
            self._fds = [commands_w, replies_r]
            browser = self.browser = page_browser.Browser(commands_w, replies_r)
            try:
                browser.call("Browser.getVersion", timeout=START_TIMEOUT_S)
            except (page_browser.BrowserError, OSError, ValueError) as e:
                log.seek(0)
                said = log.read().decode(errors="replace").strip()[-2000:]
                self.stop()
                raise WarmStartError(f"the warm browser did not start: {e}\n{said}") from e
        self._prepare_spare(None)
        if not self.ready():
            self.stop()
            raise WarmStartError("the warm browser started but could not open a tab")

    def _config(self) -> dict[str, Any]:
        """What ``_browser_box.py`` reads from its command line."""
        ex = self.executor
        width, height, javascript = self.key
        single = ex.isolation == "userns" and ex.report.user_map == "single"
        uid = None if single else ex.uid_base + UIDS_PER_POOL - 1 - self.index  # (past the workers')
        argv = [a for a in page_browser.chromium_argv(width, height, javascript) if a not in ("--single-process",
                "--no-zygote")]  # fmt: skip
        argv = [a if not a.startswith("--user-data-dir=") else "--user-data-dir=/tmp/chromium-profile" for a in argv]
        limits = self.limits
        rlimits = [
            (resource.RLIMIT_FSIZE, limits.file_size_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_STACK, limits.stack_bytes),
            (resource.RLIMIT_CORE, 0),
        ]
        if not single:  # (a plain user's box shares the user's uid, whose other processes count)
            rlimits.append((resource.RLIMIT_NPROC, limits.processes + 2))
        if self.cgroup.version == "none":
            rlimits.append((resource.RLIMIT_DATA, limits.memory_bytes + CHROMIUM_SLACK))
        return {
            **ex.view,
            "root": self.root,
            "pages": self.pages,
            "uid": uid,
            "etc": _etc_files(uid),
            "cgroup": {"version": self.cgroup.version, "paths": self.cgroup.paths},
            "isolation": ex.isolation,
            "user_map": ex.report.user_map,
            "tmp_bytes": TMP_BYTES,
            "rlimits": rlimits,
            "argv": argv,
        }

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ready(self) -> bool:
        """Whether the next page's tab is ready: waits for its preparation, and says False
        where it failed (or the browser died): the browser is then to be started afresh."""
        self._join_spare()
        spare = self._spare
        return self.alive and spare is not None and spare.exception() is None

    def stop(self) -> None:
        """Kill the box with its whole namespace, and remove its folders and cgroup."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, 9)
            self.process.wait()
            self.process = None
        self._join_spare()  # (its calls end now that the pipe's far end is gone)
        self._spare = None
        for fd in self._fds:  # (closed only once no thread of ours may read or write them)
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
        self.browser = None
        if self._limiter is not None:
            for fd in self._limiter.fds.values():
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._limiter = None
        self.cgroup.remove()
        self.cgroup = _cgroup.WorkerCgroup("none", {})
        for folder in (self.pages, self.root):
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
        self.pages = self.root = ""

    # --- pages -----------------------------------------------------------------------------------

    def render(self, job: Job) -> RunResult:
        """Render the page of ``job`` (see `is_page_job`) as the per-job path would report it."""
        step = job.steps[0]
        limits = job.limits_of(step)
        width, height, nonce = int(step.argv[3]), int(step.argv[4]), step.argv[5]
        spare, self._spare = self._spare, None
        assert self.browser is not None and spare is not None, "render a page only once `ready` says True"
        self._join_spare()
        name = secrets.token_hex(16)
        folder = f"{self.pages}/{name}"
        os.mkdir(folder, 0o755)
        os.chmod(folder, 0o755)
        with open(f"{folder}/{page_browser.PAGE}", "wb") as handle:
            handle.write(job.files[page_browser.PAGE])
        os.chmod(f"{folder}/{page_browser.PAGE}", 0o644)
        cgroup = self._limiter
        ooms = cgroup.prepare(limits)[0] if cgroup else 0
        started = time.monotonic()
        self.browser.deadline = started + limits.wall_s
        self.browser.forget_events()
        try:
            context, session = spare.result()
            url = f"file://{PAGES}/{name}/{page_browser.PAGE}"
            png, record = page_browser.render(self.browser, width, height, self.key[2], url=url, session=session)
        except (page_browser.BrowserError, OSError, KeyError, ValueError) as e:
            wall = time.monotonic() - started
            limit = "wall" if time.monotonic() >= self.browser.deadline else None
            if cgroup is not None and limit is None and cgroup.counters()[0] > ooms:
                limit = "memory"
            self.stop()  # (whatever the page did to it goes with it)
            said = b"" if limit else f"{page_browser.FAILED}{e}\n".encode()
            return self._result(StepResult(argv=step.argv, exit_code=None if limit else 2, signal=9 if limit else None,
                                           stderr=said, wall_s=wall, limit=limit))  # fmt: skip
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        body = json.dumps(record, separators=(",", ":")).encode()
        frame = b"%s %s %d %d %d %d\n" % (page_browser.FRAME, nonce.encode(), width, height, len(png), len(body))
        stdout = frame + png + body
        peak = cgroup.peak() if cgroup else 0
        wall = time.monotonic() - started
        if len(stdout) > limits.output_bytes:
            self.stop()
            return self._result(StepResult(argv=step.argv, signal=9, stdout=stdout[: limits.output_bytes],
                                           wall_s=wall, peak_memory_bytes=peak, limit="output"))  # fmt: skip
        self._prepare_spare(context)
        return self._result(StepResult(argv=step.argv, exit_code=0, stdout=stdout, wall_s=wall, peak_memory_bytes=peak))

    def _prepare_spare(self, used: str | None) -> None:
        """In the background (the host grades the page meanwhile): dispose ``used``, the last
        page's context, then open the next page's tab in a fresh context (see `ready`)."""
        assert self.browser is not None
        self.browser.deadline = math.inf  # (each call has the protocol's own deadline)
        self._spare = Future()
        self._preparing = threading.Thread(target=_open_spare, args=(self.browser, self.key, used, self._spare),
                                           name=f"codegym-warm-spare{self.index}", daemon=True)  # fmt: skip
        self._preparing.start()

    def _join_spare(self) -> None:
        """Wait for the spare's preparation to end (the browser is then this thread's alone)."""
        if self._preparing is not None:
            self._preparing.join()
            self._preparing = None

    def _result(self, step: StepResult) -> RunResult:
        return RunResult(steps=(step,), backend="local", cgroup=self.cgroup.version or "none",
                         isolation=self.executor.isolation)  # fmt: skip


def _open_spare(
    browser: page_browser.Browser, key: tuple[int, int, bool], used: str | None, spare: Future[tuple[str, str]]
) -> None:
    """Dispose ``used``, then set ``spare`` to a fresh context's blank tab: (context, session)."""
    try:
        disposed = None if used is None else browser.send("Target.disposeBrowserContext", browserContextId=used)
        context = browser.call("Target.createBrowserContext")["browserContextId"]
        if disposed is not None:
            browser.result(disposed)
        spare.set_result((context, page_browser.open_tab(browser, key[0], key[1], context)))
    except Exception as e:  # (any failure is the page thread's to see: it restarts the browser)
        spare.set_exception(e)


def _on_fds(commands: int, replies: int) -> Any:
    """The child's set-up before exec: ``commands`` on fd 3, ``replies`` on fd 4."""
    import fcntl

    def wire() -> None:
        moved = fcntl.fcntl(commands, fcntl.F_DUPFD, 16), fcntl.fcntl(replies, fcntl.F_DUPFD, 16)
        os.dup2(moved[0], 3)
        os.dup2(moved[1], 4)

    return wire


class WarmPageExecutor(Executor):
    """An executor that renders pages in warm browsers and runs every other job on ``base``.

    Args:
        base: The local executor the env would use; it runs everything but page renders,
            and page renders too where no warm browser can start. It is not closed here.
        browsers: How many pages may render at once (one warm browser each); ``base``'s
            worker count by default.
    """

    name = "local"

    def __init__(self, base: LocalExecutor, browsers: int | None = None) -> None:
        self.base = base
        self.browsers = browsers or base.workers
        self._slots: queue.LifoQueue[int] = queue.LifoQueue()  # (the last used first: it is warm)
        self._warm: dict[int, WarmBrowser] = {}
        for index in range(self.browsers):
            self._slots.put(index)
        self._threads: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.broken: str | None = None  # why warm browsers cannot start here (pages then go per job)
        self.closed = False
        self._finalizer = weakref.finalize(self, _stop_all, self._warm)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)  # (isolation, workers, ... are the base's)

    def submit(self, job: Job) -> Future[RunResult]:
        if not is_page_job(job) or self.broken:
            return self.base.submit(job)
        with self._lock:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.browsers, thread_name_prefix="codegym-warm-browser")
        return self._threads.submit(self.run, job)

    def run(self, job: Job) -> RunResult:
        if not is_page_job(job) or self.broken:
            return self.base.run(job)
        if self.closed:
            raise SandboxError("this WarmPageExecutor is closed")
        index = self._slots.get()
        try:
            warm = self._browser(index, job)
        except WarmStartError as e:
            self._slots.put(index)
            self.broken = str(e)
            logger.warning("pages render per job from now on: %s", e)
            return self.base.run(job)
        try:
            return warm.render(job)
        finally:
            self._slots.put(index)

    def _browser(self, index: int, job: Job) -> WarmBrowser:
        """Slot ``index``'s browser, started (or restarted) for ``job``'s size, scripts and limits."""
        step = job.steps[0]
        key = (int(step.argv[3]), int(step.argv[4]), step.argv[6] == "on")
        limits = job.limits_of(step)
        warm = self._warm.get(index)
        if warm is not None and (warm.key, warm.limits) == (key, limits) and warm.ready():
            return warm
        if warm is not None:
            warm.stop()
        warm = self._warm[index] = WarmBrowser(self.base, index, key, limits)
        warm.start()
        return warm

    def open_workspace(self, *args: Any, **kwargs: Any) -> Any:
        return self.base.open_workspace(*args, **kwargs)

    def ensure_preloaded(self, modules: Iterable[str]) -> None:
        self.base.ensure_preloaded(modules)

    def browser_pids(self) -> list[int]:
        """The warm browsers' box processes (for tests and monitoring)."""
        return [w.process.pid for w in self._warm.values() if w.process is not None]

    def close(self) -> None:
        """Stop the warm browsers (``base`` stays open: it is not ours)."""
        if self.closed:
            return
        self.closed = True
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
        self._finalizer()


def _stop_all(browsers: dict[int, WarmBrowser]) -> None:
    for warm in browsers.values():
        warm.stop()
