"""The documentation: the site builds with warnings as errors and without a broken local link,
and every page's examples run.

Every fenced ``python`` block of every ``docs/**/*.md`` page runs here, in page order, all
blocks of a page in one namespace, in a fresh interpreter per page (cwd a temporary folder),
so no example goes stale. A block that cannot run here is preceded by the line
``<!-- not run: REASON -->``; a marker without a reason, or one not followed by a python
block, fails. Output shown in a page is not compared.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import codegym

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(
    (page for page in DOCS.rglob("*.md") if not any(part.startswith("_") for part in page.relative_to(DOCS).parts)),
    key=lambda page: page.relative_to(DOCS).as_posix(),
)  # not _build/ or _static/
PAGE_TIMEOUT_S = 300
BUILD_TIMEOUT_S = 600
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")
# Runs a page's blocks in one namespace; each block is compiled under the page's path, padded
# so that a traceback names the page's own line.
RUNNER = """\
import json, sys
namespace = {"__name__": "__main__"}
for path, line, code in json.load(open(sys.argv[1], encoding="utf-8")):
    exec(compile("\\n" * (line - 1) + code, path, "exec"), namespace)
"""


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, the line of its fence and of its first code
    line (1-based), its text, and the reason of the not-run marker just above it ("" for a
    marker without one, None without a marker)."""

    language: str
    fence_line: int
    line: int
    code: str
    not_run: str | None


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a page's text, in order."""
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        closing = re.compile(rf"^[ \t]*{re.escape(fence)}{re.escape(fence[0])}*[ \t]*$")
        end = i + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = [line.removeprefix(indent) for line in lines[i + 1 : end]]
        marker = NOT_RUN.match(lines[i - 1]) if i > 0 else None
        info = opening["info"].split()
        found.append(
            Block(
                language=info[0] if info else "",
                fence_line=i + 1,
                line=i + 2,
                code="\n".join(body) + "\n",
                not_run=(marker["reason"] or "").strip() if marker else None,
            )
        )
        i = end + 1
    return found


