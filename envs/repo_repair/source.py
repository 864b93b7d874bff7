"""A Python file's text as `ast` positions see it, for edits spliced into the text (never an
unparse): the position arithmetic, the check that an edited unit still parses differently, and
unified diffs as git writes them."""

from __future__ import annotations

import ast
import bisect
import difflib
import io
import itertools
import re
import tokenize
from collections.abc import Iterable

FILLER = " \t\r\n\f\\()"  # what may stand between an operand and its operator
SPACE = " \t\r\n\f\\"
Edit = tuple[int, int, str]  # [start, end) character offsets into the source, and the new text


def unified(path: str, before: str, after: str) -> str:
    out = [f"diff --git a/{path} b/{path}\n"]
    for line in difflib.unified_diff(split_lines(before), split_lines(after), f"a/{path}", f"b/{path}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def split_lines(text: str) -> list[str]:
    # Only "\n" ends a line, as for git; str.splitlines would also split on form feeds.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def splice(text: str, edits: Iterable[Edit], shift: int = 0) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[: start + shift] + new + text[end + shift :]
    return text


class Source:
    """The text of one file with its tree, and the position arithmetic the edits need."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = ast.parse(text)
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.masked = self._mask_comments()
        self.string_lines: set[int] = set()
        self.blocks: dict[int, list[ast.stmt]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and (node.end_lineno or 0) > node.lineno:
                self.string_lines.update(range(node.lineno + 1, (node.end_lineno or 0) + 1))
            for _, value in ast.iter_fields(node):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    self.blocks.update((id(stmt), value) for stmt in value)
        self._dumps: dict[tuple[int, int], str | None] = {}

    def _mask_comments(self) -> str:
        # Comments blanked out, so scans between tokens never read a `#` comment as code.
        chars = list(self.text)
        for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
            if token.type == tokenize.COMMENT:
                start = self.starts[token.start[0] - 1] + token.start[1]
                chars[start : start + len(token.string)] = " " * len(token.string)
        return "".join(chars)

    def offset(self, line: int, col: int) -> int:
        """Turns an ast position (1-based line, UTF-8 byte column) into a character offset."""
        start = self.starts[line - 1]
        if self.text[start : start + col].isascii():
            return start + col
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return start + len(self.text[start:end].encode()[:col].decode())

    def start(self, node: ast.expr | ast.stmt | ast.keyword) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.stmt | ast.keyword) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def segment(self, node: ast.expr | ast.stmt | ast.keyword) -> str:
        return self.text[self.start(node) : self.end(node)]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def lines(self, first: int, last: int) -> tuple[int, int]:
        """Returns the character span of whole lines ``first`` to ``last``, newline included."""
        return self.starts[first - 1], self.starts[last] if last < len(self.starts) else len(self.text)

    def indent(self, line: int) -> str:
        start = self.starts[line - 1]
        text = self.text[start : self.lines(line, line)[1]]
        return text[: len(text) - len(text.lstrip(" \t\f"))]

    def is_blank(self, line: int) -> bool:
        return 0 < line <= len(self.starts) and not self.text[slice(*self.lines(line, line))].strip()

    def is_comment(self, line: int) -> bool:
        span = slice(*self.lines(line, line)) if 0 < line <= len(self.starts) else slice(0)
        return bool(self.text[span].strip()) and not self.masked[span].strip()

    def statements(self, stmts: list[ast.stmt]) -> tuple[int, int] | None:
        """Returns the whole-line span of consecutive statements, or None if they share a line with other code."""
        decorators = getattr(stmts[0], "decorator_list", [])
        first = decorators[0] if decorators else stmts[0]
        before = self.masked[self.starts[first.lineno - 1] : self.start(first)]
        last = stmts[-1]
        end_line = last.end_lineno or last.lineno
        after = self.masked[self.end(last) : self.lines(end_line, end_line)[1]]
        if before.strip() != ("@" if decorators else "") or after.strip():
            return None
        return self.lines(first.lineno, end_line)

    def operators(self, node: ast.AST) -> list[tuple[int, int, str]]:
        """Returns each operator token of a binary, comparison, boolean or augmented-assignment node."""
        if isinstance(node, ast.BinOp):
            pairs = [(node.left, node.right)]
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            pairs = list(itertools.pairwise(operands))
        elif isinstance(node, ast.BoolOp):
            pairs = list(itertools.pairwise(node.values))
        elif isinstance(node, ast.AugAssign):
            pairs = [(node.target, node.value)]
        else:
            return []
        found = []
        for left, right in pairs:
            low, high = self.end(left), self.start(right)
            gap = self.masked[low:high]
            begin = len(gap) - len(gap.lstrip(FILLER))
            stop = len(gap.rstrip(FILLER))
            found.append((low + begin, low + stop, " ".join(gap[begin:stop].split())))
        return found

    def skip_space(self, offset: int, step: int) -> int:
        """Moves from ``offset`` over whitespace and line continuations, forwards (1) or backwards (-1)."""
        while 0 < offset < len(self.masked) and self.masked[offset if step > 0 else offset - 1] in SPACE:
            offset += step
        return offset

    def mutate(self, unit: ast.stmt, edits: list[Edit]) -> str | None:
        """Applies edits inside ``unit``; returns the new file, or None if the unit breaks or keeps its AST."""
        low, high = self.lines(unit.lineno, unit.end_lineno or unit.lineno)
        if not edits or any(not low <= start <= end <= high for start, end, _ in edits):
            return None
        indented = self.text[low : low + 1] in (" ", "\t")
        if (low, high) not in self._dumps:
            self._dumps[low, high] = dump(self.text[low:high], indented)
        after = dump(splice(self.text[low:high], edits, -low), indented)
        if after is None or after == self._dumps[low, high]:
            return None
        return splice(self.text, edits)


def dump(segment: str, indented: bool) -> str | None:
    try:  # an indented unit parses as the body of a dummy block
        return ast.dump(ast.parse("if True:\n" + segment if indented else segment))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
