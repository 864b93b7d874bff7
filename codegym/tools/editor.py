"""The ``str_replace_editor`` tool: view, create and edit the workspace's files.

The sandbox runs it as ``python -m codegym.tools.editor`` with the current directory at the workspace root and the
arguments as a JSON object on stdin (``command``, ``path``, ``file_text``, ``old_str``, ``new_str``,
``insert_line``, ``view_range``); it prints the observation for the model. Exit status: 0 done; 1 a tool error (bad
arguments, a missing file, an ``old_str`` that is not unique, ...), the message starting with ``error:`` and saying
what is expected; 2 stdin was not JSON.

The workspace is written by the model, so nothing in it is trusted: every path is resolved (symlinks included) and
refused when it lands outside the workspace, reads and prints are capped, and ``.codegym/`` is kept for the tools'
own state (the undo history here, the bash tool's logs); see `codegym.tools.program`.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO, TypeGuard

from codegym.tools.program import STATE, ToolError, display, is_state, resolve_path, serve, state_dir

VIEW_CHARS = 16_000  # the most characters one view prints
EDIT_BYTES = 1 << 20  # files larger than this are not edited
UNDO_LEVELS = 20  # edits remembered per file
SNIPPET_CONTEXT = 4  # lines shown on each side of an edit
DIR_ENTRIES = 1_000  # entries read per directory in a listing
SNIFF_BYTES = 8192  # a NUL byte in this much of the start of a file makes it binary
COUNT_BYTES = 256 << 20  # beyond this size, a view does not count the file's lines

_ARGS = ("command", "path", "file_text", "old_str", "new_str", "insert_line", "view_range")


# -- the tool -------------------------------------------------------------------------------------------------------


def run(args: Mapping[str, Any], root: str) -> tuple[str, int]:
    """Carry out one editor call.

    Args:
        args: The parsed arguments.
        root: The workspace root.

    Returns:
        The observation text and the exit status (0 done, 1 tool error).
    """
    try:
        return _dispatch(args, root), 0
    except ToolError as e:
        return f"error: {e}", 1


def main() -> None:
    """Read the arguments from stdin, print the observation, exit with status 1 on a tool error."""
    serve(run)


def _dispatch(args: Mapping[str, Any], root: str) -> str:
    if not isinstance(args, Mapping):
        raise ToolError(f"the arguments must be a JSON object with the keys {', '.join(_ARGS)}")
    unknown = sorted(set(args) - set(_ARGS))
    if unknown:
        raise ToolError(f"unknown argument(s) {', '.join(map(repr, unknown))}; the arguments are {', '.join(_ARGS)}")
    command = args.get("command")
    if command not in _COMMANDS:
        raise ToolError(f"`command` must be one of {', '.join(_COMMANDS)}, not {command!r}")
    real, shown = resolve_path(root, args.get("path"))
    if command != "view" and is_state(shown):
        raise ToolError(f"{display(shown)} is in {STATE}/, which is reserved for the tools' own state")
    return _COMMANDS[command](args, real, display(shown), root)


# -- view -----------------------------------------------------------------------------------------------------------


def _view(args: Mapping[str, Any], real: str, shown: str, root: str) -> str:
    if not os.path.lexists(real):
        raise ToolError(f"{shown} does not exist; view its directory to see what is there")
    if os.path.isdir(real):
        if args.get("view_range") is not None:
            raise ToolError(f"{shown} is a directory; view_range applies to files only")
        return _view_dir(real, shown)
    if not os.path.isfile(real):
        raise ToolError(f"{shown} is not a regular file or a directory")
    start, end = _parse_range(args.get("view_range"))
    with open(real, "rb") as f:
        sample = f.read(SNIFF_BYTES)
        if b"\0" in sample:
            return f"{shown} is a binary file ({os.fstat(f.fileno()).st_size} bytes); the editor shows text only."
        f.seek(0)
        note = "" if _is_utf8(sample) else "[the file is not valid UTF-8: undecodable bytes are shown as \ufffd]\n"
        return note + _numbered(f, shown, start, end)


def _parse_range(view_range: object) -> tuple[int, int]:
    if view_range is None:
        return 1, -1
    if not (isinstance(view_range, list | tuple) and len(view_range) == 2 and all(map(_is_int, view_range))):
        raise ToolError(f"view_range must be two integers [start, end], not {view_range!r}")
    start, end = view_range
    if start < 1:
        raise ToolError(f"view_range starts at {start}; lines are numbered from 1")
    if end != -1 and end < start:
        raise ToolError(f"view_range [{start}, {end}] ends before it starts; use end >= start, or -1 for the end")
    return start, end


def _numbered(f: BinaryIO, shown: str, start: int, end: int) -> str:
    """Lines ``start..end`` (``end`` -1: to the end) with ``cat -n`` numbers, cut at `VIEW_CHARS`."""
    rows, read, stopped = _rows(f, start, end)
    if not rows:  # the whole file was read without reaching ``start``
        if read == 0:
            return f"{shown} is empty."
        raise ToolError(f"view_range starts at line {start}, but {shown} has only {read} lines")
    total = _total_lines(f, read)
    if stopped:
        rows.append(_cap_note(start, stopped, total))
    elif end > total > 0:
        rows.append(f"[{shown} ends at line {total}]")
    return "\n".join(rows)


def _rows(f: BinaryIO, start: int, end: int) -> tuple[list[str], int, int]:
    """The numbered rows, how many lines were read, and the first line left out for the cap (0: none)."""
    rows: list[str] = []
    used = 0
    read = 0
    for read, line, length in _iter_lines(f, 4 * VIEW_CHARS):
        if read < start:
            continue
        if end != -1 and read > end:
            break
        row = f"{read:6}\t{line.decode('utf-8', 'replace').removesuffix(chr(10))}"
        if used + len(row) < VIEW_CHARS:
            rows.append(row)
            used += len(row) + 1
        elif rows:
            return rows, read, read
        else:  # one line longer than the cap: show its start
            return [f"{row[:VIEW_CHARS]} [... line {read} goes on: {length} bytes in all]"], read, read + 1
    return rows, read, 0


def _cap_note(start: int, stopped: int, total: int) -> str:
    of = f" of {total}" if total > 0 else ""
    width = max(stopped - start, 1)
    return (
        f"[output cut at {VIEW_CHARS} characters: lines {start}-{stopped - 1}{of} shown; view the rest with "
        f"view_range, e.g. [{stopped}, {stopped + width - 1}]]"
    )


def _iter_lines(f: BinaryIO, keep: int) -> Iterator[tuple[int, bytes, int]]:
    """Yield each line's number, its first ``keep`` bytes and its whole length, without holding a long line."""
    number = 0
    while head := f.readline(keep):
        number += 1
        length = len(head)
        more = head
        while not more.endswith(b"\n") and (more := f.readline(1 << 16)):
            length += len(more)
        yield number, head, length


