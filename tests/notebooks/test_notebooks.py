"""Every notebook in notebooks/ executes top to bottom without an error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial_new_family.md"
NEW_FAMILY = next((p for p in NOTEBOOKS if p.name == "new_family.ipynb"), None)
EXECUTED: dict[str, Any] = {}  # notebook name -> the notebook as test_notebook_runs executed it


def test_there_are_notebooks() -> None:
    assert any(p.name == "quickstart.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    EXECUTED[path.name] = notebook


def test_new_family_notebook_is_the_tutorial_page() -> None:
    """The notebook runs the tutorial page's program: its code cells are the page's python blocks, in order."""
    assert NEW_FAMILY is not None
    cells = [cell.source.strip() for cell in nbformat.read(NEW_FAMILY, as_version=4).cells if cell.cell_type == "code"]
    blocks = [block.strip() for block in re.findall(r"^```python\n(.*?)^```$", TUTORIAL.read_text(), re.M | re.S)]
    assert len(cells) >= 8 and cells == blocks


def test_new_family_notebook_checks_its_family() -> None:
    """Its last cell asserts that the family passes check_env and scores a right and a wrong query, and it ran."""
    assert NEW_FAMILY is not None
    notebook = EXECUTED.get(NEW_FAMILY.name)
    if notebook is None:  # (run alone: test_notebook_runs did not execute it)
        notebook = nbformat.read(NEW_FAMILY, as_version=4)
        client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3")
        client.execute(cwd=str(NEW_FAMILY.parent))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "check_env(env.unwrapped" in "".join(cell.source for cell in code)
    last = code[-1]
    assert "Status.OK" in last.source and '["OK", "OK", "WA", "CE", "RE"]' in last.source
    printed = "".join(o.get("text", "") for o in last.outputs if o.output_type == "stream")
    assert printed.strip() == "SQLQuery: check_env passed; references OK; wrong queries WA, CE, RE"


def executed(path: Path) -> Any:
    """``path`` as test_notebook_runs executed it (executed here when that test did not run)."""
    notebook = EXECUTED.get(path.name)
    if notebook is None:
        notebook = nbformat.read(path, as_version=4)
        client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3")
        client.execute(cwd=str(path.parent))
        EXECUTED[path.name] = notebook
    return notebook


PLOTTING = [p for p in NOTEBOOKS if "plt." in p.read_text(encoding="utf-8")]
SCORING = [p for p in NOTEBOOKS if "codegym.score(" in p.read_text(encoding="utf-8")]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", PLOTTING, ids=lambda p: p.name)
def test_plots_are_drawn_inline(path: Path) -> None:
    """A notebook that draws with matplotlib shows its figures as inline PNGs, never as the text of
    a Figure object (what a notebook that forces the Agg backend shows: ``<Figure size ...>``)."""
    assert any(p.name == "optimize_refinement.ipynb" for p in PLOTTING)
    outputs = [o for cell in executed(path).cells if cell.cell_type == "code" for o in cell.outputs]
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    as_text = [o for o in outputs if "<Figure" in str(o.get("data", {}).get("text/plain", "")) and o not in pictures]
    assert pictures and not as_text, (path.name, len(pictures), as_text)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", SCORING, ids=lambda p: p.name)
def test_batch_scoring_shows_progress(path: Path) -> None:
    """A notebook that scores a batch shows a progress bar as it goes (``progress=True``: on stderr)."""
    cells = [cell for cell in executed(path).cells if cell.cell_type == "code" and "codegym.score(" in cell.source]
    shown = [cell for cell in cells if "progress=True" in cell.source]
    assert shown, f"{path.name}: no codegym.score call with progress=True"
    stderr = "".join(o.get("text", "") for cell in shown for o in cell.outputs if o.get("name") == "stderr")
    assert "scoring: 100%" in stderr, (path.name, stderr[-500:])
