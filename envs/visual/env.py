"""Visual-to-code envs: draw a target picture in code; the reward is how alike the render is.

`VisualEnv` is the family's kernel: the target rendered once per task from its hidden
reference (in the sandbox, like any code), the observation's pictures, the gate, the render
job and the reward mix. A renderer's env (`SVGFromImageEnv`) names its renderer, its file and
its gate.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from codegym.envs.visual import browser as browser_page
from codegym.envs.visual import grader, metrics, page_scores, records, sandbox, warm
from codegym.envs.visual.chart_gate import check_chart
from codegym.envs.visual.gate import Violation, check_svg
from codegym.envs.visual.tasks import load_chart_tasks, load_page_tasks, load_svg_tasks
from gymnasium import spaces

from codegym.agent import AgentEpisode, AgentSetup, FamilyTool
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask, SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.grade import Diagnostic, Grade, Status
from codegym.requirements import Module, Requirements, Tool
from codegym.task import Quarantine, Task, TaskSet

RENDERER = "codegym.envs.visual.render"
RENDER_LIMITS = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=512 << 20, processes=8, output_bytes=4 << 20)
CHART_LIMITS = Limits(cpu_s=10.0, wall_s=20.0, memory_bytes=1 << 30, processes=8, output_bytes=4 << 20)
CHART_SVG = "chart.svg"
BROWSER = "codegym.envs.visual.browser"
# Chromium: dozens of threads and a few processes, and a few hundred MiB.
CHROMIUM_SLACK = 6 << 30
# (Chromium sizes its shared-memory files, in the step's temp dir, far past what it writes.)
PAGE_LIMITS = Limits(cpu_s=20.0, wall_s=30.0, memory_bytes=2 << 30, processes=512, output_bytes=8 << 20,
                     file_size_bytes=1 << 30)  # fmt: skip
# The page reward: the picture's metrics and the browser's layout, about half each.
PAGE_WEIGHTS: Mapping[str, float] = {"pixel": 0.1, "ssim": 0.1, "edges": 0.1, "colour": 0.1, "block_match": 0.1,
                                     "text": 0.1, "position": 0.2, "text_colour": 0.15, "structure": 0.05}  # fmt: skip
# The chart reward: the picture's metrics and the figure's record, about half each.
CHART_WEIGHTS: Mapping[str, float] = {"pixel": 0.1, "ssim": 0.15, "edges": 0.1, "colour": 0.05,
                                      "text": 0.2, "chart_type": 0.15, "colour_f1": 0.15, "layout": 0.1}  # fmt: skip
SOLVED = 0.99  # the similarity that ends a refine episode
REFERENCE_TRIES = 3  # renders of a reference before its task is invalid (it is trusted: a failure is the renderer's)
RENDER_TRIES = 3  # renders of a submission the renderer died on (not at a limit) before the submission is blamed


class VisualEnv(CodeEnv):
    """The kernel of the visual-to-code envs (see `SVGFromImageEnv` for one in full).

    Beside every codegym env's options: ``canvas`` (height, width) in pixels;
    ``reward_weights`` and ``similarity`` (a learned metric) mix the reward; ``solved_at``,
    the similarity that counts as solved; ``difference_feedback=True`` adds the difference
    map, as text (`grader.difference_text`), to each render's feedback (a note
    ``[difference]``: where the render and the target differ, for a model that reads no
    pictures); ``render_mode="rgb_array"``: `render` returns target | render | difference
    side by side (``"ansi"``: the prompt and the last feedback, as text).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    family: ClassVar[str] = "Visual"
    episode_state: ClassVar[tuple[str, ...]] = (*CodeEnv.episode_state, "_preview")  # (the agent's last render)
    kind: ClassVar[str] = ""  # the renderer (`render.RENDERERS`)
    metric_names: ClassVar[tuple[str, ...]] = metrics.METRICS  # what ``reward_weights`` may name
    file: ClassVar[str] = ""  # the file the renderer reads
    preload: ClassVar[tuple[str, ...]] = (RENDERER,)
    bundled: ClassVar[str] = ""  # the task set when ``tasks`` is not given
    default_canvas: ClassVar[tuple[int, int]] = (256, 256)  # (height, width)
    default_limits: ClassVar[Limits] = RENDER_LIMITS
    default_weights: ClassVar[Mapping[str, float]] = metrics.DEFAULT_WEIGHTS

    def __init__(
        self,
        tasks: str | Path | TaskSet | list[Mapping[str, Any]] | None = None,
        *,
        canvas: tuple[int, int] | None = None,
        mode: Mode = "single",
        limits: Limits | None = None,
        reward_weights: Mapping[str, float] | None = None,
        similarity: metrics.Similarity | None = None,
        solved_at: float = SOLVED,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
        difference_feedback: bool = False,
    ) -> None:
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        height, width = canvas or self.default_canvas
        if not (16 <= width <= 1024 and 16 <= height <= 1024):
            raise ValueError(f"canvas must be (height, width) between 16 and 1024 pixels, got {canvas}")
        weights = dict(self.default_weights if reward_weights is None else reward_weights)
        metrics.mixed(dict.fromkeys((*self.metric_names, "learned"), 0.0), weights)  # (refuses unknown names)
        if not 0 < solved_at <= 1:
            raise ValueError(f"solved_at must be in (0, 1], got {solved_at}")
        source = self.bundled if tasks is None else tasks
        super().__init__(
            source if isinstance(source, TaskSet) else self.load_tasks(source, (height, width)),
            limits=limits or self.default_limits,
            mode=mode,
            executor=executor,
            on_infra_error=on_infra_error,
            render_mode="ansi" if render_mode == "ansi" else None,
            on_task_error=on_task_error,
            quarantine=quarantine,
        )
        self.render_mode = render_mode
        self.difference_feedback = difference_feedback
        self.canvas = (height, width)
        self.reward_weights = weights
        self.similarity = similarity
        self.solved_at = solved_at
        picture = spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
        self.observation_space = spaces.Dict(
            {**self.observation_space.spaces, "target": picture, "render": picture, "difference": picture}
        )
        self._targets: dict[str, metrics.Target] = {}
        self._lock = threading.Lock()
        self._preview: Grade | None = None  # the last ``render`` of an agent episode
        self.validate_on_load(validate)

    # --- hooks ---------------------------------------------------------------------------------

    def load_tasks(self, source: str | Path | list[Mapping[str, Any]], canvas: tuple[int, int]) -> TaskSet:
        """The task set named or held by ``source`` (see `tasks`), posed on ``canvas``."""
        raise NotImplementedError

    def gate(self, code: str) -> Violation | None:
        """Why ``code`` may not be rendered (`gate`), or None."""
        raise NotImplementedError

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        if self.gate(code) is not None:
            return Job(steps=(Step(argv=("true",)),))  # nothing of a refused submission runs
        return self.render_job(code, limits or self.limits)

    def evaluate(self, task: Task, code: str) -> tuple[Grade, dict[str, str]]:
        violation = self.gate(code)
        if violation is not None:  # judged without a sandbox run
            return grader.refused(violation), {}
        return super().evaluate(task, code)

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:
        violation = self.gate(code)
        if violation is not None:
            return grader.refused(violation)
        target = self.target(task)
        for _ in range(RENDER_TRIES - 1):
            if not self.renderer_died(result):
                break
            result = self.executor.run(self.build_job(task, code))
        if self.renderer_died(result):
            self._control_render(task)
        grade = self.judge(target, result)
        if not self.difference_feedback or "difference" not in grade.artifacts:
            return grade
        said = Diagnostic(grader.difference_text(grade.artifacts["difference"]), file=self.file, severity="note",
                          code="difference")  # fmt: skip
        return replace(grade, diagnostics=(*grade.diagnostics, said))

    def renderer_died(self, result: RunResult) -> bool:
        """Whether the renderer itself died on ``result``'s render: not at a limit, and not
        of an error it reported in the submission. A renderer that can die by chance (a
        browser) says so, and the submission is rendered again (`RENDER_TRIES` in all)."""
        return False

    def _control_render(self, task: Task) -> None:
        """Render ``task``'s reference as a control once a submission's renders all died:
        if it dies too, the renderer is broken (`SandboxError`: never the submission's
        fault); if it renders, the submission is what kills the renderer."""
        result = self.executor.run(self.render_job(task.reference or "", self.limits))
        if self.renderer_died(result) or self.read_render(result) is None:
            said = result.steps[-1].stderr.decode(errors="replace").strip()[-300:]
            raise SandboxError(f"the {self.kind} renderer dies on the task's own reference too: {said or 'no picture'}")

    def judge(self, target: metrics.Target, result: RunResult) -> Grade:
        """The grade of a render ``result`` of a submission the gate let through."""
        nonce = result.steps[-1].argv[-1]
        return grader.grade(target, result, nonce, self.reward_weights, self.similarity, file=self.file)

    def check_task(self, task: Task) -> None:
        self.target(task)  # (its reference renders once, here)

    def prompt_images(self, task: Task) -> tuple[np.ndarray, ...]:
        return (self.target(task).image,)

    def check_solutions(self, task: Task) -> str | None:
        grade, _ = self.evaluate(task, task.reference or "")
        score = grade.metrics.get("similarity", 0.0)
        return None if score >= self.solved_at else f"its reference scores {score:.3f} against its own render"

    def reward_components(self, grade: Grade) -> dict[str, float]:
        return {"similarity": float(grade.metrics.get("similarity", 0.0)) if grade.status is Status.OK else 0.0}

    def solved(self, grade: Grade) -> bool:
        return grade.status is Status.OK and grade.metrics.get("similarity", 0.0) >= self.solved_at

    # --- agent mode ------------------------------------------------------------------------------

    def agent_stub(self) -> str:
        """The file an agent's workspace starts with: a submission that draws nothing."""
        raise NotImplementedError

    def render_prompt(self, task: Task) -> str:
        if self.mode != "agent":
            return task.prompt
        return re.sub(r"Answer with the [^.]* only\. ", f"Write it in {self.file}. ", task.prompt, count=1)

    def agent_setup(self, task: Task) -> AgentSetup:
        statement = (
            f"{self.render_prompt(task)}\n\n"
            "The target picture is in your observation (`target`); it is not in this workspace.\n"
        )
        instructions = (
            f"Write the answer in {self.file}. The `render` tool renders {self.file} as the grader does and says how "
            "alike it is to the target: the similarity the reward would be, each metric, and where the pictures "
            "differ (the observation's `render` and `difference` show it). It never shows the target. Call "
            f"`submit` when it is as close as you can make it: {self.file} is graded as it is then."
        )
        files = {"TASK.md": statement.encode(), self.file: self.agent_stub().encode()}
        return AgentSetup(files=files, submission=self.file, instructions=instructions)

    def agent_tools(self) -> tuple[FamilyTool, ...]:
        description = (
            f"Render {self.file} of the workspace as the grader does and compare it with the target: prints the "
            "similarity (what submit would score now), each metric, and a map of where the pictures differ. The "
            "observation's `render` and `difference` pictures show the render. Does not end the episode."
        )
        return (FamilyTool("render", description, self._render_tool),)

    def _render_tool(self, episode: AgentEpisode, arguments: Mapping[str, Any]) -> tuple[str, int]:
        """The ``render`` tool: the grade ``submit`` would give now, without its reward."""
        assert self.task is not None
        grade, problem = self.evaluate_task(self.task, episode.read_submission())
        if "infra_error" in problem:
            raise SandboxError(problem["infra_error"])
        self._preview = grade
        text = grade.feedback()
        if "difference" in grade.artifacts and not self.difference_feedback:  # (else the feedback has it)
            text += "\n" + grader.difference_text(grade.artifacts["difference"])
        return text, 0 if grade.status is Status.OK else 1

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self._preview = None
        return super().reset(seed=seed, options=options)

    def render(self) -> Any:
        """``render_mode="rgb_array"``: the target, the last render and their difference side
        by side, a uint8 ``(H, 3 W, 3)`` array (black where there is none yet); ``"ansi"``:
        the prompt and the last feedback."""
        if self.render_mode != "rgb_array":
            return super().render()
        empty = np.zeros((*self.canvas, 3), dtype=np.uint8)
        if self.task is None:
            return np.concatenate([empty] * 3, axis=1)
        shown = self.last_grade or self._preview
        artifacts = shown.artifacts if shown is not None else {}
        pictures = (self.target(self.task).image, artifacts.get("render", empty), artifacts.get("difference", empty))
        return np.concatenate(pictures, axis=1)

    # --- the parts -------------------------------------------------------------------------------

    def render_job(self, code: str, limits: Limits) -> Job:
        """The job that renders ``code`` on the canvas (a reference and a submission alike: a
        picture of another size is scaled to fit, see `render.rendered`)."""
        return Job(steps=(self.render_step(),), files={self.file: code.encode()}, limits=limits,
                   preload=self.preload)  # fmt: skip

    def render_step(self) -> Step:
        """The step that renders the job's file with `kind`'s renderer, under a fresh nonce
        (its last argument)."""
        height, width = self.canvas
        return Step(argv=("python", "-m", RENDERER, self.kind, str(width), str(height), secrets.token_hex(16)))

    def target(self, task: Task) -> metrics.Target:
        """``task``'s target picture (and what the metrics measure of it): its reference,
        rendered in the sandbox once per env."""
        with self._lock:  # (concurrent first steps render it once)
            if task.id not in self._targets:
                self._targets[task.id] = self._render_reference(task)
            return self._targets[task.id]

    def _render_reference(self, task: Task) -> metrics.Target:
        """The reference's render. It is trusted code: a render that fails is tried again
        (`REFERENCE_TRIES` in all) before the task is invalid, so that a renderer that died
        once (a Chromium crash on a loaded machine) does not condemn the task."""
        for _ in range(REFERENCE_TRIES):
            result = self.executor.run(self.render_job(task.reference or "", self.limits))
            failed = next((step for step in result.steps if not step.ok), None)
            rendered = self.read_render(result) if failed is None else None
            if rendered is not None:
                break
        else:
            said = (failed or result.steps[-1]).stderr.decode(errors="replace").strip()[-500:]
            raise InvalidTask(f"its reference does not render: {said or 'no picture'}")
        picture, record = rendered
        if metrics.is_blank(picture):
            raise InvalidTask("its reference renders a blank picture")
        picture.setflags(write=False)
        return metrics.Target(picture, record)

    def read_render(self, result: RunResult) -> tuple[np.ndarray, Any] | None:
        """The picture a render job made, and the record of what was drawn where the family
        compares one (None: no picture of the canvas's size)."""
        height, width = self.canvas
        step = result.steps[-1]
        picture = grader.decode(step.stdout, step.argv[-1], width, height)
        return None if picture is None else (picture, None)

    def _observation(self, grade: Grade | None) -> dict[str, Any]:
        observation = super()._observation(grade)
        assert self.task is not None
        empty = np.zeros((*self.canvas, 3), dtype=np.uint8)
        shown = grade or self._preview
        artifacts = shown.artifacts if shown is not None else {}
        observation["target"] = self.target(self.task).image.copy()
        observation["render"] = artifacts.get("render", empty)
        observation["difference"] = artifacts.get("difference", empty)
        return observation


