"""The pictures of docs/families/visual.md are what running the envs makes, and the page
quotes their grades."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[3]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("visual_pictures", ROOT / "scripts" / "visual_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("visual_pictures", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_docs_pictures_and_grades_are_what_the_envs_make() -> None:
    script = _script()
    page = (ROOT / "docs" / "families" / "visual.md").read_text()
    for name, (env, task_id, code) in script.near_misses().items():
        try:
            strip, grade = script.picture(env, task_id, code)
        finally:
            env.close()
        committed = np.asarray(Image.open(script.FOLDER / f"{name}.png").convert("RGB"))
        assert committed.shape == strip.shape, name
        assert np.abs(committed.astype(int) - strip.astype(int)).mean() < 0.5, name  # (fonts may hint a pixel apart)
        assert f"`{grade.message}`" in page, (name, grade.message)
