"""Unified diffs as agents write them (``git diff``, ``diff -u``), applied to a tree in memory.

`apply` takes the text of a diff and the tree's files and returns the files it changes, or
raises `PatchError` with what did not apply and where, in words an agent can act on. Hunks
must match their context exactly, but may have moved (the nearest position wins, as with
``patch``); paths with ``a/`` and ``b/`` prefixes or without both work; new and deleted files
are supported, renames, binary patches and mode changes are not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from codegym.envs.repo_repair.source import split_lines

MAX_PATCH_BYTES = 2 << 20
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


class PatchError(ValueError):
    """The diff is malformed or does not apply; the message says where and why."""


@dataclass
class _Hunk:
    old_start: int
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    new_start: int = 0


@dataclass
class _FilePatch:
    old_path: str | None
    new_path: str | None
    hunks: list[_Hunk] = field(default_factory=list)


def apply(diff: str, files: Mapping[str, str]) -> dict[str, str | None]:
    """The files ``diff`` changes, new text by path (None: deleted).

    Raises:
        PatchError: The diff is empty, malformed, too large, or a hunk does not match.
    """
    if len(diff.encode()) > MAX_PATCH_BYTES:
        raise PatchError(f"the patch has more than {MAX_PATCH_BYTES} bytes")
    patches = _parse(diff)
    if not patches:
        raise PatchError(
            "no file changes found: expected a unified diff with '--- a/PATH', '+++ b/PATH' and '@@' hunks"
        )
    changed: dict[str, str | None] = {}
    for patch in patches:
        path = patch.new_path or patch.old_path
        assert path is not None
        if patch.old_path is not None and patch.new_path is not None and patch.old_path != patch.new_path:
            raise PatchError(f"renames are not supported ({patch.old_path} -> {patch.new_path})")
        current = changed[path] if path in changed else files.get(path)
        if patch.old_path is None:
            if current is not None:
                raise PatchError(f"{path} already exists: the patch creates it (--- /dev/null)")
            current = ""
        elif current is None:
            raise PatchError(f"{path} does not exist in the repository")
        text = _apply_hunks(path, current, patch.hunks)
        if patch.new_path is None and text:
            left = len(split_lines(text))
            raise PatchError(
                f"{path}: the patch deletes the file (+++ /dev/null) but its hunks leave {left} lines in it"
            )
        changed[path] = None if patch.new_path is None else text
    return changed


def unapply(diff: str, files: Mapping[str, str], keep: Callable[[str], bool]) -> dict[str, str]:
    """The files ``diff`` changed, as they were before it (its hunks undone), for the paths
    ``keep`` accepts: a fix taken back out of a tree it was applied to.

    Raises:
        PatchError: A hunk's new side is not in the file (the tree does not hold the fix).
    """
    undone: dict[str, str] = {}
    for patch in _parse(diff):
        path = patch.new_path
        if path is not None and path not in files and path.partition("/")[2] in files:
            path = path.partition("/")[2]  # (a patch made one folder up: ``pkg-1.0/src/x.c``)
        if path is None or patch.old_path is None or not keep(path):
            continue
        if path not in files:
            raise PatchError(f"{path} does not exist in the repository")
        hunks = [_Hunk(hunk.new_start, hunk.new, hunk.old, hunk.old_start) for hunk in patch.hunks]
        undone[path] = _apply_hunks(path, undone.get(path, files[path]), hunks)
    return undone


def _parse(diff: str) -> list[_FilePatch]:
    lines = split_lines(diff)
    patches: list[_FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(("Binary files ", "GIT binary patch")):
            raise PatchError("binary patches are not supported")
        if line.startswith(("rename from ", "copy from ")):
            raise PatchError(f"line {i + 1}: renames and copies are not supported (delete and create the file instead)")
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            patch = _FilePatch(_path(line[4:]), _path(lines[i + 1][4:]))
            if patch.old_path is None and patch.new_path is None:
                raise PatchError(f"line {i + 1}: both sides of the file header are /dev/null")
            patches.append(patch)
            i += 2
            continue
        match = _HUNK.match(line)
        if match:
            if not patches:
                raise PatchError(f"line {i + 1}: a hunk before any '--- a/PATH' / '+++ b/PATH' header")
            i = _read_hunk(lines, i, match, patches[-1])
            continue
        i += 1
    return patches


def _path(header: str) -> str | None:
    name = header.rstrip("\n").split("\t")[0].strip()
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        name = name[2:]
    parts = name.split("/")
    if not name or name.startswith("/") or ".." in parts:
        raise PatchError(f"the path {name!r} must be relative and inside the repository")
    return name


def _read_hunk(lines: list[str], i: int, match: re.Match[str], patch: _FilePatch) -> int:
    old_count = int(match.group(2) or 1)
    new_count = int(match.group(4) or 1)
    hunk = _Hunk(int(match.group(1)), new_start=int(match.group(3)))
    i += 1
    while (old_count > 0 or new_count > 0) and i < len(lines):
        line = lines[i]
        tag, body = line[:1], line[1:]
        if line in ("\n", "\r\n", ""):  # (an empty context line whose space an editor stripped)
            tag, body = " ", "\n"
        if tag == " ":
            hunk.old.append(body)
            hunk.new.append(body)
            old_count, new_count = old_count - 1, new_count - 1
        elif tag == "-":
            hunk.old.append(body)
            old_count -= 1
        elif tag == "+":
            hunk.new.append(body)
            new_count -= 1
        elif line.startswith("\\"):
            pass
        else:
            raise PatchError(f"line {i + 1}: the hunk ends early (expected ' ', '-' or '+', got {line.rstrip()!r})")
        i += 1
        if i < len(lines) and lines[i].startswith(NO_NEWLINE):
            _strip_newline(hunk, tag)
            i += 1
    if old_count > 0 or new_count > 0:
        raise PatchError(f"the last hunk of {patch.new_path or patch.old_path} is cut short")
    patch.hunks.append(hunk)
    return i


def _strip_newline(hunk: _Hunk, tag: str) -> None:
    for side in (hunk.old, hunk.new) if tag == " " else (hunk.old,) if tag == "-" else (hunk.new,):
        if side and side[-1].endswith("\n"):
            side[-1] = side[-1][:-1]


def _apply_hunks(path: str, text: str, hunks: list[_Hunk]) -> str:
    lines = split_lines(text)
    if "\r" not in text:  # (a diff written with Windows line ends, for a file without them)
        hunks = [_Hunk(h.old_start, [_lf(x) for x in h.old], [_lf(x) for x in h.new]) for h in hunks]
    offset = 0
    for number, hunk in enumerate(hunks, 1):
        expected = hunk.old_start - 1 + offset if hunk.old else hunk.old_start + offset
        at = _find(lines, hunk.old, max(expected, 0))
        if at is None:
            raise PatchError(_mismatch(path, number, len(hunks), hunk, lines, max(expected, 0)))
        lines[at : at + len(hunk.old)] = hunk.new
        offset += at - (expected if hunk.old else at) + len(hunk.new) - len(hunk.old)
    return "".join(lines)


def _lf(line: str) -> str:
    return line[:-2] + "\n" if line.endswith("\r\n") else line


def _find(lines: list[str], old: list[str], expected: int) -> int | None:
    """Where ``old`` occurs in ``lines``, nearest ``expected`` first."""
    if not old:
        return min(expected, len(lines))
    for distance in range(len(lines) + 1):
        for at in (expected - distance, expected + distance) if distance else (expected,):
            if 0 <= at <= len(lines) - len(old) and lines[at : at + len(old)] == old:
                return at
    return None


def _mismatch(path: str, number: int, total: int, hunk: _Hunk, lines: list[str], expected: int) -> str:
    for k, want in enumerate(hunk.old):
        have = lines[expected + k] if expected + k < len(lines) else "(end of file)"
        if have != want:
            return (
                f"hunk {number} of {total} for {path} does not apply: no place in the file matches its "
                f"{len(hunk.old)} context and removed lines. Near line {hunk.old_start}, line {expected + k + 1} is "
                f"{have.rstrip()!r} but the hunk expects {want.rstrip()!r}. Copy context lines exactly from the "
                "current file."
            )
    return f"hunk {number} of {total} for {path} does not apply"