def _total_lines(f: BinaryIO, read: int) -> int:
    """The file's line count, ``read`` lines being already consumed from ``f``; -1 when too large to count."""
    if os.fstat(f.fileno()).st_size > COUNT_BYTES:
        return -1
    tail = b"\n"
    while chunk := f.read(1 << 20):
        read += chunk.count(b"\n")
        tail = chunk
    return read + (not tail.endswith(b"\n"))


def _is_utf8(sample: bytes) -> bool:
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)  # a character cut at the end is fine
    except UnicodeDecodeError:
        return False
    return True


def _view_dir(real: str, shown: str) -> str:
    prefix = "" if shown == "." else shown + "/"
    rows: list[str] = []
    cut = False
    for entry, is_dir in _entries(real):
        rows.append(_entry_row(prefix, entry.name, entry, is_dir))
        if is_dir:
            rows.extend(
                _entry_row(f"{prefix}{display(entry.name)}/", sub.name, sub, d) for sub, d in _entries(entry.path)
            )
        if sum(map(len, rows)) + len(rows) > VIEW_CHARS:
            cut = True
            break
    header = f"Entries of {prefix or './'} two levels deep (hidden ones left out; directories end with /):"
    if not rows:
        return f"{header}\n(none)"
    if cut:
        rows.append("[listing cut; view a subdirectory, or use the bash tool (ls, find) to see the rest]")
    return "\n".join([header, *rows])


def _entries(path: str) -> list[tuple[os.DirEntry[str], bool]]:
    """A directory's visible entries, sorted by name, at most `DIR_ENTRIES`; none when unreadable."""
    found = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if not entry.name.startswith("."):
                    found.append(entry)
                if len(found) >= DIR_ENTRIES:
                    break
    except OSError:
        return []
    return [(e, e.is_dir(follow_symlinks=False)) for e in sorted(found, key=lambda e: e.name)]


def _entry_row(prefix: str, name: str, entry: os.DirEntry[str], is_dir: bool) -> str:
    mark = "/" if is_dir else "@" if entry.is_symlink() else ""
    return f"{prefix}{display(name)}{mark}"


# -- edits ----------------------------------------------------------------------------------------------------------


def _create(args: Mapping[str, Any], real: str, shown: str, root: str) -> str:
    text = _required(args, "file_text")
    data = _encode(text)
    if len(data) > EDIT_BYTES:
        raise ToolError(f"file_text is {len(data)} bytes; the editor writes at most {EDIT_BYTES} bytes per file")
    if os.path.isdir(real):
        raise ToolError(f"{shown} is a directory; give the path of a file to create")
    old = None
    if os.path.lexists(real):
        old = _read_bytes(real, shown)
    _edit(root, real, shown, old, data)
    lines = _lines(text)
    if old is None:
        return f"Created {shown} ({lines})."
    return f"Overwrote {shown} ({lines}; it had {_lines(old)}). undo_edit restores the old content."


