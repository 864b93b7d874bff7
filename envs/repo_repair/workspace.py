"""An agent's repository: the buggy tree as a fresh git repository, and its environment.

The workspace is ``git init`` and one commit of the buggy tree (fixed author and date, so the
same task gives the same repository): no history, remote, tag or stash that could hold the
fix, and ``git diff`` shows the agent its own changes. The hidden test files are not in it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from codegym.envs.repo_repair.library import Library
from codegym.envs.repo_repair.library import environment as test_environment

if TYPE_CHECKING:
    from codegym.envs.repo_repair.tasks import Image

AUTHOR = ("GIT_AUTHOR_NAME", "codegym"), ("GIT_AUTHOR_EMAIL", "codegym@localhost")
DATE = "2000-01-01T00:00:00+0000"
# Git refuses a repository that another uid owns (the layer is written by the worker); and the
# system's /etc/gitconfig may be out of the sandbox's reach (the `container` tier).
GIT_ENV = (("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "safe.directory"), ("GIT_CONFIG_VALUE_0", "*"),
           ("GIT_CONFIG_NOSYSTEM", "1"))  # fmt: skip


def git_repository(files: Mapping[str, bytes], message: str) -> dict[str, bytes]:
    """``files`` and a ``.git`` holding them as the one commit (packed, without hooks)."""
    with tempfile.TemporaryDirectory(prefix="codegym-repo-") as root:
        for path, content in files.items():
            target = Path(root, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root, "GIT_CONFIG_NOSYSTEM": "1",
            **dict(AUTHOR), "GIT_COMMITTER_NAME": "codegym", "GIT_COMMITTER_EMAIL": "codegym@localhost",
            "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE,
        }  # fmt: skip
        for command in (
            ["git", "init", "-q", "-b", "main", "--template="],
            ["git", "add", "-A", "-f"],
            ["git", "commit", "-q", "--no-verify", "-m", message],
            ["git", "repack", "-a", "-d", "-q"],  # (refs stay loose: git needs a refs/ folder)
            ["git", "prune-packed", "-q"],
        ):
            subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
        git = Path(root, ".git")
        return {
            **files,
            ".git/info/exclude": b"/.codegym/\n",  # (the tools' own state)
            **{
                f".git/{path.relative_to(git).as_posix()}": path.read_bytes()
                for path in sorted(git.rglob("*"))
                if path.is_file() and not path.is_symlink()
            },
        }


def tool_env(library: Library, image: Image | None = None) -> tuple[tuple[str, str], ...]:
    """The environment of the agent's commands: the test environment's ``pytest`` and
    site-packages with this interpreter as ``python3`` (or a task image's own environment
    first on ``PATH``), no bytecode, git that accepts the tree."""
    common = (("PYTHONDONTWRITEBYTECODE", "1"), ("PYTEST_ADDOPTS", "-p no:cacheprovider"), *GIT_ENV)
    if image is not None:
        return (("PATH", f"{os.path.dirname(image.python)}:/usr/local/bin:/usr/bin:/bin"), *common)
    environment = test_environment(library)
    interpreter = os.path.dirname(os.path.realpath(sys.executable))
    python_path = ":".join([*library.python_path, environment.site])
    return (
        ("PATH", f"{environment.bin}:{interpreter}:/usr/local/bin:/usr/bin:/bin"),
        ("PYTHONPATH", python_path),
        *common,
    )
