"""HTMLFromScreenshot's warm browsers: the same renders as a browser per job, nothing of one
page for the next, a page that breaks the browser costs the next page nothing, and nothing
is left running after close."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from codegym.envs.visual import warm
from codegym.envs.visual.env import HTMLFromScreenshotEnv
from codegym.envs.visual.grader import decode_page

from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Status

from .test_page import HELLO

GREEN = "<html><body style='margin:0'><div style='width:200px;height:150px;background:#0a0'></div></body></html>"
# Page A writes everything a page may keep, and shows blue once it reads its local storage back
# (on a file: page, cookies are refused and IndexedDB's open does not finish within the virtual
# second; local storage is the store that does persist within a browser context).
WRITES = """<html><body style='margin:0'><div id='b' style='width:200px;height:150px;background:#c00'></div><script>
localStorage.setItem('leak', '1'); sessionStorage.setItem('leak', '1');
try { document.cookie = 'leak=1'; } catch (e) {}
try { caches.open('leak'); } catch (e) {}
try { navigator.serviceWorker.register('sw.js'); } catch (e) {}
try { var request = indexedDB.open('leak', 1);
      request.onupgradeneeded = function () { request.result.createObjectStore('s'); }; } catch (e) {}
if (localStorage.getItem('leak') === '1') document.getElementById('b').style.background = '#00c';
</script></body></html>"""
# Page B shows green unless it finds anything an earlier page kept (then red).
READS = """<html><body style='margin:0'><div id='b' style='width:200px;height:150px;background:#0a0'></div><script>
function found() { document.getElementById('b').style.background = '#c00'; }
try { if (localStorage.length || sessionStorage.length) found(); } catch (e) {}
try { if (document.cookie) found(); } catch (e) {}
try { indexedDB.databases().then(function (d) { if (d.length) found(); }); } catch (e) {}
try { if (window.caches) caches.keys().then(function (k) { if (k.length) found(); }); } catch (e) {}
try { navigator.serviceWorker.getRegistrations().then(function (r) { if (r.length) found(); }); } catch (e) {}
</script></body></html>"""
HANGS = "<html><body><p>x</p><script>while (true) {}</script></body></html>"


@pytest.fixture
def scripted() -> Iterator[HTMLFromScreenshotEnv]:
    made = HTMLFromScreenshotEnv([{"id": "green", "html": GREEN}], javascript=True)
    yield made
    made.close()


def _colour(grade_render: np.ndarray) -> tuple[int, ...]:
    return tuple(int(v) for v in grade_render[75, 100])


def test_the_env_renders_pages_in_a_warm_browser() -> None:
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    try:
        assert isinstance(env.executor, warm.WarmPageExecutor)
        grades = [env.evaluate_task(env.tasks.get("hello"), f"{HELLO}<!-- {i} -->")[0] for i in range(3)]
        assert all(g.status is Status.OK and g.metrics["similarity"] >= 0.99 for g in grades)
        assert env.executor.broken is None and len(env.executor.browser_pids()) == 1  # (one browser, kept)
    finally:
        env.close()


@pytest.mark.parametrize("javascript", [False, True])
def test_a_warm_browser_renders_as_a_browser_per_job_does(javascript: bool) -> None:
    env = HTMLFromScreenshotEnv(javascript=javascript)
    try:
        executor = env.executor
        assert isinstance(executor, warm.WarmPageExecutor)
        for task in list(env.tasks)[:: 12 if javascript else 6]:
            job = env.render_job(task.reference or "", env.limits)
            nonce = job.steps[0].argv[-2]
            warmed = decode_page(executor.run(job).steps[0].stdout, nonce, 400, 300)
            per_job = decode_page(executor.base.run(job).steps[0].stdout, nonce, 400, 300)
            assert warmed is not None and per_job is not None, task.id
            assert np.array_equal(warmed[0], per_job[0]) and warmed[1] == per_job[1], task.id
        assert executor.broken is None
    finally:
        env.close()


def test_a_page_leaves_nothing_for_the_next(scripted: HTMLFromScreenshotEnv) -> None:
    task = scripted.tasks.get("green")
    first = scripted.evaluate_task(task, WRITES)[0]
    assert first.status is Status.OK and _colour(first.artifacts["render"]) == (0, 0, 204)  # (it kept them itself)
    pids = scripted.executor.browser_pids()  # type: ignore[attr-defined]
    second = scripted.evaluate_task(task, READS)[0]
    assert scripted.executor.browser_pids() == pids  # type: ignore[attr-defined]  (the same warm browser)
    assert second.status is Status.OK and _colour(second.artifacts["render"]) == (0, 170, 0), second.message
    assert second.metrics["similarity"] >= 0.99


def test_each_page_gets_a_spare_tab_no_page_saw(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str | None, str]] = []
    rendered: list[str | None] = []
    open_tab, render = warm.page_browser.open_tab, warm.page_browser.render

    def opening(browser: Any, width: int, height: int, context: str | None = None) -> str:
        opened.append((context, open_tab(browser, width, height, context)))
        return opened[-1][1]

    def rendering(*args: Any, session: str | None = None, **kwargs: Any) -> Any:
        rendered.append(session)
        return render(*args, session=session, **kwargs)

    monkeypatch.setattr(warm.page_browser, "open_tab", opening)
    monkeypatch.setattr(warm.page_browser, "render", rendering)
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    try:
        for i in range(3):
            assert env.evaluate_task(env.tasks.get("hello"), f"{HELLO}<!-- {i} -->")[0].status is Status.OK
        assert len(rendered) == 4  # (the reference, then three pages)
        assert rendered == [session for _, session in opened[: len(rendered)]]  # (each the tab made before it)
        contexts = [context for context, _ in opened]
        assert None not in contexts and len(set(contexts)) == len(contexts) >= 4  # (a fifth: the next page's)
    finally:
        env.close()


def test_a_spare_that_fails_costs_the_browser_not_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    open_tab, calls = warm.page_browser.open_tab, []

    def opening(browser: Any, width: int, height: int, context: str | None = None) -> str:
        calls.append(context)
        if len(calls) == 3:  # (the spare made while the first submission is graded)
            raise warm.page_browser.BrowserError("Target.createTarget: no tab today")
        return open_tab(browser, width, height, context)

    monkeypatch.setattr(warm.page_browser, "open_tab", opening)
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    try:
        task = env.tasks.get("hello")
        assert env.evaluate_task(task, HELLO)[0].status is Status.OK
        pids = env.executor.browser_pids()  # type: ignore[attr-defined]
        grade = env.evaluate_task(task, f"{HELLO}<!-- again -->")[0]
        assert grade.status is Status.OK and grade.metrics["similarity"] >= 0.99
        assert env.executor.browser_pids() != pids and env.executor.broken is None  # type: ignore[attr-defined]
    finally:
        env.close()


@pytest.mark.timeout(120)
def test_a_page_that_hangs_the_browser_costs_the_next_page_nothing() -> None:
    env = HTMLFromScreenshotEnv([{"id": "green", "html": GREEN}], javascript=True,
                                limits=Limits(cpu_s=20.0, wall_s=3.0, memory_bytes=2 << 30, processes=512,
                                              output_bytes=8 << 20, file_size_bytes=1 << 30))  # fmt: skip
    try:
        task = env.tasks.get("green")
        assert env.evaluate_task(task, GREEN)[0].status is Status.OK
        before = env.executor.browser_pids()  # type: ignore[attr-defined]
        started = time.monotonic()
        hung = env.evaluate_task(task, HANGS)[0]
        assert hung.status is Status.TLE and time.monotonic() - started < 30, hung.message
        after = env.evaluate_task(task, GREEN)[0]
        assert after.status is Status.OK and after.metrics["similarity"] >= 0.99
        assert env.executor.browser_pids() != before  # type: ignore[attr-defined]  (a fresh one)
    finally:
        env.close()


def test_a_browser_killed_between_pages_is_started_afresh(scripted: HTMLFromScreenshotEnv) -> None:
    task = scripted.tasks.get("green")
    assert scripted.evaluate_task(task, GREEN)[0].status is Status.OK
    (pid,) = scripted.executor.browser_pids()  # type: ignore[attr-defined]
    os.killpg(pid, signal.SIGKILL)
    grade = scripted.evaluate_task(task, GREEN)[0]
    assert grade.status is Status.OK and grade.metrics["similarity"] >= 0.99
    assert scripted.executor.browser_pids() != [pid]  # type: ignore[attr-defined]


def _tree(root: int) -> set[int]:
    """``root`` and every process below it."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    parents[int(name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= found
        grew = bool(found)
    return tree


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_close_leaves_no_browser_running() -> None:
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    assert env.evaluate_task(env.tasks.get("hello"), HELLO)[0].status is Status.OK
    executor = env.executor
    assert isinstance(executor, warm.WarmPageExecutor)
    (box,) = executor.browser_pids()
    tree = _tree(box)
    names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in tree if _alive(pid)}
    assert any("chrom" in name for name in names), names  # (Chromium runs in the box)
    env.close()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in tree) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in tree if _alive(pid)]


