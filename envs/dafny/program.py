"""A Dafny program as the env handles it: top-level declarations, each callable's header
(signature and specification clauses) and body (pure, stdlib only).

The env never verifies the agent's copy of a specification. It assembles the file it
verifies (`assemble`) from the task's trusted text, taking from the agent only what the task
opens: the bodies of its open methods and lemmas, their ``decreases`` clauses, and new
declarations of the agent's own (helpers). Everything else (every signature, ``requires``,
``ensures``, ``modifies``, ``reads``, every function and predicate the specification uses,
types and constants) is the trusted text's, whatever the agent's copy says.

Top-level declarations only: a class or a datatype is one closed declaration (its members
cannot be opened).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from codegym.envs.dafny.lexer import CLOSING, Token, tokens

from codegym.verifier.source import without

# Words that start a top-level declaration, and the modifiers that may come before one.
MODIFIERS = frozenset({"ghost", "static", "abstract", "protected", "inductive", "twostate", "least", "greatest",
                       "opaque"})  # fmt: skip
STARTS = frozenset({"method", "lemma", "function", "predicate", "constructor", "datatype", "codatatype", "type",
                    "newtype", "class", "trait", "const", "iterator", "copredicate", "colemma", "module", "import",
                    "include", "var"}) | MODIFIERS  # fmt: skip
CALLABLES = frozenset({"method", "lemma", "function", "predicate", "copredicate", "colemma", "constructor"})
OPENABLE = frozenset({"method", "lemma"})  # (a function's or predicate's body is specification)
CLAUSES = frozenset({"requires", "ensures", "modifies", "reads", "decreases", "invariant", "yield"})
# Tokens after which a ``{`` opens a set display, not a block.
_EXPRESSION_WORDS = frozenset({
    "requires", "ensures", "reads", "modifies", "decreases", "invariant", "in", "then", "else", "multiset", "iset",
    "return", "returns", "assert", "assume", "var", "yield",
})  # fmt: skip
# (and ``;``: Dafny 2.3 takes a clause ended by one, ``ensures r > 0;``, before a body)
_BLOCK_AFTER = frozenset({")", "]", "}", ">", "|", "?", ";"})


@dataclass(frozen=True)
class Clause:
    """One specification clause of a header: its keyword and its text."""

    keyword: str
    text: str
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Declaration:
    """One top-level declaration.

    Attributes:
        kind: ``method``, ``lemma``, ``function``, ``predicate``, ``datatype``, ...
        name: Its name ("" for an ``include`` or ``import``).
        start, end: Its offsets in the source.
        line, column: Where it starts.
        signature: Callables: the text before the first clause (modifiers, name, parameters,
            results).
        clauses: Callables: the specification clauses, in order.
        body: Callables: the body with its braces; None for a bodiless one.
        body_line, body_column: Where the body starts.
    """

    kind: str
    name: str
    start: int
    end: int
    line: int
    column: int
    signature: str = ""
    clauses: tuple[Clause, ...] = ()
    body: str | None = None
    body_line: int = 0
    body_column: int = 0

    @property
    def callable(self) -> bool:
        return self.kind in CALLABLES

    def header(self, clauses: Iterable[Clause] | None = None) -> str:
        """The signature and ``clauses`` (its own by default), one clause a line."""
        chosen = self.clauses if clauses is None else tuple(clauses)
        return "\n".join([self.signature, *(f"  {c.text}" for c in chosen)])


def declarations(source: str) -> list[Declaration]:
    """The top-level declarations of ``source``, in order (raises `lexer.LexError`)."""
    found = tokens(source)
    return [_declaration(source, found[a:b]) for a, b in _spans(found)]


@dataclass(frozen=True)
class Routine:
    """A method, lemma, function or predicate declared anywhere (a class's members too)."""

    kind: str
    name: str
    line: int
    column: int
    has_body: bool
    promises: bool  # (it has an ``ensures`` clause)


def routines(source: str) -> list[Routine]:
    """Every callable of ``source``, at any depth: what the gate and the grader's check of
    Dafny's trace need, which a class must not hide (raises `lexer.LexError`)."""
    found = tokens(source)
    result = []
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in CALLABLES or _continues(found, index):
            continue
        level, end = token.depth, index + 1
        while end < len(found) and not _ends_declaration(found[end], level):
            end += 1
        span = found[index:end]
        body = _body_brace(span)
        header = span if body is None else span[:body]
        promises = any(t.text == "ensures" and t.depth == level for t in header)
        result.append(Routine(token.text, _name_after(span, token.text), token.line, token.column, body is not None,
                               promises))  # fmt: skip
    return result


def _continues(found: Sequence[Token], index: int) -> bool:
    """Whether the word at ``index`` continues a declaration (``function method``)."""
    return index > 0 and found[index].text == "method" and found[index - 1].text in ("function", "predicate")


def _ends_declaration(token: Token, level: int) -> bool:
    """Whether ``token`` ends a declaration at ``level``: the next declaration there, or the
    bracket that closes around it."""
    return token.depth == level and (token.text in CLOSING or (token.kind == "name" and token.text in STARTS))


def _spans(found: Sequence[Token]) -> list[tuple[int, int]]:
    """Token index ranges of the top-level declarations."""
    starts: list[int] = []
    for index, token in enumerate(found):
        if token.depth == 0 and token.text in STARTS and token.kind == "name":
            previous = found[index - 1].text if index else ""
            if not (previous in MODIFIERS or (previous in ("function", "predicate") and token.text == "method")):
                starts.append(index)
    if not found:
        return []
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(found)], strict=True))


