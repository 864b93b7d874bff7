"""SVGFromImage-v1: the reward ranks pictures as a person would, cheats score nothing, and the
env works as every codegym env does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.visual import scenes
from codegym.envs.visual.env import SVGFromImageEnv
from codegym.envs.visual.tasks import generate_svg_tasks, load_svg_tasks
from gymnasium.utils.env_checker import check_env

import codegym
from codegym.error import TaskFormatError
from codegym.executor import Job, RunResult, Step
from codegym.grade import Status

from .ranking import ORDER, ranked, similarity

OPEN = '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">'
HOUSE = "codegym-svg/icon-house"


@pytest.fixture(scope="module")
def env() -> Iterator[SVGFromImageEnv]:
    made = SVGFromImageEnv()
    yield made
    made.close()


# --- the reward --------------------------------------------------------------------------------


def test_variants_rank_from_exact_to_blank_on_twenty_tasks() -> None:
    """For 20 generated pictures: exact, two pixels off, recoloured, missing its most visible
    shape, laid out anew, blank, in that order (Spearman >= 0.9 on average), the exact one
    scoring >= 0.99."""
    tasks = generate_svg_tasks(20, seed=7)
    env = SVGFromImageEnv(tasks)
    try:
        correlations = []
        for index, task in enumerate(tasks):
            scene = scenes.generate(np.random.default_rng(task.metadata["seed"]), str(task.difficulty))
            assert scene.svg == task.reference
            target = env.target(task).image
            missing = _most_visible(env, task.id, scene, target)
            pictures = scenes.variants(scene, np.random.default_rng(index), missing=missing)
            rewards = [similarity(env, task.id, pictures[name].svg)[1] for name in ORDER]
            assert rewards[0] >= 0.99, (task.id, rewards)
            assert rewards[-1] == 0.0
            correlations.append(ranked(rewards))
        assert float(np.mean(correlations)) >= 0.9, correlations
    finally:
        env.close()


def _most_visible(env: SVGFromImageEnv, task_id: str, scene: scenes.Scene, target: np.ndarray) -> int:
    """The shape whose absence changes the picture most (a missing shape others hide is no
    missing element)."""
    changes = []
    for i in range(len(scene.shapes)):
        without = scenes.Scene(scene.width, scene.height, scene.shapes[:i] + scene.shapes[i + 1 :], scene.background)
        grade, _ = env.evaluate_task(env.tasks.get(task_id), without.svg)
        render = grade.artifacts.get("render", np.full_like(target, 255))
        changes.append(int(np.abs(render.astype(int) - target).sum()))
    return int(np.argmax(changes))


def test_every_bundled_reference_renders_and_matches_itself(env: SVGFromImageEnv) -> None:
    assert len(env.tasks) >= 40
    grades = codegym.score("codegym/SVGFromImage-v1", [(t.id, t.reference or "") for t in env.tasks])
    assert [g.status for g in grades] == [Status.OK] * len(env.tasks)
    assert min(g.metrics["similarity"] for g in grades) >= 0.99


def test_failures_score_zero_never_partial_credit(env: SVGFromImageEnv) -> None:
    assert similarity(env, HOUSE, "<svg") == (Status.CE, 0.0)
    assert similarity(env, HOUSE, "not svg at all") == (Status.CE, 0.0)
    assert similarity(env, HOUSE, OPEN + "</svg>") == (Status.WA, 0.0)  # blank
    assert similarity(env, HOUSE, OPEN + '<rect width="256" height="256" fill="#123456"/></svg>') == (Status.WA, 0.0)
    slow = (
        OPEN + '<path d="' + "M0 0 L256 256 " * 2000 + '" stroke="#000" stroke-dasharray="0.01"/></svg>'
    )  # (millions of dashes)
    status, score = similarity(env, HOUSE, slow)
    assert status in (Status.TLE, Status.MLE) and score == 0.0


def test_a_viewbox_only_picture_is_scaled_to_the_canvas(env: SVGFromImageEnv) -> None:
    reference = env.tasks.get(HOUSE).reference or ""
    scaled = reference.replace('width="256" height="256" viewBox', "viewBox", 1).replace(
        'viewBox="0 0 256 256"', 'viewBox="0 0 256 256" width="100%"', 1
    )
    assert similarity(env, HOUSE, scaled)[1] >= 0.99


def test_a_picture_of_another_size_is_scaled_to_fit_as_the_target_is(env: SVGFromImageEnv) -> None:
    """Every picture, reference or submission, is scaled to fit the canvas, its aspect ratio
    kept and centred: the house at twice the size draws the same pixels; its left half alone
    (a picture half as wide) is drawn in the middle (and scores less), not refused."""
    reference = env.tasks.get(HOUSE).reference or ""
    double = reference.replace('width="256" height="256"', 'width="512" height="512"', 1)
    assert similarity(env, HOUSE, double)[1] >= 0.99
    narrow = reference.replace('width="256" height="256" viewBox="0 0 256 256"', 'viewBox="0 0 128 256"', 1)
    grade, _ = env.evaluate_task(env.tasks.get(HOUSE), narrow)
    assert grade.status is Status.OK and 0 < grade.metrics["similarity"] < 0.9
    render = grade.artifacts["render"]
    assert not (255 - render[:, :64]).any() and (255 - render[:, 64:70]).any()  # (moved right to the middle)


# svg-stack rows as the data set ships them (``Filename``, ``Svg``), of every common shape: a
# feather icon (24 x 24 and a viewBox), a viewBox alone, a size in em, in px and not square, a
# size without a viewBox.
FEATHER = (
    'fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">'
    '<circle cx="12" cy="12" r="10"/><line x1="12" y1="8" x2="12" y2="16"/><line x1="8" y1="12" x2="16" y2="12"/>'
)
SVG_STACK = {
    "plus-circle.svg": (f'<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" '
                        f"{FEATHER}</svg>"),
    "viewbox-only.svg": f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" {FEATHER}</svg>',
    "em.svg": f'<svg xmlns="http://www.w3.org/2000/svg" width="1.5em" height="1.5em" viewBox="0 0 24 24" {FEATHER}</svg>',
    "wide-px.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="48px" height="24px" viewBox="0 0 48 24">'
                    '<rect x="2" y="2" width="44" height="20" fill="#1d4ed8"/></svg>'),
    "tall-no-viewbox.svg": ('<svg xmlns="http://www.w3.org/2000/svg" width="30" height="60">'
                            '<rect width="30" height="60" fill="#c00"/></svg>'),
}  # fmt: skip


def test_svg_stack_rows_of_any_size_are_solved_by_their_own_svg() -> None:
    """A row's own SVG scores >= 0.99 whatever size it declares, so `check_solutions` keeps
    every row and ``validate=True`` drops none; the picture fills the canvas (a 24 x 24 icon
    is drawn 256 x 256, not in a corner), one of another aspect centred between white bands."""
    rows = [{"Filename": name, "Svg": svg} for name, svg in SVG_STACK.items()]
    env = SVGFromImageEnv(rows, validate=True)
    try:
        assert len(env.tasks) == len(rows) and env.invalid_tasks == {}
        for task in env.tasks:
            assert similarity(env, task.id, task.reference or "") == (Status.OK, 1.0), task.id
            assert env.check_solutions(task) is None
        inked = {t.id.removeprefix("svg-stack/"): _ink(env.target(t).image) for t in env.tasks}
        boxes = {"plus-circle.svg": (10, 245, 10, 245), "viewbox-only.svg": (10, 245, 10, 245),
                 "em.svg": (10, 245, 10, 245), "wide-px.svg": (10, 245, 74, 181),  # (256 x 128, centred)
                 "tall-no-viewbox.svg": (64, 191, 0, 255)}  # fmt: skip
        for name, box in boxes.items():  # (within a pixel of antialiasing)
            assert max(abs(a - b) for a, b in zip(inked[name], box, strict=True)) <= 1, (name, inked[name])
        at_canvas_size = SVG_STACK["plus-circle.svg"].replace('width="24" height="24"', 'width="256" height="256"')
        assert similarity(env, "svg-stack/plus-circle.svg", at_canvas_size)[1] >= 0.99
    finally:
        env.close()


def _ink(picture: np.ndarray) -> tuple[int, int, int, int]:
    """The box of what is not white in ``picture``: (left, right, top, bottom)."""
    ys, xs = np.nonzero(picture.min(axis=2) < 250)
    return int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())


# --- cheats --------------------------------------------------------------------------------------

PIXELS = "".join(f'<rect x="{i % 64}" y="{i // 64}" width="1" height="1" fill="#000"/>' for i in range(1000))
CHEATS = {
    "a data: URL image": OPEN + '<image href="data:image/png;base64,iVBORw0KGgo=" width="256" height="256"/></svg>',
    "an image of a file": OPEN + '<image href="/tmp/target.png" width="256" height="256"/></svg>',
    "an image, xlink": OPEN.replace(">", ' xmlns:xlink="http://www.w3.org/1999/xlink">', 1)
    + '<image xlink:href="target.png" width="256" height="256"/></svg>',
    "feImage": OPEN
    + '<filter id="f"><feImage href="target.png"/></filter><rect width="9" height="9" filter="url(#f)"/></svg>',
    "foreignObject": OPEN + '<foreignObject width="256" height="256"><div xmlns="http://www.w3.org/1999/xhtml">'
    '<img src="target.png"/></div></foreignObject></svg>',
    "a data: URL fill": OPEN + '<rect width="256" height="256" fill="url(data:image/png;base64,AAAA)"/></svg>',
    "one-pixel rects": OPEN + PIXELS + "</svg>",
    "a path of pixels": OPEN
    + '<path d="'
    + " ".join(f"M{i % 256} {i // 256}h1v1h-1z" for i in range(3000))
    + '"/></svg>',
    "a link to another file": OPEN + '<use href="/proc/self/environ#x"/></svg>',
    "a CSS url to a file": OPEN + '<rect width="256" height="256" style="fill: url(file:///etc/passwd)"/></svg>',
    "an @import": OPEN
    + '<style>@import url("http://example.com/target.css");</style><rect width="9" height="9"/></svg>',
    "an external entity": '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY t SYSTEM "file:///proc/self/environ">]>'
    + OPEN
    + "<text>&t;</text></svg>",
    "an XInclude": OPEN.replace(">", ' xmlns:xi="http://www.w3.org/2001/XInclude">', 1)
    + '<xi:include parse="text" href="/etc/hostname"/></svg>',
}


@pytest.mark.parametrize("code", CHEATS.values(), ids=CHEATS.keys())
def test_smuggled_pictures_and_files_are_hack(env: SVGFromImageEnv, code: str) -> None:
    env.reset(options={"task_id": HOUSE})
    _, reward, terminated, _, info = env.step(code)
    assert (reward, terminated, info["status"]) == (0.0, True, "HACK"), info["grade"].message
    assert info["grade"].diagnostics[0].code == "gate"


def test_an_oversized_file_is_refused_before_it_renders(env: SVGFromImageEnv) -> None:
    huge = OPEN + "<!--" + "x" * (300 << 10) + "--></svg>"
    assert similarity(env, HOUSE, huge) == (Status.CE, 0.0)


def test_a_scorer_applies_the_gate_too() -> None:
    grades = codegym.score("codegym/SVGFromImage-v1", [(HOUSE, CHEATS["a data: URL image"]), (HOUSE, OPEN + "</svg>")])
    assert [g.status for g in grades] == [Status.HACK, Status.WA]


# --- the env ---------------------------------------------------------------------------------------


def test_check_env_passes_and_the_observation_holds_the_pictures() -> None:
    env = gym.make("codegym/SVGFromImage-v1")
    try:
        check_env(env.unwrapped, skip_render_check=True)
        observation, _ = env.reset(seed=0, options={"task_id": HOUSE})
        assert observation["target"].shape == (256, 256, 3) and observation["target"].dtype == np.uint8
        assert observation["target"].min() < 255 and not observation["render"].any()
        assert "256 x 256" in observation["prompt"]
        reference = env.unwrapped.tasks.get(HOUSE).reference  # type: ignore[attr-defined]
        observation, reward, *_ = env.step(f"Here it is:\n```svg\n{reference}```")
        assert float(reward) >= 0.99
        assert np.array_equal(observation["render"], observation["target"])
        assert not observation["difference"].any()
        assert env.observation_space.contains(observation)
    finally:
        env.close()


def test_refine_mode_goes_on_until_the_picture_matches() -> None:
    env = SVGFromImageEnv(mode="refine")
    try:
        env.reset(options={"task_id": HOUSE})
        observation, reward, terminated, _, info = env.step(
            OPEN + '<rect x="58" y="112" width="140" height="100" fill="#fde68a"/></svg>'
        )
        assert not terminated and 0 < reward < 0.99
        assert observation["difference"].max() > 0 and observation["render"].any()
        assert "similarity" in observation["feedback"] and "pixel" in info["grade"].metrics
        _, reward, terminated, _, _ = env.step(env.tasks.get(HOUSE).reference or "")
        assert terminated and reward >= 0.99
    finally:
        env.close()


def test_reward_weights_and_a_learned_similarity() -> None:
    calls: list[tuple[int, ...]] = []

    def learned(target: np.ndarray, render: np.ndarray) -> float:
        calls.append(target.shape)
        return 0.5

    env = SVGFromImageEnv(reward_weights={"colour": 1.0, "learned": 1.0}, similarity=learned)
    try:
        grade, _ = env.evaluate_task(
            env.tasks.get(HOUSE), OPEN + '<circle cx="128" cy="128" r="60" fill="#dc2626"/></svg>'
        )
        assert calls == [(256, 256, 3)]
        assert grade.metrics["similarity"] == pytest.approx((grade.metrics["colour"] + 0.5) / 2)
    finally:
        env.close()
    with pytest.raises(ValueError, match="reward_weights names"):
        SVGFromImageEnv(reward_weights={"clip": 1.0})


# --- task sources --------------------------------------------------------------------------------


def test_svg_stack_rows_load_from_memory_and_from_a_file(tmp_path: Path) -> None:
    rows = [
        {"Filename": "logo_0001.svg", "Svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
         '<path d="M2 2h20v20H2z" fill="#0a0"/></svg>'},
        {"Filename": "logo_0002.svg", "Svg": '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48">'
         '<circle cx="24" cy="24" r="20" fill="#00f"/></svg>', "source": "icons"},
    ]  # fmt: skip
    file = tmp_path / "svg-stack.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for source in (rows, file):
        env = SVGFromImageEnv(load_svg_tasks(source))
        try:
            assert env.tasks.ids == ("svg-stack/logo_0001.svg", "svg-stack/logo_0002.svg")
            assert env.tasks.get("logo_0002.svg").metadata == {"source": "icons"}
            for task in env.tasks:  # (a reference of another size is scaled to the canvas)
                assert (
                    similarity(
                        env,
                        task.id,
                        task.reference.replace(
                            'width="48" height="48"', 'width="256" height="256" viewBox="0 0 48 48"'
                        ),
                    )[1]
                    >= 0.99
                )  # type: ignore[union-attr]
        finally:
            env.close()


def test_bad_rows_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match=r"row 0: .*Filename"):
        load_svg_tasks([{"Svg": "<svg/>"}])
    with pytest.raises(TaskFormatError, match="field 'svg'"):
        load_svg_tasks([{"id": "a", "svg": 3}])
    with pytest.raises(TaskFormatError, match="no SVG task source"):
        load_svg_tasks(str(tmp_path / "missing.jsonl"))


def test_a_task_whose_reference_does_not_render_is_ungradable_not_a_wrong_answer() -> None:
    env = SVGFromImageEnv([{"id": "broken", "svg": "<svg"}, {"id": "blank", "svg": OPEN + "</svg>"}])
    try:
        for task_id in ("broken", "blank"):
            grade, problem = env.evaluate_task(env.tasks.get(task_id), OPEN + '<rect width="9" height="9"/></svg>')
            assert grade.status is Status.IE and "task_error" in problem
    finally:
        env.close()


def test_a_renderer_that_dies_once_does_not_condemn_the_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference is trusted: a render that fails (here the first, replaced by a process
    killed by a signal, as a crashed renderer is) is tried again before the task is invalid."""
    env = SVGFromImageEnv([{"id": "house", "svg": OPEN + '<rect x="9" y="9" width="99" height="99"/></svg>'}])
    real = env.executor.run
    runs: list[Job] = []

    def dies_once(job: Job) -> RunResult:
        runs.append(job)
        return real(Job(steps=(Step(argv=("sh", "-c", "kill -9 $$")),)) if len(runs) == 1 else job)

    monkeypatch.setattr(env.executor, "run", dies_once)
    try:
        grade, problem = env.evaluate_task(
            env.tasks.get("house"), OPEN + '<rect x="9" y="9" width="99" height="99"/></svg>'
        )
        assert grade.status is Status.OK and "task_error" not in problem and len(runs) == 2  # (the reference twice)
    finally:
        env.close()


