"""Procedural bugs in any language with a tree-sitter grammar (``tree-sitter-language-pack``).

The Python family's bugs (`codegym.envs.repo_repair.mutations`) work on Python's own `ast`;
these work on a grammar's syntax tree, so one set of kinds serves every language whose recipe
(``data/languages/<language>.toml``, its ``[syntax]``) names its node types. Each kind finds its
sites in a file and splices the file's bytes at a node (never a re-printing), so a diff touches
only what it changes; a mutant whose file no longer parses cleanly is never offered. The kinds:

- ``flip_operator``: ``<``/``>=``, ``>``/``<=``, ``==``/``!=`` (and ``===``/``!==``), ``&&``/``||``,
  ``+``/``-``, ``*``/``/``, ``<<``/``>>``, ``&``/``|``.
- ``change_constant``: integer 0 to 1, 1 to 0, n to n + 1 (decimal literals); ``true``/``false``.
- ``negate_condition``: an ``if``'s condition ``c`` becomes ``!(c)``.
- ``swap_operands``: ``a op b`` to ``b op a`` for ``- / % << >>`` and the comparisons.

A bug's address is (file, kind, index among that kind's sites in the file), which the same
tree and grammar always resolve to the same edit.

Where a language keeps tests inside its source files (Rust's ``#[cfg(test)] mod tests``, a
``#[test]`` function), its ``[syntax]`` names the attributes that mark them
(``test_attributes``, ``test_attribute``): `test_regions` finds those items, no bug is drawn in
them, and `tests_changed` says when a fix changes them (the grader refuses it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codegym.envs.repo_repair.projects import language_table

from codegym.error import DependencyNotInstalled

KINDS = ("flip_operator", "change_constant", "negate_condition", "swap_operands")
FLIPS = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==", "===": "!==", "!==": "===",
         "&&": "||", "||": "&&", "+": "-", "-": "+", "*": "/", "/": "*", "<<": ">>", ">>": "<<",
         "&": "|", "|": "&"}  # fmt: skip
SWAPPABLE = ("-", "/", "%", "<<", ">>", "<", "<=", ">", ">=")
BOOLEANS = {"true": "false", "false": "true"}


@dataclass(frozen=True)
class Syntax:
    """A language's node types, as its grammar names them (see ``data/languages/README.md``)."""

    grammar: str
    binary: tuple[str, ...]
    integer: tuple[str, ...]
    boolean: tuple[str, ...]
    conditional: tuple[str, ...]
    test_attributes: tuple[str, ...] = ()
    test_attribute: str = ""


@dataclass(frozen=True)
class Mutant:
    """One bug: where it is, and the file's text with it.

    Attributes:
        path: The file (relative to the project's root).
        kind: One of `KINDS`.
        index: Its place among the sites of ``kind`` in the file.
        line: The 1-based line the edit starts on.
        text: The whole file with the bug.
    """

    path: str
    kind: str
    index: int
    line: int
    text: bytes


@functools.cache
def syntax_of(language: str) -> Syntax:
    """``language``'s node types (the ``[syntax]`` of ``data/languages/<language>.toml``)."""
    table = language_table(language).get("syntax")
    if table is None:
        raise KeyError(f"language {language!r} names no syntax (a [syntax] table in data/languages/{language}.toml)")
    kinds = (tuple(table[key]) for key in ("binary", "integer", "boolean", "conditional"))
    marks = tuple(table.get("test_attributes", ()))
    return Syntax(table["grammar"], *kinds, test_attributes=marks, test_attribute=str(table.get("test_attribute", "")))


@functools.cache
def _parser(grammar: str) -> Any:
    try:
        from tree_sitter_language_pack import get_parser
    except ImportError as e:
        raise DependencyNotInstalled(
            "bugs in projects of other languages are made on tree-sitter grammars: pip install 'codegym[repo]'"
        ) from e
    return get_parser(grammar)  # type: ignore[arg-type]


def parses(grammar: str, source: bytes) -> bool:
    """Whether ``source`` parses without an error or a missing node."""
    return not _parser(grammar).parse(source).root_node.has_error


Site = tuple[int, int, bytes]  # (an edit: the bytes from start to end replaced)


def mutants(path: str, source: bytes, language: str, kinds: Sequence[str] = KINDS) -> Iterator[Mutant]:
    """Every bug of ``kinds`` in the file ``source`` (at ``path``), in a stable order; only
    those whose file still parses cleanly (a file that did not is offered none)."""
    for kind, sites in _sites(source, language, kinds).items():
        for index, site in enumerate(sites):
            found = _made(path, source, language, kind, index, site)
            if found is not None:
                yield found


def mutant(path: str, source: bytes, language: str, kind: str, index: int) -> Mutant | None:
    """The bug at ``(path, kind, index)``, or None where it no longer exists."""
    sites = _sites(source, language, (kind,)).get(kind, [])
    return _made(path, source, language, kind, index, sites[index]) if 0 <= index < len(sites) else None