def _str_replace(args: Mapping[str, Any], real: str, shown: str, root: str) -> str:
    old_str = _required(args, "old_str")
    new_str = _optional(args, "new_str") or ""
    if not old_str:
        raise ToolError("old_str is empty; give the exact text to replace (it must occur exactly once)")
    if old_str == new_str:
        raise ToolError("new_str is the same as old_str; nothing would change")
    raw, text = _read_text(real, shown)
    where = _occurrences(text, old_str)
    if not where:
        raise ToolError(_not_found(text, old_str, shown))
    if len(where) > 1:
        lines = ", ".join(str(text.count("\n", 0, i) + 1) for i in where[:10])
        raise ToolError(
            f"old_str occurs {len(where)} times in {shown} (starting at lines {lines}); it must occur exactly once, "
            "so include more of the surrounding lines to make it unique"
        )
    at = where[0]
    edited = text[:at] + new_str + text[at + len(old_str) :]
    _edit(root, real, shown, raw, _encode(edited))
    first = text.count("\n", 0, at) + 1
    return _snippet(edited, shown, first, first + new_str.removesuffix("\n").count("\n"))


def _insert(args: Mapping[str, Any], real: str, shown: str, root: str) -> str:
    new_str = _required(args, "new_str")
    line = args.get("insert_line")
    if not _is_int(line):
        raise ToolError(f"insert_line must be an integer (0 inserts at the top), not {line!r}")
    if not new_str:
        raise ToolError("new_str is empty; give the text to insert")
    raw, text = _read_text(real, shown)
    lines = _split_lines(text)
    if not 0 <= line <= len(lines):
        raise ToolError(
            f"insert_line {line} is out of range: {shown} has {len(lines)} lines, so it must be between 0 (insert "
            f"at the top) and {len(lines)} (insert at the end)"
        )
    if line == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # the new text goes on a line of its own
    added = new_str if new_str.endswith("\n") else new_str + "\n"
    edited = "".join([*lines[:line], added, *lines[line:]])
    _edit(root, real, shown, raw, _encode(edited))
    return _snippet(edited, shown, line + 1, line + added.count("\n"))


def _undo(args: Mapping[str, Any], real: str, shown: str, root: str) -> str:
    history = _history(root, real)
    entries = _undo_entries(history)
    if not entries:
        raise ToolError(f"there is no edit of {shown} to undo (the editor's own create, str_replace and insert only)")
    entry = os.path.join(history, entries[-1])
    if entry.endswith(".none"):
        if os.path.isdir(real):
            raise ToolError(f"{shown} did not exist before its last edit, but is now a directory; remove it with bash")
        if os.path.lexists(real):
            os.unlink(real)
        message = f"Undid the last edit of {shown}: it did not exist before, so it was removed."
    else:
        try:
            with os.fdopen(os.open(entry, os.O_RDONLY | os.O_NOFOLLOW), "rb") as f:
                data = f.read(EDIT_BYTES + 1)
            _write(real, data)
        except OSError as e:
            raise ToolError(f"cannot restore {shown}: {e.strerror or e}") from e
        message = f"Undid the last edit of {shown}: restored its previous content ({_lines(data)})."
    os.unlink(entry)
    left = len(entries) - 1
    return f"{message} {left} earlier edit(s) can still be undone." if left else message