def test_the_generator_is_seeded() -> None:
    first, again = generate_svg_tasks(6, seed=3), generate_svg_tasks(6, seed=3)
    assert [t.reference for t in first] == [t.reference for t in again]
    assert [t.reference for t in first] != [t.reference for t in generate_svg_tasks(6, seed=4)]
    assert {t.difficulty for t in first} == {"easy", "medium", "hard"}


def test_refine_feedback_can_carry_the_difference_map_as_text() -> None:
    """With ``difference_feedback=True`` the feedback a model reads says where the render
    and the target differ, as a grid of digits; off by default."""
    half = (
        OPEN
        + '<rect width="256" height="256" fill="#e0f2fe"/><rect y="200" width="256" height="56" fill="#65a30d"/></svg>'
    )
    for flag in (False, True):
        env = SVGFromImageEnv(mode="refine", difference_feedback=flag)
        try:
            env.reset(options={"task_id": HOUSE})
            observation, _, terminated, _, info = env.step(half)
            assert not terminated
            assert ("Where they differ" in observation["feedback"]) is flag
            assert ("Where they differ" in info["grade"].feedback()) is flag
        finally:
            env.close()
    grid = observation["feedback"].split("rows from the top; 0: the same, 9: far apart):\n", 1)[1].splitlines()[:8]
    assert len(grid) == 8 and all(len(row) == 8 and row.isdigit() for row in grid)
    assert grid[0] == "00000000" and int(max(grid[3])) > 0  # (the sky and grass match; the house is missing)
    assert info["grade"].diagnostics[-1].code == "difference" and info["grade"].diagnostics[-1].severity == "note"


