"""The ``search`` tool: the lines of the workspace's text files that match a Python regular expression.

The sandbox runs it as ``python -m codegym.tools.search`` with the current directory at the workspace root and the
arguments as a JSON object on stdin: ``pattern`` (a Python regular expression) and ``path`` (a file or directory,
the workspace when omitted). It prints ``path:line: text`` for each matching line, paths relative to the workspace
and in sorted order, at most `MAX_MATCHES` of them, then a line counting the matches left out. Exit status: 0 done
(matches or none); 1 a tool error (a bad pattern, a path outside the workspace, ...), the message starting with
``error:``; 2 stdin was not JSON.

The walk skips ``.git/`` and ``.codegym/`` folders, binary files, files over `MAX_FILE_BYTES`, and every symlink
met on the way (a link could lead out of the workspace or into a cycle); it stops after `MAX_ENTRIES` entries or
`MAX_TOTAL_BYTES` bytes read, and says so.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from codegym.tools.program import ToolError, display, resolve_path, serve

MAX_MATCHES = 100
MAX_FILE_BYTES = 1 << 20
MAX_ENTRIES = 20_000  # files and folders visited
MAX_TOTAL_BYTES = 256 << 20
LINE_CHARS = 200  # the most characters of a matching line shown
SKIPPED_DIRS = frozenset({".git", ".codegym"})
SNIFF_BYTES = 8192


@dataclass
class _Tally:
    """What the walk found and where it stopped."""

    shown: list[str] = field(default_factory=list)
    more_matches: int = 0
    more_files: int = 0
    entries: int = 0
    bytes_read: int = 0
    too_large: int = 0
    binary: int = 0
    cut: str = ""  # why the walk stopped early, if it did


def run(args: Mapping[str, Any], root: str) -> tuple[str, int]:
    """Carry out one search.

    Args:
        args: The parsed arguments, ``pattern`` and optionally ``path``.
        root: The workspace root.

    Returns:
        The observation text and the exit status (0 done, 1 tool error).
    """
    try:
        return _search(args, root), 0
    except ToolError as e:
        return f"error: {e}", 1


def main() -> None:
    """Read the arguments from stdin, print the matches, exit with status 1 on a tool error."""
    serve(run)


def _search(args: Mapping[str, Any], root: str) -> str:
    if not isinstance(args, Mapping):
        raise ToolError("the arguments must be a JSON object with the keys pattern and path")
    unknown = sorted(set(args) - {"pattern", "path"})
    if unknown:
        raise ToolError(f"unknown argument(s) {', '.join(map(repr, unknown))}; the arguments are pattern and path")
    pattern = _compile(args.get("pattern"))
    real, shown = resolve_path(root, "." if args.get("path") is None else args.get("path"))
    if not os.path.exists(real):
        raise ToolError(f"{display(shown)} does not exist")
    base = os.path.realpath(root)
    tally = _Tally()
    for path in _walk(real, tally):
        _search_file(path, os.path.relpath(path, base), pattern, tally)
    return _report(tally, pattern.pattern, display(shown), not os.path.isdir(real))


def _compile(pattern: object) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("pattern must be a non-empty string: a Python regular expression")
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ToolError(f"pattern {pattern!r} is not a valid Python regular expression: {e}") from e


def _walk(top: str, tally: _Tally) -> Iterator[str]:
    """The regular files under ``top`` in the sorted order of their paths, symlinks and skipped folders left out.

    A stack of iterators rather than recursion, so that a deep tree cannot exhaust Python's recursion limit.
    """
    if not os.path.isdir(top):
        yield top
        return
    stack = [_children(top, tally)]
    while stack and not tally.cut:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child[1]:
            stack.append(_children(child[0], tally))
        else:
            yield child[0]


def _children(folder: str, tally: _Tally) -> Iterator[tuple[str, bool]]:
    """A folder's regular files and plain subfolders as (path, is_folder), in the order of their full paths."""
    found: list[tuple[str, bool]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                tally.entries += 1
                if tally.entries > MAX_ENTRIES:
                    tally.cut = f"it visited {MAX_ENTRIES} files and folders"
                    break
                if entry.is_dir(follow_symlinks=False) and entry.name not in SKIPPED_DIRS:
                    found.append((entry.path, True))
                elif entry.is_file(follow_symlinks=False):
                    found.append((entry.path, False))
    except OSError:  # unreadable, vanished, or a path too long
        return iter(())
    # A folder sorts as "name/", so that files come in the order of their full paths: a.py before a/b.py.
    return iter(sorted(found, key=lambda child: os.path.basename(child[0]) + "/" * child[1]))


def _search_file(path: str, relative: str, pattern: re.Pattern[str], tally: _Tally) -> None:
    data = _read(path, tally)
    if data is None:
        return
    left_out = False
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        match = pattern.search(line)
        if match is None:
            continue
        if len(tally.shown) < MAX_MATCHES:
            tally.shown.append(f"{display(relative)}:{number}: {_excerpt(line, match)}")
        else:
            tally.more_matches += 1
            left_out = True
    tally.more_files += left_out


def _read(path: str, tally: _Tally) -> bytes | None:
    """A text file's content; None for what is not searched (counted in ``tally`` when worth saying)."""
    try:
        # A symlink or FIFO swapped in since the scan is refused, not followed or waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > MAX_FILE_BYTES:
            tally.too_large += 1
            return None
        if tally.bytes_read + info.st_size > MAX_TOTAL_BYTES:
            tally.cut = f"it read {MAX_TOTAL_BYTES >> 20} MiB"
            return None
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError:
            return None
    tally.bytes_read += len(data)
    if b"\0" in data[:SNIFF_BYTES]:
        tally.binary += 1
        return None
    return data


def _excerpt(line: str, match: re.Match[str]) -> str:
    """The line, or a window of `LINE_CHARS` around the match when it is longer."""
    line = line.removesuffix("\r")
    if len(line) <= LINE_CHARS:
        return line
    start = max(0, min(match.start() - LINE_CHARS // 4, len(line) - LINE_CHARS))
    end = start + LINE_CHARS
    return ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")


def _report(tally: _Tally, pattern: str, shown: str, one_file: bool) -> str:
    where = "the workspace" if shown == "." else shown
    lines = tally.shown or [f"No matches for {pattern!r} in {where}."]
    if tally.more_matches:
        lines.append(
            f"[... {tally.more_matches} more matches in {tally.more_files} files not shown; narrow the pattern or the "
            "path ...]"
        )
    if tally.too_large:
        lines.append(f"[{tally.too_large} files over {MAX_FILE_BYTES >> 20} MiB were not searched; use bash (grep)]")
    if tally.binary and one_file:
        lines.append(f"[{shown} is a binary file, which is not searched]")
    if tally.cut:
        lines.append(f"[the search stopped early: {tally.cut}; the results are incomplete, so search a subfolder]")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
