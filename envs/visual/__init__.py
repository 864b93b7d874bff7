"""Visual-to-code: draw a target picture in code, judged by rendering it (``codegym/SVGFromImage-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/SVGFromImage-v1",
    entry_point="codegym.envs.visual.env:SVGFromImageEnv",
    kwargs={"tasks": "codegym-svg"},
)
register(
    id="codegym/ChartFromImage-v1",
    entry_point="codegym.envs.visual.env:ChartFromImageEnv",
    kwargs={"tasks": "codegym-charts"},
)
register(
    id="codegym/HTMLFromScreenshot-v0",
    entry_point="codegym.envs.visual.env:HTMLFromScreenshotEnv",
    kwargs={"tasks": "codegym-pages"},
)