def _declaration(source: str, span: Sequence[Token]) -> Declaration:
    words = [t.text for t in span if t.kind == "name"]
    kind = next((w for w in words if w in STARTS - MODIFIERS), words[0] if words else "?")
    name = _name_after(span, kind)
    first, last = span[0], span[-1]
    base = Declaration(kind, name, first.start, last.end, first.line, first.column)
    if kind not in CALLABLES:
        return base
    body_at = _body_brace(span)
    header = span[:body_at] if body_at is not None else span
    clause_at = [i for i, t in enumerate(header) if t.text in CLAUSES and t.depth == 0]
    signature_end = clause_at[0] if clause_at else len(header)
    signature = source[first.start : header[signature_end - 1].end] if signature_end else ""
    bounds = [*clause_at, len(header)]
    clauses = tuple(
        Clause(header[a].text, source[header[a].start : header[b - 1].end], header[a].line, header[a].column)
        for a, b in itertools.pairwise(bounds)
    )
    if body_at is None:
        return Declaration(kind, name, first.start, last.end, first.line, first.column, signature, clauses)
    brace = span[body_at]
    close = _matching(span, body_at)
    body = source[brace.start : span[close].end]
    return Declaration(kind, name, first.start, span[close].end, first.line, first.column, signature, clauses,
                       body, brace.line, brace.column)  # fmt: skip


def _name_after(span: Sequence[Token], kind: str) -> str:
    """The first name after the ``kind`` word, outside attributes (``function method F``: F)."""
    level = span[0].depth if span else 0
    after = next((i + 1 for i, t in enumerate(span) if t.text == kind), len(span))
    names = (t.text for t in span[after:] if t.depth == level and t.kind == "name" and t.text != "method")
    return next(names, "")


def opens_block(previous: Token | None) -> bool:
    """Whether a ``{`` after ``previous`` opens a block (a body), not a set display."""
    if previous is None:
        return True
    if previous.kind in ("name", "number", "string", "char"):
        return previous.text not in _EXPRESSION_WORDS
    return previous.text in _BLOCK_AFTER


def _body_brace(span: Sequence[Token]) -> int | None:
    """The index of the body's opening brace: the first ``{`` at the declaration's own depth
    that opens a block."""
    level = span[0].depth if span else 0
    found = (
        i for i in range(1, len(span)) if span[i].depth == level and span[i].text == "{" and opens_block(span[i - 1])
    )
    return next(found, None)


def _matching(span: Sequence[Token], open_at: int) -> int:
    """The index of the bracket that closes the one at ``open_at`` (the last token if none does)."""
    inside = span[open_at].depth + 1
    found = (i for i in range(open_at + 1, len(span)) if span[i].depth == inside and span[i].text in CLOSING)
    return next(found, len(span) - 1)


# --- hints -----------------------------------------------------------------------------------


def strip_hints(source: str, names: Iterable[str] | None = None) -> str:
    """``source`` with the proof hints of its open callables (``names``, or every method and
    lemma) removed: loop ``invariant`` and ``decreases`` clauses, ``assert`` statements (with
    their ``by`` blocks), and the ``decreases`` clauses of their headers. A line left empty
    by a removal goes too."""
    chosen = set(names) if names is not None else None
    found = tokens(source)
    spans: list[tuple[int, int]] = []
    for declaration in declarations(source):
        if declaration.kind not in OPENABLE or (chosen is not None and declaration.name not in chosen):
            continue
        spans += _hint_spans([t for t in found if declaration.start <= t.start < declaration.end])
    return without(source, spans)