class SVGFromImageEnv(VisualEnv):
    """Write the SVG that draws a target picture.

    ## Action space
    `UnicodeText`: an SVG document, raw or in a fenced ```svg (or ```xml) block.

    ## Observation space
    `codegym.spaces.observation_space` plus three pictures, each a uint8 ``Box(H, W, 3)``:
    ``target`` (what to draw), ``render`` (the last submission's render; zeros before one) and
    ``difference`` (where they differ, in 16 x 16 regions, black for the same). ``prompt``
    says the canvas size and what may be used; ``feedback`` gives the status and each metric.

    ## Rewards
    The similarity of the render to the target in [0, 1] (component ``similarity``): the
    weighted mean of ``pixel``, ``ssim``, ``edges`` and ``colour`` (`metrics`; the mix is
    `metrics.DEFAULT_WEIGHTS`, ``reward_weights=`` changes it, and ``similarity=`` adds a
    learned metric of the user's as ``learned``). Each metric is in
    ``info["grade"].metrics``. 0 when the SVG does not parse (``CE``), renders blank
    (``WA``), runs past its limits (``TLE``) or smuggles a raster (``HACK``).

    ## Episode end
    ``mode="single"``: after one submission; ``mode="refine"``: when the similarity reaches
    ``solved_at`` (0.99), or at ``max_episode_steps``.

    ## Registered configurations
    ``codegym/SVGFromImage-v1``: the 48 bundled pictures (``tasks="codegym-svg"``);
    ``tasks="generated"`` draws from the seeded generator; a file or rows in the svg-stack
    format (`tasks.load_svg_tasks`) pose public pictures.

    ## How it is judged
    1. The gate (`gate.check_svg`, on the host) refuses embedded rasters (``<image>``,
       ``<feImage>``, ``data:`` URLs), links outside the document, ``@import``,
       ``<foreignObject>`` and pixel painting (hundreds of one-pixel shapes), as ``HACK``
       with the construct and its line; past 256 KiB or 4,000 elements, ``CE``.
    2. librsvg renders the SVG on a white canvas in the sandbox, in a warm worker that loaded
       it once (`render`); only the pixels come out, in a frame tagged with a nonce. A
       picture of another size is scaled to fit, its aspect ratio kept and centred, the
       reference as a submission (an svg-stack icon of 24 x 24 is solved by its own SVG).
    3. The harness compares them with the target (`grader`), which never enters the sandbox.
    """

    family: ClassVar[str] = "SVGFromImage"
    requires: ClassVar[Requirements] = Requirements(tools=(Tool("rsvg-2", "librsvg2-2", library=True),))
    kind: ClassVar[str] = "svg"
    file: ClassVar[str] = "drawing.svg"
    bundled: ClassVar[str] = "codegym-svg"

    def load_tasks(self, source: str | Path | list[Mapping[str, Any]], canvas: tuple[int, int]) -> TaskSet:
        return load_svg_tasks(source, canvas=canvas)

    def gate(self, code: str) -> Violation | None:
        return check_svg(code)

    def agent_stub(self) -> str:
        height, width = self.canvas
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n</svg>\n'
        )


