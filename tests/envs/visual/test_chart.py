"""ChartFromImage-v1: the reward ranks charts as a person would, cheats score nothing, and a
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
    result = env.executor.run(env.render_job(code, env.limits))
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
    env = gym.make("codegym/ChartFromImage-v1")
    try:
        check_env(env.unwrapped, skip_render_check=True)
        observation, _ = env.reset(seed=0, options={"task_id": BARS})
        assert observation["target"].shape == (300, 400, 3)
        observation, reward, *_ = env.step(f"```python\n{env.unwrapped.tasks.get(BARS).reference}```")  # type: ignore[attr-defined]
        assert float(reward) >= 0.99 and np.array_equal(observation["render"], observation["target"])
    finally:
        env.close()
    grades = codegym.score("codegym/ChartFromImage-v1", [(BARS, SIMPLE), (BARS, CHART_CHEATS["figimage"])])
    assert [g.status for g in grades] == [Status.OK, Status.HACK]
    assert 0 < grades[0].metrics["similarity"] < 0.99


def test_every_bundled_reference_matches_itself(env: ChartFromImageEnv) -> None:
    assert len(env.tasks) >= 40
    grades = codegym.score("codegym/ChartFromImage-v1", [(t.id, t.reference or "") for t in env.tasks])
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


def test_every_bundled_reference_sized_as_the_prompt_asks_matches_itself(env: ChartFromImageEnv) -> None:
    """All 48 bundled charts: a reference that sizes its figure as the prompt says (4 x 3 in)
    is laid out as the target was, so it scores as the reference does (the figure is sized
    before the program runs, not resized after it drew)."""
    sized = 'plt.rcParams["figure.figsize"] = (4, 3)\n'
    assert all('plt.rcParams["figure.figsize"]' in t.prompt and "4 x 3 in" in t.prompt for t in env.tasks)
    grades = codegym.score("codegym/ChartFromImage-v1", [(t.id, sized + (t.reference or "")) for t in env.tasks])
    scores = {
        t.id: (g.status, round(g.metrics.get("similarity", 0.0), 3)) for t, g in zip(env.tasks, grades, strict=True)
    }
    assert {k: v for k, v in scores.items() if v[0] is not Status.OK or v[1] < 0.99} == {}


def test_a_chartmimic_folder_loads_and_its_unseeded_scripts_reproduce_their_picture(tmp_path: Path) -> None:
    """ChartMimic's released layout (``ori_500/<name>.py`` beside ``<name>.png``), scripts
    as they ship them: a figure of their own size, random data drawn without a seed, a
    ``savefig`` at the end. Each one's own script scores >= 0.99 (the harness seeds numpy and
    `random` before a program runs)."""
    folder = tmp_path / "ori_500"
    folder.mkdir()
    scripts = {
        "scatter_2": "import matplotlib.pyplot as plt\nimport numpy as np\n\nx = np.random.rand(40)\n"
        "y = np.random.randn(40)\nfig, ax = plt.subplots(figsize=(8, 6))\nax.scatter(x, y, color='#1982c4')\n"
        "ax.set_title('Unseeded')\nplt.tight_layout()\nplt.savefig('scatter_2.pdf', bbox_inches='tight')\n",
        "bar_10": "import random\nimport matplotlib.pyplot as plt\n\nvalues = [random.randint(1, 9) for _ in range(6)]\n"
        "plt.figure(figsize=(6, 4))\nplt.bar(range(6), values, color='#ff595e')\nplt.savefig('bar_10.pdf')\n",
    }
    for name, code in scripts.items():
        (folder / f"{name}.py").write_text(code)
    (folder / "bar_10.png").write_bytes(b"\x89PNG (the released picture; kept as metadata)")
    for source in (folder, tmp_path):
        tasks = load_chart_tasks(source)
        assert [t.id for t in tasks] == ["chartmimic/bar_10", "chartmimic/scatter_2"]
        assert tasks.get("chartmimic/bar_10").metadata["image"] == str(folder / "bar_10.png")
    env = ChartFromImageEnv(tasks)
    try:
        for task in tasks:
            assert similarity(env, task.id, task.reference or "")[1] >= 0.99, task.id
            assert env.check_solutions(task) is None
    finally:
        env.close()
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskFormatError, match=r"a ChartMimic folder holds <name>\.py files"):
        load_chart_tasks(tmp_path / "empty")


def test_a_runtime_error_shows_the_program_s_lines_only(env: ChartFromImageEnv) -> None:
    """The traceback a model reads names its own lines, not the harness's or matplotlib's."""
    code = "values = [1, 2]\n\ndef draw(ax):\n    ax.bar(['a', 'b'], values, colour='red')\n\nfig, ax = plt.subplots()\ndraw(ax)\n"
    grade, _ = env.evaluate_task(env.tasks.get(BARS), code)
    trace = grade.diagnostics[0].message
    assert grade.status is Status.RE and "colour" in grade.message
    assert 'File "chart.py", line 7, in <module>' in trace and 'File "chart.py", line 4, in draw' in trace
    assert "plotting.py" not in trace and "matplotlib" not in trace and "site-packages" not in trace, trace
    grade, _ = env.evaluate_task(env.tasks.get(BARS), "x = 1\ndef f(:\n")
    assert grade.status is Status.RE and "SyntaxError" in grade.message
    assert "line 2" in grade.diagnostics[0].message and "plotting.py" not in grade.diagnostics[0].message
    grade, _ = env.evaluate_task(env.tasks.get(BARS), "fig, ax = plt.subplots()\nax.set_title(r'$\\frac{$')\n")
    trace = grade.diagnostics[0].message  # (a title that fails only when the figure is drawn, at its saving)
    assert grade.status is Status.RE and "could not be drawn when it was saved" in trace and "frac" in trace
    assert "plotting.py" not in trace and "matplotlib" not in trace, trace


def test_an_area_chart_is_an_area_chart() -> None:
    """The descriptions (and so the prompts) use the article their chart kind takes."""
    area = charts.Chart((charts.Panel("area", ("a", "b"), ((1.0, 2.0),), ("A",), ("#1f77b4",), "T"),))
    assert area.description == "an area chart (1 series)"
    prompts = [t.prompt for t in load_chart_tasks("codegym-charts")]
    assert any("an area chart" in p for p in prompts) and not any(" a area" in p for p in prompts)
