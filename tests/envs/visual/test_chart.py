"""ChartFromImage-v0: the reward ranks charts as a person would, cheats score nothing, and a
program's failures are feedback, never partial credit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.visual import charts, records
from codegym.envs.visual.env import ChartFromImageEnv
from codegym.envs.visual.tasks import generate_chart_tasks, load_chart_tasks
from gymnasium.utils.env_checker import check_env

import codegym
from codegym.error import TaskFormatError
from codegym.grade import Status

from .ranking import ORDER, ranked, similarity

BARS = "codegym-charts/easy-00"
SIMPLE = "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [1, 2], color='#1f77b4')\n"


@pytest.fixture(scope="module")
def env() -> Iterator[ChartFromImageEnv]:
    made = ChartFromImageEnv()
    yield made
    made.close()


def test_variants_rank_from_exact_to_blank_on_twenty_charts() -> None:
    tasks = generate_chart_tasks(20, seed=7)
    env = ChartFromImageEnv(tasks)
    try:
        correlations = []
        for task in tasks:
            chart = charts.generate(np.random.default_rng(task.metadata["seed"]), str(task.difficulty))
            assert chart.code == task.reference
            pictures = charts.variants(chart)
            rewards = [similarity(env, task.id, pictures[name].code)[1] for name in ORDER]
            assert rewards[0] >= 0.99 and rewards[-1] == 0.0, (task.id, rewards)
            correlations.append(ranked(rewards))
        assert float(np.mean(correlations)) >= 0.9, correlations
    finally:
        env.close()


def test_the_record_reads_what_the_figure_drew(env: ChartFromImageEnv) -> None:
    code = ("fig, ax = plt.subplots()\nax.bar(['x', 'y'], [1, 2], color='#ff0000')\nax.plot([0, 1], [2, 1], color='#00ff00')\n"
            "ax.set_title('Hello')\n")  # fmt: skip
    grade, _ = env.evaluate_task(env.tasks.get(BARS), code)
    assert grade.status is Status.OK
    result = env.executor.run(env.render_job(code, env.limits, strict=True))
    drawn = records.read(result.files["chart.svg"].decode())
    assert drawn.texts["hello"] == 1 and drawn.texts["x"] == 1
    assert set(drawn.kinds) == {"bar", "line"} and drawn.kinds["bar"] == 2
    assert "#ff0000" in drawn.colours and "#00ff00" in drawn.colours
    assert len(drawn.boxes) == 1


def test_failures_are_feedback_and_score_zero(env: ChartFromImageEnv) -> None:
    grade, _ = env.evaluate_task(env.tasks.get(BARS), "ax = plt.gca()\nax.bar([1], [2], colour='red')\n")
    assert grade.status is Status.RE and "colour" in grade.message and grade.diagnostics[0].code == "traceback"
    assert similarity(env, BARS, "x = 1\n") == (Status.WA, 0.0)  # (no figure)
    assert similarity(env, BARS, "plt.figure()\n") == (Status.WA, 0.0)  # (blank)
    assert similarity(env, BARS, "while True:\n    pass\n")[0] is Status.TLE
    assert similarity(env, BARS, "x = [0] * 10 ** 10\n")[0] in (Status.MLE, Status.RE)
    assert similarity(env, BARS, "def f(:\n")[0] is Status.RE


PAINT = "import itertools\nfig = plt.figure()\nax = fig.add_axes([0, 0, 1, 1])\n"
CHART_CHEATS = {
    "imshow of pixels": "fig, ax = plt.subplots()\nax.imshow([[[255, 0, 0], [0, 255, 0]]] * 2)\n",
    "figimage": "fig = plt.figure()\nfig.figimage(np.zeros((300, 400, 3)))\n",
    "reading an image": "fig, ax = plt.subplots()\nimg = plt.imread('target.png')\n",
    "reading a file": "data = open('/proc/self/environ').read()\nfig, ax = plt.subplots()\nax.set_title(data)\n",
    "importing os": "import os\nfig, ax = plt.subplots()\nax.set_title(str(os.environ))\n",
    "__import__": "fig, ax = plt.subplots()\nax.set_title(__import__('os').getcwd())\n",
    "getattr": "fig, ax = plt.subplots()\ngetattr(ax, 'ims' + 'how')([[0]])\n",
    "a private attribute": "fig, ax = plt.subplots()\nax.set_title(str(().__class__.__base__.__subclasses__()))\n",
    "a picture as numbers": "fig, ax = plt.subplots()\nax.plot(" + repr(list(range(3500))) + ")\n",
    "a picture as colours": "fig, ax = plt.subplots()\nax.bar(range(700), 1, color="
    + repr([f"#{i:06x}" for i in range(700)])
    + ")\n",
    "a bytes literal": "fig, ax = plt.subplots()\nax.set_title(str(b'\\x89PNG'))\n",
    "painting with markers": PAINT + "xs, ys = np.meshgrid(np.arange(80), np.arange(60))\n"
    "ax.scatter(xs.ravel(), ys.ravel(), c=np.random.rand(4800, 3), marker='s', s=30)\n",
}


@pytest.mark.parametrize("code", CHART_CHEATS.values(), ids=CHART_CHEATS.keys())
def test_rasters_files_and_smuggled_pixels_are_hack(env: ChartFromImageEnv, code: str) -> None:
    env.reset(options={"task_id": BARS})
    _, reward, terminated, _, info = env.step(code)
    assert (reward, terminated, info["status"]) == (0.0, True, "HACK"), info["grade"].message


def test_check_env_passes_and_the_env_is_registered() -> None:
    env = gym.make("codegym/ChartFromImage-v0")
    try:
        check_env(env.unwrapped, skip_render_check=True)
        observation, _ = env.reset(seed=0, options={"task_id": BARS})
        assert observation["target"].shape == (300, 400, 3)
        observation, reward, *_ = env.step(f"```python\n{env.unwrapped.tasks.get(BARS).reference}```")  # type: ignore[attr-defined]
        assert float(reward) >= 0.99 and np.array_equal(observation["render"], observation["target"])
    finally:
        env.close()
    grades = codegym.score("codegym/ChartFromImage-v0", [(BARS, SIMPLE), (BARS, CHART_CHEATS["figimage"])])
    assert [g.status for g in grades] == [Status.OK, Status.HACK]
    assert 0 < grades[0].metrics["similarity"] < 0.99


def test_every_bundled_reference_matches_itself(env: ChartFromImageEnv) -> None:
    assert len(env.tasks) >= 40
    grades = codegym.score("codegym/ChartFromImage-v0", [(t.id, t.reference or "") for t in env.tasks])
    assert [g.status for g in grades] == [Status.OK] * len(env.tasks)
    assert min(g.metrics["similarity"] for g in grades) >= 0.99


def test_chartmimic_rows_load_from_memory_and_from_a_file(tmp_path: Path) -> None:
    code = "import matplotlib.pyplot as plt\nplt.pie([1, 2, 3], labels=['a', 'b', 'c'])\nplt.savefig('pie_1.pdf')\n"
    rows = [{"instruction": "Draw this pie chart.", "code": code, "image": "ori_500/pie_1.png"}]
    file = tmp_path / "chartmimic.jsonl"
    file.write_text(json.dumps(rows[0]) + "\n")
    for source in (rows, file):
        env = ChartFromImageEnv(load_chart_tasks(source))
        try:
            task = env.tasks.get("chartmimic/pie_1")
            assert "Draw this pie chart." in task.prompt and task.metadata["image"] == "ori_500/pie_1.png"
            assert similarity(env, task.id, "plt.pie([1, 2, 3], labels=['a', 'b', 'c'])\n")[1] >= 0.99
        finally:
            env.close()
    with pytest.raises(TaskFormatError, match="field 'code'"):
        load_chart_tasks([{"instruction": "x", "code": 3}])