class ChartFromImageEnv(VisualEnv):
    """Write the matplotlib program that draws a target chart.

    ## Action space
    `UnicodeText`: a Python program using matplotlib (``plt``, ``np`` and ``matplotlib`` are
    already imported), raw or in a fenced ```python block.

    ## Observation space
    As `SVGFromImageEnv`'s: the prompt and feedback, plus the ``target``, ``render`` and
    ``difference`` pictures (``Box(300, 400, 3)`` by default).

    ## Rewards
    The similarity of the chart to the target in [0, 1] (component ``similarity``): the
    weighted mean (`CHART_WEIGHTS`; ``reward_weights=`` changes it) of the picture metrics
    (``pixel``, ``ssim``, ``edges``, ``colour``: `metrics`) and the ChartMimic-style scores of
    what the figure drew (``text``, ``chart_type``, ``colour_f1``, ``layout``: `records`),
    each in ``info["grade"].metrics``. 0 when the program raises (``RE``, with its
    traceback), draws nothing (``WA``), runs past its limits (``TLE``, ``MLE``) or draws a
    raster, reads files or carries pixels (``HACK``).

    ## Episode end
    As `SVGFromImageEnv`'s (``solved_at``: 0.99).

    ## Registered configurations
    ``codegym/ChartFromImage-v1``: the bundled charts (``tasks="codegym-charts"``);
    ``tasks="generated"``; ChartMimic rows or its released folder (`tasks.load_chart_tasks`).

    ## How it is judged
    1. The gate (`chart_gate.check_chart`, on the host) refuses rasters (``imshow``,
       ``figimage``, reading images), imports beyond plotting and arithmetic, file and
       interpreter access (``open``, ``eval``, private attributes) and literal data enough to
       paint pixels, as ``HACK`` with the construct and its line.
    2. In the sandbox, a warm worker with matplotlib loaded (`sandbox.PlottingExecutor`) runs
       the program, a new figure sized to the canvas (``figure.figsize``, 100 dpi) and
       numpy's and `random`'s generators seeded before it starts, and saves its figure at the
       canvas size as SVG, text as text (`plotting`). A second process, which the program
       never sees, renders that SVG with librsvg under a fresh nonce (`render`).
       matplotlib's own PNG is never read: the program's process could have written any
       picture; the SVG is checked again (an embedded raster in it is ``HACK``) and the
       pixels are librsvg's.
    3. The harness compares the pixels and the figure's record with the target's.
    """

    family: ClassVar[str] = "ChartFromImage"
    requires: ClassVar[Requirements] = Requirements(
        tools=(Tool("rsvg-2", "librsvg2-2", library=True),), modules=(Module("matplotlib", "visual"),)
    )
    kind: ClassVar[str] = "chart"
    metric_names: ClassVar[tuple[str, ...]] = (*metrics.METRICS, *records.CHART_METRICS)
    file: ClassVar[str] = "chart.py"
    preload: ClassVar[tuple[str, ...]] = (sandbox.PLOTTING, RENDERER)
    bundled: ClassVar[str] = "codegym-charts"
    default_canvas: ClassVar[tuple[int, int]] = (300, 400)
    default_limits: ClassVar[Limits] = CHART_LIMITS
    default_weights: ClassVar[Mapping[str, float]] = CHART_WEIGHTS

    def load_tasks(self, source: str | Path | list[Mapping[str, Any]], canvas: tuple[int, int]) -> TaskSet:
        return load_chart_tasks(source, canvas=canvas)

    def find_executor(self) -> Executor:
        choice = self._executor_choice
        return choice if isinstance(choice, Executor) else sandbox.shared_executor()

    def gate(self, code: str) -> Violation | None:
        return check_chart(code)

    def agent_stub(self) -> str:
        return "# plt, np and matplotlib are imported already: draw on the current figure.\n"

    def render_job(self, code: str, limits: Limits) -> Job:
        height, width = self.canvas
        plot = Step(argv=("python", "-m", sandbox.PLOTTING, str(width), str(height)))
        return Job(steps=(plot, self.render_step()), files={self.file: code.encode()}, limits=limits,
                   preload=self.preload, collect=(CHART_SVG,))  # fmt: skip

    def judge(self, target: metrics.Target, result: RunResult) -> Grade:
        figure = _figure(result)
        early = grader.program_failure(result.steps[0], file=self.file)
        if early is not None:
            return early
        violation = check_svg(figure, chart=True)
        if violation is not None:
            return grader.refused(violation)
        extra = records.scores(target.record, records.read(figure))
        nonce = result.steps[-1].argv[-1]
        return grader.grade(target, result, nonce, self.reward_weights, self.similarity, file=self.file, extra=extra)

    def read_render(self, result: RunResult) -> tuple[np.ndarray, Any] | None:
        rendered = super().read_render(result)
        return None if rendered is None else (rendered[0], records.read(_figure(result)))