def _required(args: Mapping[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        found = "it is missing" if value is None else f"not {type(value).__name__}"
        raise ToolError(f"{name} must be a string for command {args.get('command')}; {found}")
    return value


def _optional(args: Mapping[str, Any], name: str) -> str | None:
    return None if args.get(name) is None else _required(args, name)


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ToolError(
            f"the text holds a lone surrogate ({text[e.start]!r}) that UTF-8 cannot encode; remove it"
        ) from e


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_bytes(real: str, shown: str) -> bytes:
    """A regular file's content, refused beyond `EDIT_BYTES`."""
    if not os.path.isfile(real):
        raise ToolError(f"{shown} does not exist" if not os.path.lexists(real) else f"{shown} is not a regular file")
    size = os.stat(real).st_size
    if size > EDIT_BYTES:
        raise ToolError(f"{shown} is {size} bytes; the editor edits files of at most {EDIT_BYTES} bytes (use bash)")
    with open(real, "rb") as f:
        return f.read(EDIT_BYTES + 1)


def _read_text(real: str, shown: str) -> tuple[bytes, str]:
    raw = _read_bytes(real, shown)
    if b"\0" in raw:
        raise ToolError(f"{shown} is a binary file; the editor edits text files only")
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ToolError(
            f"{shown} is not valid UTF-8 (an undecodable byte at offset {e.start}); the editor edits UTF-8 text only"
        ) from e


def _occurrences(text: str, sub: str) -> list[int]:
    """Start of every occurrence, overlapping ones included (so ``aa`` in ``aaa`` is ambiguous)."""
    found = []
    at = text.find(sub)
    while at != -1:
        found.append(at)
        at = text.find(sub, at + 1)
    return found


def _not_found(text: str, old_str: str, shown: str) -> str:
    message = (
        f"old_str does not occur in {shown}; it must match the file exactly, whitespace and indentation included "
        "(view the file and copy the lines)"
    )
    stripped = old_str.strip()
    if stripped and stripped != old_str and stripped in text:
        message += "; its text without the leading and trailing whitespace does occur, so check those"
    if "\r\n" in text and "\r\n" not in old_str:
        message += "; note the file has Windows (CRLF) line endings"
    return message


def _split_lines(text: str) -> list[str]:
    """Lines with their newline; only ``\\n`` ends a line, as for ``cat -n``."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _lines(content: str | bytes) -> str:
    """``"1 line"``, ``"2 lines"``: how many lines a file's content has, for messages."""
    text = content if isinstance(content, str) else content.decode("utf-8", "replace")
    count = len(_split_lines(text))
    return f"{count} line" if count == 1 else f"{count} lines"


def _snippet(text: str, shown: str, first: int, last: int) -> str:
    lines = _split_lines(text)
    lo, hi = max(1, first - SNIPPET_CONTEXT), min(len(lines), max(last, first) + SNIPPET_CONTEXT)
    rows = [f"{n:6}\t{lines[n - 1].removesuffix(chr(10))}" for n in range(lo, hi + 1)]
    body = "\n".join(rows)
    if len(body) > VIEW_CHARS:
        body = body[:VIEW_CHARS] + "\n[snippet cut; view the file to see the rest]"
    return (
        f"Edited {shown}. Lines {lo}-{hi} now read:\n{body}\n"
        "Check that the edit is what you meant; undo_edit reverts it."
    )


# -- writing and the undo history -------------------------------------------------------------------------------------


def _edit(root: str, real: str, shown: str, old: bytes | None, new: bytes) -> None:
    """Write ``new`` to ``real``, first recording ``old`` (None: the file did not exist) for undo_edit."""
    history = _history(root, real)
    entry = _push(history, old)
    try:
        _write(real, new)
    except OSError as e:
        os.unlink(entry)
        raise ToolError(f"cannot write {shown}: {e.strerror or e}") from e
    _prune(history)


def _history(root: str, real: str) -> str:
    """The folder of one file's undo history; its name is a hash of the path, whatever characters that holds."""
    relative = os.path.relpath(real, os.path.realpath(root))
    key = hashlib.sha256(relative.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return state_dir(root, "undo", key)


def _undo_entries(history: str) -> list[str]:
    """The history's entries, oldest first: ``NNNNNN.prev`` holds a file's earlier content, ``NNNNNN.none`` says it
    did not exist. Anything else in the folder is ignored."""
    return sorted(n for n in os.listdir(history) if len(n) == 11 and n[:6].isdecimal() and n[6:] in (".prev", ".none"))


def _push(history: str, old: bytes | None) -> str:
    number = max((int(name[:6]) for name in _undo_entries(history)), default=0) + 1
    entry = os.path.join(history, f"{number:06d}.{'none' if old is None else 'prev'}")
    fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(old or b"")
    return entry


def _prune(history: str) -> None:
    entries = _undo_entries(history)
    for name in entries[: max(len(entries) - UNDO_LEVELS, 0)]:
        os.unlink(os.path.join(history, name))


def _write(real: str, data: bytes) -> None:
    """Replace ``real`` atomically through a new file beside it, keeping its mode.

    ``real`` is already resolved, so it is not a symlink, and the temporary file is made with ``O_EXCL``: nothing
    planted in the workspace can redirect the write.
    """
    parent = os.path.dirname(real)
    os.makedirs(parent, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    temp, fd = _temp_beside(real)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), mode)
        os.replace(temp, real)
    except BaseException:
        if os.path.lexists(temp):
            os.unlink(temp)
        raise


def _temp_beside(real: str) -> tuple[str, int]:
    head, tail = os.path.split(real)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for attempt in range(100):
        temp = os.path.join(head, f".{tail[:100]}.{os.getpid()}.{attempt}.tmp")
        try:
            return temp, os.open(temp, flags, 0o600)
        except FileExistsError:
            continue
    raise OSError(f"no free name for a temporary file beside {tail}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_COMMANDS: dict[str, Callable[[Mapping[str, Any], str, str, str], str]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "undo_edit": _undo,
}


if __name__ == "__main__":
    main()