def _made(path: str, source: bytes, language: str, kind: str, index: int, site: Site) -> Mutant | None:
    """The mutant an edit makes, or None where it changes nothing or leaves a file that does not parse."""
    start, end, replacement = site
    text = source[:start] + replacement + source[end:]
    if text == source or not parses(syntax_of(language).grammar, text):
        return None
    return Mutant(path, kind, index, source.count(b"\n", 0, start) + 1, text)


def _sites(source: bytes, language: str, kinds: Sequence[str]) -> dict[str, list[Site]]:
    """The edits of each of ``kinds`` a file offers outside its tests, from one parse (none
    where it does not parse)."""
    syntax = syntax_of(language)
    tree = _parser(syntax.grammar).parse(source)
    if tree.root_node.has_error:
        return {}
    nodes = list(_walk(tree.root_node))
    regions = _test_regions(nodes, syntax)
    return {kind: [edit for edit in _EDITS[kind](nodes, syntax, source) if not _inside(edit[0], regions)]
            for kind in kinds}  # fmt: skip


def test_regions(source: bytes, language: str) -> list[tuple[int, int]]:
    """The byte ranges of the tests inside the file ``source``: each item an attribute of
    ``test_attributes`` matching ``test_attribute`` marks, from the attribute to the item's end
    (an inner attribute, ``#![cfg(test)]``, marks the whole item it is in). Empty for a
    language whose tests live in files of their own."""
    syntax = syntax_of(language)
    if not syntax.test_attributes:
        return []
    return _test_regions(list(_walk(_parser(syntax.grammar).parse(source).root_node)), syntax)


def tests_changed(language: str, before: Mapping[str, str], after: Mapping[str, bytes]) -> str | None:
    """Why a fix that makes the files ``after`` of ``before`` is refused: a file whose tests
    inside it (`test_regions`) are not, in number and in text, what they were; or None."""
    if not syntax_of(language).test_attributes:
        return None
    for path, data in after.items():
        old = before.get(path, "").encode()
        old_tests = [old[start:end] for start, end in test_regions(old, language)]
        new_tests = [data[start:end] for start, end in test_regions(data, language)]
        if old_tests != new_tests:
            return f"{path}: changes, adds or removes tests inside a source file (the harness's, as test files are)"
    return None


def _test_regions(nodes: list[Any], syntax: Syntax) -> list[tuple[int, int]]:
    if not syntax.test_attributes:
        return []
    pattern = re.compile(syntax.test_attribute)
    regions = []
    for node in nodes:
        if node.type not in syntax.test_attributes or not pattern.search(node.text.decode(errors="replace")):
            continue
        if node.text.startswith(b"#!") and node.parent is not None:  # (an inner attribute: its whole item)
            regions.append((node.parent.start_byte, node.parent.end_byte))
            continue
        item = node.next_named_sibling
        while item is not None and (item.type in syntax.test_attributes or "comment" in item.type):
            item = item.next_named_sibling
        regions.append((node.start_byte, item.end_byte if item is not None else node.end_byte))
    return regions


def _inside(offset: int, regions: Sequence[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in regions)


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


Edit = tuple[int, int, bytes]


def _flips(nodes: list[Any], syntax: Syntax, source: bytes) -> Iterator[Edit]:
    for node in nodes:
        if node.type in syntax.binary:
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.text.decode() in FLIPS:
                yield operator.start_byte, operator.end_byte, FLIPS[operator.text.decode()].encode()


def _constants(nodes: list[Any], syntax: Syntax, source: bytes) -> Iterator[Edit]:
    for node in nodes:
        text = node.text.decode(errors="replace")
        if node.type in syntax.integer and text.isdigit():
            number = int(text)
            changed = {0: 1, 1: 0}.get(number, number + 1)
            yield node.start_byte, node.end_byte, str(changed).encode()
        elif node.type in syntax.boolean and text in BOOLEANS:
            yield node.start_byte, node.end_byte, BOOLEANS[text].encode()


def _negations(nodes: list[Any], syntax: Syntax, source: bytes) -> Iterator[Edit]:
    for node in nodes:
        if node.type in syntax.conditional:
            condition = node.child_by_field_name("condition")
            if condition is None:
                continue
            text = condition.text
            negated = b"(!" + text + b")" if text.startswith(b"(") and text.endswith(b")") else b"!(" + text + b")"
            yield condition.start_byte, condition.end_byte, negated


def _swaps(nodes: list[Any], syntax: Syntax, source: bytes) -> Iterator[Edit]:
    for node in nodes:
        if node.type not in syntax.binary:
            continue
        operator, left, right = (node.child_by_field_name(name) for name in ("operator", "left", "right"))
        if operator is None or left is None or right is None or operator.text.decode() not in SWAPPABLE:
            continue
        middle = source[left.end_byte : right.start_byte]
        yield left.start_byte, right.end_byte, right.text + middle + left.text


_EDITS: Mapping[str, Any] = {
    "flip_operator": _flips,
    "change_constant": _constants,
    "negate_condition": _negations,
    "swap_operands": _swaps,
}