def page_id(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def test_pages_exist() -> None:
    assert (DOCS / "index.md").is_file() and (DOCS / "conf.py").is_file()
    assert len(PAGES) > 10, [page_id(page) for page in PAGES]


@dataclass(frozen=True)
class Site:
    """The site as one sphinx-build made it: its output folder, or why the build failed."""

    html: Path
    failure: str | None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The site built once for this module's checks, outside the checkout, warnings as errors."""
    if importlib.util.find_spec("sphinx") is None:
        pytest.skip("sphinx is not installed: pip install -e '.[docs]'")
    html = tmp_path_factory.mktemp("docs") / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q", str(DOCS), str(html)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False)
    failure = None if done.returncode == 0 else f"exit {done.returncode}:\n{done.stderr}\n{done.stdout}"
    return Site(html, failure)


@pytest.mark.timeout(BUILD_TIMEOUT_S + 60)
def test_site_builds_without_warnings(site: Site) -> None:
    assert site.failure is None, f"sphinx-build failed ({site.failure})"
    built = {path.relative_to(site.html).as_posix() for path in site.html.rglob("*.html")}
    missing = {page_id(page)[: -len(".md")] + ".html" for page in PAGES} - built
    assert not missing, f"pages not built (in no toctree?): {sorted(missing)}"


@pytest.mark.timeout(BUILD_TIMEOUT_S + 60)
def test_site_has_no_broken_local_link(site: Site) -> None:
    """Every href and src of every built page that stays in the site (the generated API and source
    pages included) names a file that was written and, with a #fragment, an anchor in it."""
    assert site.failure is None, f"sphinx-build failed ({site.failure})"
    broken = broken_links(site.html)
    assert not broken, f"{len(broken)} broken local links (page: link: why):\n" + "\n".join(broken)


class _Anchors(HTMLParser):
    """The ids (and names) of a page, and its links with the tag and attribute holding each."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value is not None and key in ("id", "name"):
                self.ids.add(value)
            elif value is not None and key in ("href", "src"):
                self.links.append(value)


def broken_links(html: Path) -> list[str]:
    """Each local link of the site in ``html`` whose file or anchor is missing, as ``page: link: why``."""
    pages: dict[Path, _Anchors] = {}
    for path in sorted(html.rglob("*.html")):
        parsed = _Anchors()
        parsed.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = parsed
    broken = []
    for path, parsed in pages.items():
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:  # (the site links nowhere outside: nothing is reachable in CI)
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            target = target / "index.html" if target.is_dir() else target
            where = f"{path.relative_to(html.resolve()).as_posix()}: {link}"
            if not target.is_file():
                broken.append(f"{where}: no such file")
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{where}: no anchor {parts.fragment!r} in it")
    return broken


def test_broken_links_finds_missing_files_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "codegym.html").write_text('<h1 id="codegym.grade.step_failure">x</h1><a href="#top">t</a>')
    (tmp_path / "index.html").write_text(
        '<a id="top" href="api/codegym.html#codegym.grade.step_failure">ok</a>'
        '<a href="api/codegym.html#codegym.step_failure">no anchor</a>'
        '<img src="_images/gone.png"><a href="api/">a folder</a><a href="https://example.org/x.html">out</a>'
    )
    assert broken_links(tmp_path) == [
        "api/codegym.html: #top: no anchor 'top' in it",
        "index.html: api/codegym.html#codegym.step_failure: no anchor 'codegym.step_failure' in it",
        "index.html: _images/gone.png: no such file",
        "index.html: api/: no such file",
    ]


def test_the_tutorial_names_only_documented_objects(site: Site) -> None:
    """Every name in the tutorial's table of the public API has an entry in the API reference under
    a name it is imported by: ``codegym.<name>``, or a package that exports it in ``__all__``
    (``codegym.executor.Job``), not only the module defining it (``codegym.grade.step_failure``)."""
    assert site.failure is None, f"sphinx-build failed ({site.failure})"
    text = (DOCS / "tutorial_new_family.md").read_text(encoding="utf-8")
    table = text[text.index("## The public API a family uses") :].split("\n## ")[0]
    rows = [row.split(" | ")[0] for row in table.splitlines() if row.startswith("| `")]
    names = {name for row in rows for name in re.findall(r"`(\w+)`", row)}
    assert {"CodeEnv", "step_failure", "pass_metrics", "Scorer", "Job"} <= names, names
    reference = _Anchors()
    for page in sorted((site.html / "api").glob("*.html")):
        reference.feed(page.read_text(encoding="utf-8"))
    undocumented = [name for name in sorted(names) if not any(exported(anchor, name) for anchor in reference.ids)]
    assert not undocumented, f"in the tutorial's table, not in the API reference under an exported name: {undocumented}"


def exported(anchor: str, name: str) -> bool:
    """Whether ``anchor`` is ``<package>.<name>`` for a package that exports codegym's ``name``."""
    package, _, last = anchor.rpartition(".")
    if last != name or not package.startswith("codegym"):
        return False
    try:
        module = importlib.import_module(package)
    except ImportError:  # (a class's member: codegym.Scorer.score)
        return False
    return name in getattr(module, "__all__", ()) and getattr(module, name) is getattr(codegym, name)


def test_exported_names() -> None:
    assert exported("codegym.step_failure", "step_failure") and exported("codegym.executor.Job", "Job")
    assert not exported("codegym.grade.step_failure", "step_failure")  # defined there, not exported
    assert not exported("codegym.Scorer.score", "score") and not exported("codegym.Scorer.x.score", "score")


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_not_run_markers_have_reasons(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    problems = marker_problems(text)
    assert not problems, "\n".join(f"{page_id(page)}:{problem}" for problem in problems)


def marker_problems(text: str) -> list[str]:
    """Each not-run marker outside a block must stand just above a python block and give a reason."""
    found = blocks(text)
    by_fence = {block.fence_line: block for block in found}
    inside = {n for block in found for n in range(block.fence_line, block.line + block.code.count("\n") + 1)}
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number in inside or not re.match(r"^\s*<!--\s*not run\b", line):
            continue
        block = by_fence.get(number + 1)
        if block is None or block.language != "python":
            problems.append(f"{number}: a not-run marker must stand on the line just above a ```python fence")
        elif not block.not_run:
            problems.append(f"{number}: a not-run marker needs a reason: <!-- not run: REASON -->")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=page_id)
@pytest.mark.timeout(PAGE_TIMEOUT_S + 60)
def test_page_examples_run(page: Path, tmp_path: Path) -> None:
    runnable = [b for b in blocks(page.read_text(encoding="utf-8")) if b.language == "python" and b.not_run is None]
    if not runnable:
        pytest.skip(f"{page_id(page)} has no python block to run")
    try:
        done = run_blocks(page, runnable, tmp_path)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{page_id(page)}: its examples ran past {PAGE_TIMEOUT_S} s\n{e.stdout or ''}\n{e.stderr or ''}")
    assert done.returncode == 0, f"{page_id(page)}: an example failed (exit {done.returncode}):\n{done.stderr}"


def run_blocks(page: Path, runnable: list[Block], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``runnable`` in one fresh interpreter whose working directory is an empty folder."""
    script = tmp_path / "blocks.json"
    script.write_text(json.dumps([(str(page), block.line, block.code) for block in runnable]), encoding="utf-8")
    work = tmp_path / "cwd"
    work.mkdir()
    command = [sys.executable, "-c", RUNNER, str(script)]
    return subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=PAGE_TIMEOUT_S, check=False)


def test_blocks_share_a_namespace_and_a_failure_names_the_page_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# P\n\n```python\nx = 41\n```\n\n```python\nprint(x + 1)\nraise ValueError('stale')\n```\n")
    done = run_blocks(page, blocks(page.read_text()), tmp_path)
    assert done.returncode == 1 and done.stdout == "42\n"
    assert f'File "{page}", line 9' in done.stderr and "ValueError: stale" in done.stderr


PARSER_SAMPLE = """\
# T
<!-- not run: needs a GPU -->
```python
x = 1
```

- item

  ````python
  y = 2
  ````
<!-- not run -->
```python
z = 3
```
<!-- not run: reason -->
```text
out
```
<!-- not run: stray -->

```{toctree}
<!-- not run -->
```
"""


def test_block_parser_and_markers() -> None:
    assert [(b.language, b.fence_line, b.line, b.code, b.not_run) for b in blocks(PARSER_SAMPLE)] == [
        ("python", 3, 4, "x = 1\n", "needs a GPU"),
        ("python", 9, 10, "y = 2\n", None),
        ("python", 13, 14, "z = 3\n", ""),
        ("text", 17, 18, "out\n", "reason"),
        ("{toctree}", 22, 23, "<!-- not run -->\n", None),
    ]
    assert marker_problems(PARSER_SAMPLE) == [
        "12: a not-run marker needs a reason: <!-- not run: REASON -->",
        "16: a not-run marker must stand on the line just above a ```python fence",
        "20: a not-run marker must stand on the line just above a ```python fence",
    ]


README = DOCS.parent / "README.md"


@pytest.mark.timeout(PAGE_TIMEOUT_S + 60)
def test_readme_examples_run_as_pasted(tmp_path: Path) -> None:
    """Every python block of the README runs, in page order, in one namespace, as pasted: none is
    marked not run, and none leans on a name it does not define (``first_try``, ``code``, ``...``)."""
    python = [block for block in blocks(README.read_text(encoding="utf-8")) if block.language == "python"]
    assert len(python) >= 4 and all(block.not_run is None for block in python), [b.line for b in python]
    try:
        done = run_blocks(README, python, tmp_path)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"README.md: its examples ran past {PAGE_TIMEOUT_S} s\n{e.stdout or ''}\n{e.stderr or ''}")
    assert done.returncode == 0, f"README.md: an example failed (exit {done.returncode}):\n{done.stderr}"
    printed = done.stdout.splitlines()
    for expected in ("1.0 Status.OK 1.0", "Status.CE False", "1.0 True 2", "['OK', 'WA']", "[['OK', 'WA', 'CE']]",
                     "1_A. Sum of two 1.0"):  # fmt: skip
        assert expected in printed, (expected, done.stdout)


def test_task_sources_covers_every_registered_env() -> None:
    """docs/task_sources.md's table has a row for each registered env's family, linking its page,
    and the page gives each family's formats an example."""
    text = (DOCS / "task_sources.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| \[(\w+)\]\((families/\w+\.md)\) \|", text, re.M))
    families = {env_id.removeprefix("codegym/").rsplit("-v", 1)[0] for env_id in codegym_env_ids()}
    assert families <= set(rows), families - set(rows)
    assert all((DOCS / page).is_file() for page in rows.values())
    examples = "".join(block.code for block in blocks(text) if block.language == "python")
    for env_id in codegym_env_ids():
        assert f'"{env_id}"' in examples, f"docs/task_sources.md has no example that uses {env_id}"


def codegym_env_ids() -> list[str]:
    import gymnasium as gym

    return sorted(env_id for env_id in gym.registry if env_id.startswith("codegym/"))
