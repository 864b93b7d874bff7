"""HTMLFromScreenshot-v0: Chromium renders the page in the sandbox, the reward ranks pages as a
person would, and smuggled pictures, links out and pixel art score nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.visual import browser as browser_page
from codegym.envs.visual import pages
from codegym.envs.visual.env import HTMLFromScreenshotEnv
from codegym.envs.visual.tasks import generate_page_tasks, load_page_tasks
from gymnasium.utils.env_checker import check_env

import codegym
from codegym.error import TaskFormatError
from codegym.executor import Job, Step
from codegym.grade import Status

from .ranking import ORDER, ranked

PAGE = "codegym-pages/easy-00"
HELLO = "<html><body style='margin:0'><h1 style='color:#c00'>Hello</h1><p>World</p></body></html>"


@pytest.fixture(scope="module")
def env() -> Iterator[HTMLFromScreenshotEnv]:
    made = HTMLFromScreenshotEnv()
    yield made
    made.close()


def test_variants_rank_from_exact_to_blank_on_twenty_pages() -> None:
    tasks = generate_page_tasks(20, seed=7)
    env = HTMLFromScreenshotEnv(tasks)
    try:
        batch = []
        for task in tasks:
            page = pages.generate(np.random.default_rng(task.metadata["seed"]), str(task.difficulty))
            assert page.html == task.reference
            batch += [(task.id, pages.variants(page)[name].html) for name in ORDER]
        with codegym.Scorer(env) as scorer:  # (Chromium starts per render: both workers at once)
            grades = scorer.score(batch)
        correlations = []
        for start in range(0, len(grades), len(ORDER)):
            rewards = [g.metrics.get("similarity", 0.0) if g.status is Status.OK else 0.0
                       for g in grades[start : start + len(ORDER)]]  # fmt: skip
            assert rewards[0] >= 0.99 and rewards[-1] == 0.0, (batch[start][0], rewards)
            correlations.append(ranked(rewards))
        assert float(np.mean(correlations)) >= 0.9, correlations
    finally:
        env.close()


def test_the_browser_reports_what_it_laid_out(env: HTMLFromScreenshotEnv) -> None:
    grade, _ = env.evaluate_task(env.tasks.get(PAGE), HELLO)
    assert grade.status is Status.OK and 0 < grade.metrics["similarity"] < 0.99
    step = env.executor.run(env.render_job(HELLO, env.limits)).steps[-1]
    from codegym.envs.visual.grader import decode_page

    decoded = decode_page(step.stdout, step.argv[-2], 400, 300)
    assert decoded is not None
    picture, record = decoded
    assert picture.shape == (300, 400, 3) and (picture[10:30, 5:60] == [204, 0, 0]).all(axis=2).any()
    texts = {t[0]: t for t in record["texts"]}
    assert texts["Hello"][5] == "rgb(204, 0, 0)" and texts["World"][2] > texts["Hello"][2]
    assert record["tags"][:4] == ["html", "head", "body", "h1"]


def test_failures_score_zero(env: HTMLFromScreenshotEnv) -> None:
    blank = env.evaluate_task(env.tasks.get(PAGE), "<html><body></body></html>")[0]
    assert blank.status is Status.WA and blank.metrics["similarity"] == 0.0
    huge = "<html><body>" + "<p>x</p>" * 6000 + "</body></html>"
    assert env.evaluate_task(env.tasks.get(PAGE), huge)[0].status is Status.CE


DIES = Job(steps=(Step(argv=("sh", "-c", f"echo '{browser_page.FAILED}Chromium closed its pipe' >&2; kill -9 $$")),))


@pytest.mark.parametrize("deaths", [1, 2, 3, 4])
def test_a_browser_that_dies_is_never_the_submissions_fault(monkeypatch: pytest.MonkeyPatch, deaths: int) -> None:
    """The first ``deaths`` renders after the reference's are replaced by a browser that dies
    (as Chromium crashing on a loaded machine does). A submission is rendered again (3 tries):
    a death or two costs it nothing; three, and the reference is rendered as a control: it
    renders (one death later), so the submission is what kills the browser (``RE``), or it
    dies too (four), and the step is an infrastructure failure, never a wrong answer."""
    answer = HELLO.replace("World", "Earth")
    env = HTMLFromScreenshotEnv([{"id": "hello", "html": HELLO}], on_infra_error="flag")
    run, submit = env.executor.run, env.executor.submit
    runs: list[bytes] = []

    def dies(job: Job) -> Job:
        runs.append(next(iter(job.files.values())))
        return DIES if 1 < len(runs) <= 1 + deaths else job

    monkeypatch.setattr(env.executor, "run", lambda job: run(dies(job)))
    monkeypatch.setattr(env.executor, "submit", lambda job: submit(dies(job)))
    try:
        grade, problem = env.evaluate(env.tasks.get("hello"), answer)
    finally:
        env.close()
    expected = {1: Status.OK, 2: Status.OK, 3: Status.RE, 4: Status.IE}[deaths]
    assert grade.status is expected, grade.message
    assert runs[0] == HELLO.encode() and runs[1 : min(deaths, 2) + 2] == [answer.encode()] * (min(deaths, 2) + 1)
    assert ("infra_error" in problem) is (deaths == 4) and (deaths < 3 or runs[-1] == HELLO.encode())


def test_scripts_are_off_unless_asked_for_and_then_run_on_a_virtual_clock() -> None:
    script = ("<html><body style='margin:0'><h1 id='t'>before</h1><script>"
              "setTimeout(function(){document.getElementById('t').textContent='after'}, 500)</script></body></html>")  # fmt: skip
    for javascript, expected in ((False, "before"), (True, "after")):
        env = HTMLFromScreenshotEnv([{"id": "t", "html": f"<html><body style='margin:0'><h1>{expected}</h1></body></html>"}],
                                    javascript=javascript)  # fmt: skip
        try:
            grade, _ = env.evaluate_task(env.tasks.get("t"), script)
            assert grade.status is Status.OK and grade.metrics["text"] == 1.0, (javascript, grade.message)
        finally:
            env.close()


PIXEL_DIVS = "".join(f"<div style='position:absolute;left:{i % 40}px;top:{i // 40}px;width:1px;height:1px;"
                     f"background:#{i:06x}'></div>" for i in range(1200))  # fmt: skip
SHADOWS = ", ".join(f"{i % 40}px {i // 40}px #{i:06x}" for i in range(400))
PAGE_CHEATS = {
    "an img with a data: URL": "<html><body><img src='data:image/png;base64,iVBORw0KGgo='></body></html>",
    "a data: URL background": "<html><body style=\"background-image:url('data:image/png;base64,AAAA')\"></body></html>",
    "an image file": "<html><body><img src='/tmp/target.png'></body></html>",
    "a file: link": "<html><head><link rel='stylesheet' href='file:///etc/passwd'></head><body>x</body></html>",
    "a remote image": "<html><body><img src='https://example.com/target.png'></body></html>",
    "an iframe of a file": "<html><body><iframe src='target.html'></iframe></body></html>",
    "an object": "<html><body><object data='target.png'></object></body></html>",
    "an @import": "<html><head><style>@import 'http://example.com/a.css';</style></head><body>x</body></html>",
    "1-pixel divs": f"<html><body>{PIXEL_DIVS}</body></html>",
    "box-shadow pixel art": f"<html><body><div style='width:1px;height:1px;box-shadow:{SHADOWS}'></div></body></html>",
}


@pytest.mark.parametrize("code", PAGE_CHEATS.values(), ids=PAGE_CHEATS.keys())
def test_smuggled_pictures_links_and_pixel_art_are_hack(env: HTMLFromScreenshotEnv, code: str) -> None:
    env.reset(options={"task_id": PAGE})
    _, reward, terminated, _, info = env.step(code)
    assert (reward, terminated, info["status"]) == (0.0, True, "HACK"), info["grade"].message


def test_a_canvas_is_hack_only_with_scripts_on() -> None:
    canvas = "<html><body><canvas id='c' width='400' height='300'></canvas></body></html>"
    env = HTMLFromScreenshotEnv(javascript=True)
    try:
        assert env.evaluate_task(env.tasks.get(PAGE), canvas)[0].status is Status.HACK
    finally:
        env.close()


def test_check_env_passes_and_the_env_is_registered() -> None:
    env = gym.make("codegym/HTMLFromScreenshot-v0")
    try:
        check_env(env.unwrapped, skip_render_check=True)
        observation, _ = env.reset(seed=0, options={"task_id": PAGE})
        assert observation["target"].shape == (300, 400, 3)
        observation, reward, *_ = env.step(f"```html\n{env.unwrapped.tasks.get(PAGE).reference}```")  # type: ignore[attr-defined]
        assert float(reward) >= 0.99 and np.array_equal(observation["render"], observation["target"])
    finally:
        env.close()


def test_bundled_references_match_themselves(env: HTMLFromScreenshotEnv) -> None:
    """A sample of each difficulty (every one is checked by ``codegym validate``, see the docs)."""
    assert len(env.tasks) >= 40
    sample = [t for t in env.tasks if t.id.endswith(("-00", "-07", "-13"))]
    grades = codegym.score("codegym/HTMLFromScreenshot-v0", [(t.id, t.reference or "") for t in sample])
    assert [g.status for g in grades] == [Status.OK] * len(sample) and len(sample) == 9
    assert min(g.metrics["similarity"] for g in grades) >= 0.99
    assert all(0.0 <= value <= 1.0 for g in grades for value in g.metrics.values())  # (not 1 + 2e-16)


def test_websight_rows_and_a_design2code_folder_load(tmp_path: Path) -> None:
    rows = [{"text": HELLO, "llm_generated_idea": "a greeting"}]
    file = tmp_path / "websight.jsonl"
    file.write_text(json.dumps(rows[0]) + "\n")
    folder = tmp_path / "design2code"
    folder.mkdir()
    (folder / "2.html").write_text(HELLO)
    (folder / "10.html").write_text(HELLO.replace("Hello", "Bye"))
    (folder / "2.png").write_bytes(b"")
    assert load_page_tasks(rows).ids == load_page_tasks(file).ids
    tasks = load_page_tasks(folder)
    assert tasks.ids == ("design2code/2", "design2code/10") and tasks.get("2").metadata["image"].endswith("2.png")
    env = HTMLFromScreenshotEnv(tasks)
    try:
        grade, _ = env.evaluate_task(tasks.get("2"), HELLO)
        assert grade.metrics["similarity"] >= 0.99
    finally:
        env.close()
    with pytest.raises(TaskFormatError, match="field 'html'"):
        load_page_tasks([{"id": "x", "html": 5}])
    with pytest.raises(TaskFormatError, match="Design2Code folder"):
        load_page_tasks(tmp_path)  # (a folder without N.html files)
