"""Sphinx configuration of codegym's documentation (Markdown pages through MyST, the API
reference from the code's Google-style docstrings through autodoc and napoleon).

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (``pip install -e
'.[docs]'``). The test suite builds it the same way and runs every page's ``python`` blocks
(``tests/docs/test_docs.py``).
"""

from __future__ import annotations

import re

project = "codegym"
author = "the codegym authors"
copyright = "the codegym authors"
# codegym must be installed (pip install -e '.[docs]'): envs/ and wrappers/ are importable
# only as codegym.envs and codegym.wrappers, through the install's package mapping.
from codegym import __version__ as release  # noqa: E402

version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
# Nothing outside this machine is reachable in CI, so no intersphinx inventories.
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# --- MyST -----------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links

# --- autodoc and napoleon -------------------------------------------------------------------
# Single backticks in docstrings name Python objects: a link where the name resolves.
default_role = "py:obj"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented_params"
autodoc_preserve_defaults = True
autodoc_default_options = {"show-inheritance": True}
# Modules that import a heavy or optional dependency at import time: verl's agent loop
# (torch, ray, vLLM's client...) is documented from a stand-in so the build needs none of it.
autodoc_mock_imports = ["verl", "omegaconf"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_attr_annotations = True
napoleon_custom_sections = [("Options", "params_style")]  # reset(options=...) keys

# --- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"codegym {release}".strip()
html_static_path: list[str] = []
html_show_sourcelink = False

# Some docstrings are written with Markdown habits that reStructuredText reads otherwise: the
# env classes' fixed template has section headings ("## Action space"), which become rubrics,
# and a Markdown fence opener in prose ("a fenced ```python block") becomes a literal.
_HEADING = re.compile(r"^(\s*)#{2,}\s+(\S.*)$")
_FENCE = re.compile(r"(?<![`\w])```(\w+)(?![`\w])")


def _markdown_habits(app, what, name, obj, options, lines: list[str]) -> None:
    out: list[str] = []
    for line in lines:
        match = _HEADING.match(line)
        if match:
            out += ["", f"{match[1]}.. rubric:: {match[2]}", ""]
        else:
            out.append(_FENCE.sub(r"`````\1``", line))
    lines[:] = out


def _no_inline_types(app, what, name, obj, options, lines: list[str]) -> None:
    # Napoleon reads the first line of a property's or attribute's docstring as "type:
    # description" and would show "The tasks known to be ungradable, with why: ..." as a type.
    # The types come from the annotations; an empty comment first keeps the line as written.
    if what in ("property", "attribute", "data") and any(line.strip() for line in lines):
        lines[:0] = ["..", ""]


def setup(app) -> None:
    # Before napoleon (priority 500), which would read the headings as text.
    app.connect("autodoc-process-docstring", _markdown_habits, priority=400)
    app.connect("autodoc-process-docstring", _no_inline_types, priority=400)