def _hint_spans(span: Sequence[Token]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(span):
        token = span[index]
        if token.text in ("invariant", "decreases") and token.kind == "name":
            end = _clause_end(span, index)
            spans.append((token.start, span[end - 1].end))
            index = end
        elif token.text == "assert" and token.kind == "name":
            end = _statement_end(span, index)
            spans.append((token.start, span[end].end))
            index = end + 1
        else:
            index += 1
    return spans


def _clause_end(span: Sequence[Token], at: int) -> int:
    """The index just past the clause that starts at ``at``: the next clause, the block it
    belongs to, or the bracket that closes around it."""
    level = span[at].depth
    for index in range(at + 1, len(span)):
        token = span[index]
        if token.depth != level:
            continue
        if token.text in CLAUSES or token.text in CLOSING or (token.text == "{" and opens_block(span[index - 1])):
            return index
    return len(span)


def _statement_end(span: Sequence[Token], at: int) -> int:
    """The index of the last token of the ``assert`` statement at ``at``: its ``;``, or the
    end of its ``by`` block."""
    level = span[at].depth
    for index in range(at + 1, len(span)):
        if span[index].depth != level:
            continue
        if span[index].text == ";":
            return index
        if span[index].text == "by":
            opening = next((i for i in range(index + 1, len(span)) if span[i].text == "{"), len(span) - 1)
            return _matching(span, opening)
    return len(span) - 1


def empty_bodies(source: str, names: Iterable[str] | None = None) -> str:
    """``source`` with the bodies of its open callables (``names``, or every method and
    lemma) emptied: what an ``impl`` task shows."""
    chosen = set(names) if names is not None else None
    parts, at = [], 0
    for declaration in declarations(source):
        if declaration.kind not in OPENABLE or declaration.body is None:
            continue
        if chosen is not None and declaration.name not in chosen:
            continue
        body_start = declaration.end - len(declaration.body)
        parts += [source[at:body_start], "{\n}"]
        at = declaration.end
    parts.append(source[at:])
    return "".join(parts)


# --- assembly ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """Lines of the assembled file that come from the agent's answer: ``lines`` of them from
    assembled line ``at``, which was line ``agent_line`` of the answer."""

    at: int
    agent_line: int
    lines: int


@dataclass(frozen=True)
class KillCheck:
    """A spec task's check method (`spec.kill_checks`) and the mutants it kills when it verifies."""

    name: str
    mutants: tuple[int, ...]


@dataclass(frozen=True)
class Assembly:
    """The file the verifier checks, and where its lines came from.

    Attributes:
        text: The file.
        segments: The lines that are the agent's (everything else is trusted text).
        kept: Names the agent redefined whose trusted definitions were kept.
        missing: Open names the agent's answer lacks (their given bodies were used).
        canary: The name of the appended lemma ``ensures false``, which must not verify (no
            underscore: Dafny doubles those in the names it reports).
        kills: A spec task's appended check methods (`spec.kill_checks`), which are not
            the answer's procedures.
    """

    text: str
    segments: tuple[Segment, ...] = ()
    kept: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    canary: str = ""
    kills: tuple[KillCheck, ...] = ()

    @property
    def program(self) -> str:
        """The file without the canary, as bare Dafny verifies the program: the canary's lines
        are blank, so every other line keeps its number. (Adding a lemma changes what Z3 does
        on a fragile proof: a ground truth that bare Dafny verifies may fail beside it.)"""
        return self.text.replace(canary_lemma(self.canary), "\n" * canary_lemma(self.canary).count("\n"), 1)

    @property
    def checks(self) -> tuple[str, ...]:
        """The names of the env's own procedures: the canary and the kill checks."""
        return (self.canary, *(k.name for k in self.kills))

    def agent_line(self, line: int) -> int | None:
        """The answer's line of assembled line ``line``, or None for a trusted line."""
        for segment in self.segments:
            if segment.at <= line < segment.at + segment.lines:
                return segment.agent_line + line - segment.at
        return None


def _words(text: str) -> list[str]:
    return [t.text for t in tokens(text)]


@dataclass
class _Builder:
    parts: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    line: int = 1

    def trusted(self, text: str) -> None:
        self.parts.append(text)
        self.line += text.count("\n")

    def agent(self, text: str, line: int, column: int) -> None:
        """The agent's ``text`` (which began at ``line``, ``column`` of the answer) on a line
        of its own, indented as it was, so its lines and columns map one to one."""
        self.trusted("\n" + " " * (column - 1))
        self.segments.append(Segment(self.line, line, text.count("\n") + 1))
        self.trusted(text)


def assemble(trusted: str, given: str, answer: str, open_names: Iterable[str]) -> Assembly:
    """The file to verify: ``trusted`` (the full specification: every declaration, with the
    task's reference bodies) with each open callable's body and header ``decreases`` taken from
    ``answer`` (else from ``given``, what the task showed), then the answer's own new
    declarations, then the canary. Raises `lexer.LexError` for an answer that does not lex."""
    opened = set(open_names)
    ours = declarations(trusted)
    shown = {d.name: d for d in declarations(given) if d.callable}
    theirs = declarations(answer)
    by_name = {d.name: d for d in theirs if d.callable}
    build = _Builder()
    at = 0
    for declaration in ours:
        if declaration.name not in opened or not declaration.callable:
            continue
        replacement = by_name.get(declaration.name)
        source = (
            replacement if replacement is not None and replacement.body is not None else shown.get(declaration.name)
        )
        if source is None or source.body is None:
            continue
        build.trusted(trusted[at : declaration.start])
        clauses = [c for c in declaration.clauses if c.keyword != "decreases"]
        clauses += [c for c in source.clauses if c.keyword == "decreases"]
        build.trusted(declaration.header(clauses))
        if source is replacement:
            build.agent(source.body, source.body_line, source.body_column)
        else:
            build.trusted("\n" + source.body)
        at = declaration.end
    build.trusted(trusted[at:])
    missing = tuple(sorted(n for n in opened if n not in by_name or by_name[n].body is None))
    return _finish(build, trusted, ours, answer, theirs, opened, missing)


SPEC_CLAUSES = frozenset({"requires", "ensures"})


def strip_spec(source: str, target: str, keywords: Iterable[str] = SPEC_CLAUSES) -> str:
    """``source`` without the ``requires`` and ``ensures`` clauses (``keywords``) of
    ``target``: what a ``spec`` task shows."""
    removed = frozenset(keywords)
    found = tokens(source)
    spans = []
    for declaration in declarations(source):
        if declaration.name != target or not declaration.callable:
            continue
        span = [t for t in found if declaration.start <= t.start < declaration.end]
        body = _body_brace(span)
        header = span if body is None else span[: body + 1]
        for index, token in enumerate(header):
            if token.text in removed and token.depth == span[0].depth:
                spans.append((token.start, header[_clause_end(header, index) - 1].end))
    return without(source, spans)


def assemble_spec(trusted: str, answer: str, target: str) -> Assembly:
    """The file to verify for a ``spec`` answer: ``trusted`` with the ``requires`` and
    ``ensures`` clauses of ``target`` taken from the answer's copy of it (none when it has
    none); its signature, other clauses and body, and everything else, are the task's. Then
    the answer's new declarations (helper predicates and functions) and the canary. Raises
    `lexer.LexError` for an answer that does not lex."""
    ours = declarations(trusted)
    theirs = declarations(answer)
    declaration = next(d for d in ours if d.name == target and d.callable and d.body is not None)
    mine = next((d for d in theirs if d.name == target and d.callable), None)
    build = _Builder()
    build.trusted(trusted[: declaration.start] + declaration.signature)
    for clause in mine.clauses if mine is not None else ():
        if clause.keyword in SPEC_CLAUSES:
            build.agent(clause.text, clause.line, clause.column)
    for clause in declaration.clauses:
        if clause.keyword not in SPEC_CLAUSES:
            build.trusted(f"\n  {clause.text}")
    build.trusted(f"\n{declaration.body}{trusted[declaration.end :]}")
    return _finish(build, trusted, ours, answer, theirs, {target}, () if mine is not None else (target,))


def _finish(build: _Builder, trusted: str, ours: Sequence[Declaration], answer: str, theirs: Sequence[Declaration],
            opened: set[str], missing: tuple[str, ...]) -> Assembly:  # fmt: skip
    """Append the answer's new declarations and the canary to ``build``."""
    known = {d.name for d in ours if d.name}
    texts = {d.name: _words(trusted[d.start : d.end]) for d in ours}
    kept = tuple(d.name for d in theirs if d.name in texts and d.name not in opened
                 and _words(answer[d.start : d.end]) != texts[d.name])  # fmt: skip
    for declaration in theirs:
        if declaration.name in known or declaration.kind in ("include", "import", "module"):
            continue
        build.trusted("\n")
        build.agent(answer[declaration.start : declaration.end], declaration.line, declaration.column)
    text = "".join(build.parts)
    canary = "CodegymCanary" + hashlib.sha256(text.encode()).hexdigest()[:16]
    build.trusted(canary_lemma(canary))
    return Assembly("".join(build.parts), tuple(build.segments), kept, missing, canary)


def canary_lemma(name: str) -> str:
    """The canary's text as the assembly appends it: a lemma ``ensures false``, which must
    not verify (if it does, the program's declarations are inconsistent)."""
    return f"\n\nlemma {name}()\n  ensures false\n{{\n}}\n"
