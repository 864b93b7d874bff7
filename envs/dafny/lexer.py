"""Dafny's tokens, as far as the gate and the program splitter need them (pure, stdlib only).

Comments (``//`` to the end of the line, ``/* */`` nested as Dafny nests them) are dropped; a
``/*`` never closed runs to the end of the file, as Dafny's scanner reads it (`unclosed_comment`);
strings (``"..."`` with escapes, verbatim ``@"..."``) and character literals become one
token each, so that nothing inside them is read as a keyword. Each token carries its bracket
depth (``(``, ``[``, ``{`` and an attribute's ``{:`` open; ``)``, ``]`` and ``}`` close). Identifiers keep Dafny's extra
characters: ``x'`` and ``array?`` are one identifier each, and a quote that follows an
identifier character is part of it, not the start of a character literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codegym.verifier.source import LexError

Kind = Literal["name", "number", "string", "char", "symbol"]

# Longest first: the punctuation Dafny writes with more than one character.
SYMBOLS = (
    "<==>", "==>", "<==", "!==", "::", ":=", ":|", "==", "!=", "<=", ">=", "&&", "||", "..", "=>", "{:",
)  # fmt: skip
_NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_PART = _NAME_START | set("0123456789'?")
OPENING = frozenset({"(", "[", "{", "{:"})
CLOSING = frozenset({")", "]", "}"})


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text, where it starts (1-based line and column), its
    offsets in the source (``source[start:end] == text``) and how many brackets are open
    before it (a closing bracket's depth is that of its contents)."""

    kind: Kind
    text: str
    line: int
    column: int
    start: int
    end: int
    depth: int


def tokens(source: str) -> list[Token]:
    """The tokens of ``source``, comments left out."""
    return _scan(source)[0]


def unclosed_comment(source: str) -> int | None:
    """Where the ``/*`` comment that is never closed starts (it runs to the end of the file),
    or None when every comment is closed."""
    return _scan(source)[1]


def _scan(source: str) -> tuple[list[Token], int | None]:
    found: list[Token] = []
    scanner = _Scanner(source)
    depth = 0
    while (token := scanner.next(depth)) is not None:
        found.append(token)
        depth = max(0, depth + (token.text in OPENING) - (token.text in CLOSING))
    return found, scanner.unclosed


class _Scanner:
    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0
        self.line = 1
        self.line_start = 0
        self.unclosed: int | None = None  # (where a comment that is never closed starts)

    def next(self, depth: int) -> Token | None:
        self._skip_space_and_comments()
        if self.at >= len(self.source):
            return None
        start, line, column = self.at, self.line, self.at - self.line_start + 1
        char = self.source[start]
        if char in _NAME_START:
            kind: Kind = "name"
            self._advance_while(_NAME_PART)
        elif char.isdigit():
            kind = "number"
            self._advance_while(set("0123456789._xabcdefABCDEF"))
        elif char == '"' or self.source.startswith('@"', start):
            kind = "string"
            self._string(verbatim=char == "@")
        elif char == "'":
            kind = "char"
            self._char()
        else:
            kind = "symbol"
            self.at += next((len(s) for s in SYMBOLS if self.source.startswith(s, start)), 1)
        return Token(kind, self.source[start : self.at], line, column, start, self.at, depth)

    def _advance_while(self, allowed: set[str]) -> None:
        while self.at < len(self.source) and self.source[self.at] in allowed:
            self.at += 1

    def _newline(self) -> None:
        self.line += 1
        self.line_start = self.at + 1

    def _skip_space_and_comments(self) -> None:
        source = self.source
        while self.at < len(source):
            char = source[self.at]
            if char == "\n":
                self._newline()
                self.at += 1
            elif char.isspace():
                self.at += 1
            elif source.startswith("//", self.at):
                end = source.find("\n", self.at)
                self.at = len(source) if end < 0 else end
            elif source.startswith("/*", self.at):
                self._block_comment()
            else:
                return

    def _block_comment(self) -> None:
        start = self.at
        depth = 0
        while self.at < len(self.source):
            if self.source.startswith("/*", self.at):
                depth += 1
                self.at += 2
            elif self.source.startswith("*/", self.at):
                depth -= 1
                self.at += 2
                if depth == 0:
                    return
            else:
                if self.source[self.at] == "\n":
                    self._newline()
                self.at += 1
        self.unclosed = start

    def _string(self, *, verbatim: bool) -> None:
        line, column = self.line, self.at - self.line_start + 1
        self.at += 2 if verbatim else 1
        while self.at < len(self.source):
            char = self.source[self.at]
            if verbatim and self.source.startswith('""', self.at):
                self.at += 2
                continue
            if char == '"':
                self.at += 1
                return
            if char == "\\" and not verbatim:
                self.at += 2
                continue
            if char == "\n":
                if not verbatim:
                    break
                self._newline()
            self.at += 1
        raise LexError("a string that is never closed", line, column)

    def _char(self) -> None:
        line, column = self.line, self.at - self.line_start + 1
        end = self.at + (3 if self.source.startswith("\\", self.at + 1) else 2)
        if self.source.startswith("\\u", self.at + 1):
            end = self.at + 7
        if end >= len(self.source) or self.source[end] != "'":
            raise LexError("a character literal that is never closed", line, column)
        self.at = end + 1