def _figure(result: RunResult) -> str:
    """The SVG the chart runner saved of a program's figure ("" when it saved none)."""
    return result.files.get(CHART_SVG, b"").decode(errors="replace")


class HTMLFromScreenshotEnv(VisualEnv):
    """Write the HTML page (with its CSS) that looks like a target screenshot.

    ## Action space
    `UnicodeText`: an HTML document, raw or in a fenced ```html block.

    ## Observation space
    As `SVGFromImageEnv`'s: the prompt and feedback, plus the ``target``, ``render`` and
    ``difference`` pictures (``Box(300, 400, 3)`` by default).

    ## Rewards
    The similarity in [0, 1] (component ``similarity``): the weighted mean (`PAGE_WEIGHTS`;
    ``reward_weights=`` changes it) of the picture metrics (``pixel``, ``ssim``, ``edges``,
    ``colour``) and the Design2Code-style scores of the browser's layout (``block_match``,
    ``text``, ``position``, ``text_colour``, ``structure``: `page_scores`), each in
    ``info["grade"].metrics``. 0 when the browser cannot render it (``RE``), the render is blank
    (``WA``), past its limits (``TLE``, ``MLE``), or when the page embeds a raster, links out
    of itself or paints pixels (``HACK``).

    ## Episode end
    As `SVGFromImageEnv`'s (``solved_at``: 0.99).

    ## Registered configurations
    ``codegym/HTMLFromScreenshot-v0``: the bundled pages (``tasks="codegym-pages"``);
    ``tasks="generated"``; WebSight rows or a Design2Code folder (`tasks.load_page_tasks`).

    ## How it is judged
    1. The gate (`page_scores.check_page`, on the host): ``data:`` URLs, links to other files
       or hosts, frames and embeds, CSS pixel art, and (with ``javascript=True``) a canvas are
       ``HACK`` with the construct and its line.
    2. In the sandbox, Debian's Chromium, headless, its own sandbox off inside codegym's and
       no network, opens the page (`browser`) with scripts off (``javascript=True`` runs them on
       a virtual clock for one second); the step takes a screenshot and the browser's DOM
       snapshot (every box and text run, with its colour).
    3. The harness compares the pixels and the layout with the target's; a layout of hundreds
       of tiny coloured boxes is ``HACK`` (pixels painted as elements).
    """

    family: ClassVar[str] = "HTMLFromScreenshot"
    requires: ClassVar[Requirements] = Requirements(
        tools=(Tool(browser_page.CHROMIUM, "chromium"),), modules=(Module("PIL", "visual"),)
    )
    kind: ClassVar[str] = "page"
    file: ClassVar[str] = browser_page.PAGE
    preload: ClassVar[tuple[str, ...]] = (BROWSER,)
    metric_names: ClassVar[tuple[str, ...]] = (*metrics.METRICS, *page_scores.PAGE_METRICS)

    bundled: ClassVar[str] = "codegym-pages"
    default_canvas: ClassVar[tuple[int, int]] = (300, 400)
    default_limits: ClassVar[Limits] = PAGE_LIMITS
    default_weights: ClassVar[Mapping[str, float]] = PAGE_WEIGHTS

    def __init__(
        self, tasks: str | Path | TaskSet | list[Mapping[str, Any]] | None = None, *, javascript: bool = False,
        **options: Any,
    ) -> None:  # fmt: skip
        """``javascript``: run the page's scripts (on a one-second virtual clock); the other
        options are every visual env's (`VisualEnv`)."""
        self.javascript = javascript
        super().__init__(tasks, **options)

    def load_tasks(self, source: str | Path | list[Mapping[str, Any]], canvas: tuple[int, int]) -> TaskSet:
        return load_page_tasks(source, canvas=canvas)

    def gate(self, code: str) -> Violation | None:
        return page_scores.check_page(code, javascript=self.javascript)

    def agent_stub(self) -> str:
        return "<!DOCTYPE html>\n<html>\n<head>\n<style>\n</style>\n</head>\n<body>\n</body>\n</html>\n"

    def render_step(self) -> Step:
        height, width = self.canvas
        argv = (
            "python",
            "-m",
            BROWSER,
            str(width),
            str(height),
            secrets.token_hex(16),
            "on" if self.javascript else "off",
        )
        # Chromium probes for sockets at start-up (there is no network to reach), and maps far more
        # memory than it touches (thread stacks, V8's heaps): where rlimits stand in for a cgroup,
        # that mapped memory is allowed for (the cgroup tiers count only what is used).
        # Its profile goes in the step's own temp dir (the container tier's /tmp is the host's).
        env = (("HOME", "$TMPDIR"), (browser_page.PROFILE_ENV, "$TMPDIR/chromium-profile"))
        return Step(argv=argv, env=env, sockets="errno", memory_slack_bytes=CHROMIUM_SLACK)

    def renderer_died(self, result: RunResult) -> bool:
        step = result.steps[-1]
        return step.limit is None and browser_page.FAILED in step.stderr.decode(errors="replace")

    def find_executor(self) -> Executor:
        """The env's executor, its pages rendered by warm browsers where they can live
        (`warm.WarmPageExecutor`: the local backend in a tier with namespaces)."""
        executor = super().find_executor()
        return warm.WarmPageExecutor(executor) if warm.can_warm(executor) else executor  # type: ignore[arg-type]

    def close(self) -> None:
        executor = self._executor
        super().close()
        if isinstance(executor, warm.WarmPageExecutor):  # (its warm browsers are this env's; its base is not)
            executor.close()

    def judge(self, target: metrics.Target, result: RunResult) -> Grade:
        step = result.steps[-1]
        decoded = self.read_render(result) if step.ok else None
        said = step.stderr.decode(errors="replace")
        if decoded is None and step.limit is None and browser_page.FAILED in said:  # (the client's word)
            why = said[said.rindex(browser_page.FAILED) :].splitlines()[0]
            return Grade(Status.RE, message=why, metrics={"similarity": 0.0})
        if decoded is None:
            return grader.grade(target, result, step.argv[-2], self.reward_weights, file=self.file)  # (its failure)
        picture, record = decoded
        violation = page_scores.painted(record)
        if violation is not None:
            return grader.refused(violation)
        extra = page_scores.scores(target.record, record, self.canvas)
        return grader.grade(target, result, step.argv[-2], self.reward_weights, self.similarity, file=self.file,
                            extra=extra, picture=picture)  # fmt: skip

    def check_task(self, task: Task) -> None:
        if self.javascript and getattr(self.executor, "isolation", None) == "container":
            raise SandboxError(
                "HTMLFromScreenshot(javascript=True) cannot run in the 'container' isolation tier: with scripts on, "
                "Chromium runs a renderer process, which reads its own /proc (/proc/self/fd), and that tier allows it "
                "a step's first process alone; use the 'full' or 'userns' tier (LocalExecutor(isolation=...), see "
                "`codegym doctor`), or scripts off"
            )
        super().check_task(task)

    def read_render(self, result: RunResult) -> tuple[np.ndarray, Any] | None:
        height, width = self.canvas
        step = result.steps[-1]
        return grader.decode_page(step.stdout, step.argv[-2], width, height)

    def render_prompt(self, task: Task) -> str:
        prompt = super().render_prompt(task)
        if not self.javascript:
            return prompt
        return prompt.replace("with scripts off", "with scripts on (their timers get one virtual second)", 1)
