"""A SWE-bench-format task made here: a repository whose area() adds instead of multiplying."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

SHAPES_FIXED = "def area(w, h):\n    return w * h\n\n\ndef name():\n    return 'shapes'\n"
SHAPES_TEST = "from shapes import name\n\n\ndef test_name():\n    assert name() == 'shapes'\n"
GOLD = "--- a/shapes/__init__.py\n+++ b/shapes/__init__.py\n@@ -1,2 +1,2 @@\n def area(w, h):\n-    return w + h\n+    return w * h\n"
TEST_PATCH = (
    "--- /dev/null\n+++ b/tests/test_area.py\n@@ -0,0 +1,5 @@\n+from shapes import area\n+\n+\n"
    "+def test_area():\n+    assert area(2, 3) == 6\n"
)


def git(root: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(root), "PATH": "/usr/bin:/bin"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def shapes_repository(repo: Path) -> str:
    """A git repository whose history holds the fix, then the bug; returns the buggy commit."""
    (repo / "shapes").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "tests/test_name.py").write_text(SHAPES_TEST)
    (repo / "shapes/__init__.py").write_text(SHAPES_FIXED)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the fix, in the history")
    (repo / "shapes/__init__.py").write_text(SHAPES_FIXED.replace("w * h", "w + h"))
    git(repo, "commit", "-qam", "buggy")
    return git(repo, "rev-parse", "HEAD").strip()


def swe_row(base_commit: str, *, encoded: bool = False) -> dict[str, Any]:
    """The task as SWE-bench publishes one (``encoded``: its lists as JSON strings)."""
    failing = ["tests/test_area.py::test_area"]
    return {
        "instance_id": "acme__shapes-1", "repo": "acme/shapes", "base_commit": base_commit, "patch": GOLD,
        "test_patch": TEST_PATCH, "FAIL_TO_PASS": json.dumps(failing) if encoded else failing,
        "PASS_TO_PASS": ["tests/test_name.py::test_name"], "problem_statement": "area() adds instead of multiplying",
    }  # fmt: skip
