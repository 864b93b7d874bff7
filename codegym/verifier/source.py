"""Source text helpers the verifier families' lexers and task splitters share (pure)."""

from __future__ import annotations

from collections.abc import Iterable


class LexError(ValueError):
    """Text a verifier's lexer could not read: an unterminated comment, string or character."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line, self.column = line, column


def without(source: str, spans: Iterable[tuple[int, int]]) -> str:
    """``source`` without ``spans`` (offsets); a span alone on its lines takes those lines
    with it, so removing a clause leaves no blank line behind."""
    kept, at = [], 0
    for start, end in sorted(_whole_lines(source, s, e) for s, e in spans):
        if start >= at:
            kept.append(source[at:start])
            at = end
    kept.append(source[at:])
    return "".join(kept)


def _whole_lines(source: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` grown to whole lines when only blanks stand beside it on them."""
    line_start = source.rfind("\n", 0, start) + 1
    line_end = source.find("\n", end)
    line_end = len(source) if line_end < 0 else line_end
    if source[line_start:start].strip() or source[end:line_end].strip():
        return start, end
    return line_start, min(line_end + 1, len(source))
