"""What every tool program run inside the sandbox shares (stdlib only): reading its JSON
arguments, resolving the model's paths inside the workspace, the tools' own folder, printing.

A tool program is run as ``python -m codegym.tools.<name>`` with the current directory at the
workspace root and its arguments as a JSON object on stdin; `serve` runs its ``run(args, root)``
and prints what it returns. The workspace is written by the model, so nothing in it is trusted.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Mapping
from typing import Any

STATE = ".codegym"  # the tools' own folder in the workspace (undo history, bash output logs)


class ToolError(Exception):
    """A tool-level error: the message, for the model, says what was wrong and what is expected."""


def resolve_path(root: str, path: object) -> tuple[str, str]:
    """Resolve a path the model gave against the workspace, following symlinks.

    Args:
        root: The workspace root.
        path: Relative to the root, or absolute under it.

    Returns:
        The resolved absolute path, and that path relative to the root (``.`` for the root), for messages.

    Raises:
        ToolError: ``path`` is not a non-empty string, or resolves outside the workspace.
    """
    if not isinstance(path, str) or not path:
        raise ToolError("`path` must be a non-empty string: a path relative to the workspace, or absolute under it")
    base = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(base, path))  # join keeps an absolute path as it is
    except (OSError, ValueError) as e:
        raise ToolError(f"`path` {path!r} cannot be used: {e}") from e
    if os.path.commonpath([base, real]) != base:
        raise ToolError(
            f"{display(path)} resolves to a place outside the workspace (through '..', an absolute path or a "
            "symlink); only files inside the workspace can be used"
        )
    return real, os.path.relpath(real, base)


def is_state(shown: str) -> bool:
    """Whether a workspace-relative path lies in the tools' reserved `.codegym/` folder."""
    return shown == STATE or shown.startswith(STATE + os.sep)


def state_dir(root: str, *parts: str) -> str:
    """Return the folder ``.codegym/<parts...>`` of the workspace, made when missing.

    Each level is made one at a time and checked to be a plain directory, so that a symlink the model planted at
    ``.codegym`` cannot send the tools' writes outside the workspace.

    Raises:
        ToolError: A level exists as something other than a directory.
    """
    base = os.path.realpath(root)
    path = base
    for part in (STATE, *parts):
        path = os.path.join(path, part)
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
        except OSError as e:
            raise ToolError(f"cannot make the tools' folder {os.path.relpath(path, base)}: {e.strerror}") from e
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise ToolError(
                f"{os.path.relpath(path, base)} is reserved for the tools and must be a plain directory; "
                "remove or rename what is there"
            )
    return path


def display(name: str) -> str:
    """Return a name fit to print: escaped when it holds control characters or undecodable bytes."""
    return name if name.isprintable() else name.encode("unicode_escape").decode("ascii")


def read_args() -> Any:
    """Return the JSON arguments on stdin; when they are not JSON, print an error and exit with status 2."""
    try:
        return json.load(sys.stdin)
    except ValueError as e:
        emit(f"error: the arguments are not valid JSON ({e}); send one JSON object")
        sys.exit(2)


def emit(text: str) -> None:
    """Print the observation as UTF-8 whatever the locale, escaping what cannot be encoded."""
    data = text.encode("utf-8", "backslashreplace")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a test's StringIO, say)
        sys.stdout.write(data.decode("utf-8"))
    else:
        sys.stdout.flush()
        buffer.write(data)
        buffer.flush()


def serve(run: Callable[[Mapping[str, Any], str], tuple[str, int]]) -> None:
    """A tool program's ``main``: read the arguments, ``run`` them in the workspace (the
    current directory), print the text, exit with the status it gives."""
    text, status = run(read_args(), os.getcwd())
    emit(text)
    if status:
        sys.exit(status)