def test_render_mode_rgb_array_shows_target_render_and_difference() -> None:
    made = gym.make("codegym/SVGFromImage-v1", render_mode="rgb_array")
    env = made.unwrapped
    assert isinstance(env, SVGFromImageEnv)
    try:
        assert "rgb_array" in env.metadata["render_modes"]
        check_env(env)  # (its render checks included)
        env.reset(options={"task_id": HOUSE})
        strip = env.render()
        assert strip.shape == (256, 768, 3) and strip.dtype == np.uint8
        assert np.array_equal(strip[:, :256], env.target(env.tasks.get(HOUSE)).image) and not strip[:, 256:].any()
        observation, *_ = env.step(OPEN + '<circle cx="128" cy="128" r="60" fill="#dc2626"/></svg>')
        strip = env.render()
        assert np.array_equal(strip[:, 256:512], observation["render"])
        assert np.array_equal(strip[:, 512:], observation["difference"]) and strip[:, 512:].any()
    finally:
        env.close()
    made = gym.make("codegym/ChartFromImage-v1", render_mode="rgb_array")
    try:
        made.reset(seed=0)
        assert made.render().shape == (300, 1200, 3)  # type: ignore[union-attr]
    finally:
        made.close()
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'rgb_array'"):
        SVGFromImageEnv(render_mode="human")