def test_a_browser_that_cannot_start_leaves_pages_to_the_per_job_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm, "BOX_SCRIPT", "/nonexistent/_browser_box.py")
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    try:
        grade = env.evaluate_task(env.tasks.get("hello"), HELLO)[0]
        assert grade.status is Status.OK and grade.metrics["similarity"] >= 0.99
        assert "did not start" in (env.executor.broken or "")  # type: ignore[attr-defined]
    finally:
        env.close()


@pytest.mark.parametrize("tier", ["full", "userns-root", "userns-user"])
def test_a_warm_browser_starts_in_each_tier_beside_a_checkout_under_tmp(
    tmp_path: Path, tier: str, tier_options: Any
) -> None:
    """codegym's files under /tmp (a fresh clone there, as CI's may be) are in the box's view
    below the view's own /tmp, and hidden from the browser there too."""
    hidden = tmp_path / "checkout" / "codegym"
    hidden.mkdir(parents=True)
    (hidden / "secret.txt").write_text("secret")
    opened = [(f, f.stat().st_mode) for f in (hidden, *hidden.parents) if str(f).startswith("/tmp/")]
    for folder, mode in opened:  # (traversable by a plain user's box)
        folder.chmod(mode | 0o005)
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}])
    base = LocalExecutor(workers=1, **tier_options(tier))
    try:
        view = base.view
        base.view = {
            **view,
            "binds": [*view["binds"], (str(hidden), str(hidden))],
            "hide": [*view["hide"], str(hidden)],
        }
        executor = warm.WarmPageExecutor(base)
        reads = f"<html><body><iframe src='file://{hidden}/secret.txt'></iframe></body></html>"
        for code in (HELLO, reads):
            job = env.render_job(code, env.limits)
            result = executor.run(job)
            assert executor.broken is None, executor.broken
            assert result.steps[0].exit_code == 0, result.steps[0]
            decoded = decode_page(result.steps[0].stdout, job.steps[0].argv[-2], 400, 300)
            assert decoded is not None and "secret" not in str(decoded[1])
        executor.close()
    finally:
        base.close()
        env.close()
        for folder, mode in opened:
            folder.chmod(mode)
