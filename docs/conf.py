"""Sphinx configuration of codegym's documentation (Markdown pages through MyST, the API
reference from the code's Google-style docstrings through autodoc and napoleon).

Build, outside the checkout: ``python -m sphinx -W --keep-going -b html docs /tmp/codegym-docs``
(after ``pip install -e '.[docs]'``, or ``'.[all]'``). The test suite builds it the same way, checks
every local link of the built pages, and runs every page's ``python`` blocks
(``tests/docs/test_docs.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

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


# viewcode writes each source page's "[docs]" back-links under one module prefix for the whole
# module, the one of the first object it meets from it. A module whose objects are documented
# under two names (codegym.Task, re-exported, and codegym.task.read_rows, not) then gets links
# to anchors that do not exist (#codegym.read_rows). Each link is pointed at the anchor of the
# object as it is documented; the docs test checks every local link of the built site.
_BACKLINK = re.compile(r'(<a class="viewcode-back" href="[^"#]*#)([^"]+)(")')


def _backlink_target(module: str, anchor: str, objects: dict) -> str:
    if anchor in objects:
        return anchor
    parents = [".".join(module.split(".")[: n + 1]) for n in range(module.count(".") + 1)]
    for written in parents:
        if anchor.startswith(written + "."):
            name = anchor[len(written) + 1 :]
            for documented in (module, *parents):
                entry = objects.get(f"{documented}.{name}")
                if entry is not None:
                    return entry.node_id
    return anchor  # left as it is: the docs test reports it


# Its index of source pages also lists modules it found no source page for (verl's agent loop
# where verl is mocked): such an entry is dropped. The module pages are written before the index.
_INDEX_ENTRY = re.compile(r'<li><a href="([^"]+)">[^<]*</a></li>\n?')


def _fix_viewcode_pages(app, pagename: str, templatename, context: dict, doctree) -> None:
    if not pagename.startswith("_modules/") or "body" not in context:
        return
    if pagename == "_modules/index":
        written = Path(app.outdir, "_modules")
        context["body"] = _INDEX_ENTRY.sub(lambda m: m[0] if (written / m[1]).is_file() else "", context["body"])
        return
    module = pagename.removeprefix("_modules/").replace("/", ".")
    objects = app.env.get_domain("py").objects
    context["body"] = _BACKLINK.sub(lambda m: m[1] + _backlink_target(module, m[2], objects) + m[3], context["body"])


def setup(app) -> None:
    # Before napoleon (priority 500), which would read the headings as text.
    app.connect("autodoc-process-docstring", _markdown_habits, priority=400)
    app.connect("autodoc-process-docstring", _no_inline_types, priority=400)
    app.connect("html-page-context", _fix_viewcode_pages)
