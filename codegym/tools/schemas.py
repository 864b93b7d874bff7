"""OpenAI function-tool schemas of the four tools every agent env offers: bash, str_replace_editor, search, submit."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

TOOL_NAMES: tuple[str, ...] = ("bash", "str_replace_editor", "search", "submit")

_BASH = (
    "Run a bash command in the workspace (the current directory). Each call is a fresh process in a sandbox with no "
    "network access. Files in the workspace persist between calls, but nothing else does: shell variables and the "
    "current directory start afresh, and any process started in the background (with &, nohup, setsid, or as a "
    "daemon) is killed when the command returns. Long output is cut to its head and tail, with the number of elided "
    "bytes stated, and the full output is saved to a file in the workspace whose path is given. A time limit "
    "applies to each call (see timeout_s)."
)

_EDITOR = (
    "View, create and edit files in the workspace. Paths are relative to the workspace, or absolute. Commands:\n"
    "- view: show a file with line numbers (view_range limits it to some lines), or list a directory two levels "
    "deep.\n"
    "- create: write file_text to the file at path, creating it or replacing its content. Needs file_text.\n"
    "- str_replace: replace old_str, which must occur exactly once in the file, with new_str (empty when omitted). "
    "Needs old_str.\n"
    "- insert: insert new_str after line insert_line (0 inserts at the top). Needs insert_line and new_str.\n"
    "- undo_edit: revert the last edit made to the file at path."
)

_SEARCH = (
    "Search the text files under path (the workspace when omitted) for a Python regular expression, printing each "
    "matching line as path:line: text."
)

_SUBMIT = "Submit your work: ends the episode and grades the submission file. Call it once you are done."


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def _bash(max_timeout_s: float | None) -> dict[str, Any]:
    cap = (
        f"At most {max_timeout_s:g}: larger values are lowered to it."
        if max_timeout_s is not None
        else "The env caps it."
    )
    timeout = f"Seconds the command may run before it is killed (the env's default when omitted). {cap}"
    properties = {
        "command": {"type": "string", "description": "The shell command to run, e.g. `ls -la` or `python test.py`."},
        "timeout_s": {"type": "number", "description": timeout},
    }
    return _function("bash", _BASH, properties, ["command"])


def _editor(_: float | None) -> dict[str, Any]:
    properties = {
        "command": {
            "type": "string",
            "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
            "description": "What to do; see the tool's description for the parameters each command needs.",
        },
        "path": {"type": "string", "description": "The file or directory, relative to the workspace or absolute."},
        "file_text": {"type": "string", "description": "create: the file's whole content."},
        "old_str": {"type": "string", "description": "str_replace: the text to replace; it must occur exactly once."},
        "new_str": {
            "type": "string",
            "description": "str_replace: the replacement (empty when omitted). insert: the text to insert.",
        },
        "insert_line": {"type": "integer", "description": "insert: the line after which new_str goes (0: the top)."},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "minItems": 2,
            "maxItems": 2,
            "description": "view of a file: [start, end], 1-based and inclusive; end -1 means the last line.",
        },
    }
    return _function("str_replace_editor", _EDITOR, properties, ["command", "path"])


def _search(_: float | None) -> dict[str, Any]:
    properties = {
        "pattern": {"type": "string", "description": "A Python regular expression, e.g. `def \\w+_test`."},
        "path": {"type": "string", "description": "The file or directory to search; the workspace when omitted."},
    }
    return _function("search", _SEARCH, properties, ["pattern"])


def _submit(_: float | None) -> dict[str, Any]:
    return _function("submit", _SUBMIT, {}, [])


# Each builder takes the bash cap so that all share one signature; only bash uses it.
_BUILDERS: dict[str, Callable[[float | None], dict[str, Any]]] = {
    "bash": _bash,
    "str_replace_editor": _editor,
    "search": _search,
    "submit": _submit,
}


def tool_schemas(names: Iterable[str] = TOOL_NAMES, *, max_timeout_s: float | None = None) -> list[dict[str, Any]]:
    """Return the OpenAI function-tool schemas of the named tools, in the order given.

    Args:
        names: Tools to describe, from `TOOL_NAMES`.
        max_timeout_s: The env's cap on one bash call, stated in bash's ``timeout_s`` description when given.

    Returns:
        Fresh dicts, ``{"type": "function", "function": {"name", "description", "parameters"}}``, which the caller
        may mutate.

    Raises:
        ValueError: A name is not one of `TOOL_NAMES`.
    """
    schemas = []
    for name in names:
        if name not in _BUILDERS:
            raise ValueError(f"unknown tool {name!r}: the tools are {', '.join(TOOL_NAMES)}")
        schemas.append(_BUILDERS[name](max_timeout_s))  # built afresh on each call, so nothing is shared
    return schemas
