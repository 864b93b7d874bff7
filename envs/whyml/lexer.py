"""WhyML's tokens, as far as the gate and the task splitter need them (pure, stdlib only).

Comments ``(* ... *)`` nest and are dropped (``(*)`` is the operator ``( * )``, not a comment);
strings ``"..."`` are one token; identifiers keep their primes and dots are separate tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codegym.verifier.source import LexError

Kind = Literal["name", "number", "string", "symbol"]
_NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_PART = _NAME_START | set("0123456789'")


@dataclass(frozen=True)
class Token:
    """One token: its kind, text and where it starts (1-based line and column)."""

    kind: Kind
    text: str
    line: int
    column: int


def tokens(source: str) -> list[Token]:
    """The tokens of ``source``, comments left out."""
    found: list[Token] = []
    at, line, line_start = 0, 1, 0
    while at < len(source):
        char = source[at]
        column = at - line_start + 1
        if char == "\n":
            line, line_start = line + 1, at + 1
            at += 1
        elif char.isspace():
            at += 1
        elif source.startswith("(*", at) and not source.startswith("(*)", at):
            at, line, line_start = _comment(source, at, line, line_start)
        elif char == '"':
            end = at + 1
            while end < len(source) and source[end] != '"':
                end += 2 if source[end] == "\\" else 1
            if end >= len(source):
                raise LexError("a string that is never closed", line, column)
            found.append(Token("string", source[at : end + 1], line, column))
            line += source.count("\n", at, end)
            at = end + 1
        elif char in _NAME_START:
            end = at
            while end < len(source) and source[end] in _NAME_PART:
                end += 1
            found.append(Token("name", source[at:end], line, column))
            at = end
        elif char.isdigit():
            end = at
            while end < len(source) and (source[end].isalnum() or source[end] in "._"):
                end += 1
            found.append(Token("number", source[at:end], line, column))
            at = end
        else:
            found.append(Token("symbol", char, line, column))
            at += 1
    return found


def _comment(source: str, at: int, line: int, line_start: int) -> tuple[int, int, int]:
    first_line, first_column = line, at - line_start + 1
    depth = 0
    while at < len(source):
        if source.startswith("(*", at) and not source.startswith("(*)", at):
            depth, at = depth + 1, at + 2
        elif source.startswith("*)", at):
            depth, at = depth - 1, at + 2
            if depth == 0:
                return at, line, line_start
        else:
            if source[at] == "\n":
                line, line_start = line + 1, at + 1
            at += 1
    raise LexError("a comment that is never closed", first_line, first_column)
