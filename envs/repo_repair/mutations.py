"""Procedural bug injection into Python source, the raw material of repository-repair tasks.

Each kind finds its sites with :mod:`ast` and splices the source *text* at the nodes' positions
(never an unparse), so a diff touches only the lines it changes and comments elsewhere stay. A
mutation is offered only if its enclosing function, class or top-level statement still parses and
has a different AST. The kinds and their edits:

- ``flip_operator``: ``<``/``>=``, ``>``/``<=``, ``==``/``!=``, ``in``/``not in``, ``is``/``is not``,
  ``+``/``-``, ``*``/``/``, ``//`` to ``*``, ``|``/``&``, ``and``/``or``, and the augmented forms.
- ``change_constant``: int 0 to 1, 1 to 0, n to n + 1; ``True``/``False``; a non-empty string in a
  comparison (or in a tuple/list/set compared against) loses its last character, or is doubled.
- ``swap_operands``: ``a op b`` to ``b op a`` for ``- / // % ** << >>`` and a lone ``< <= > >= in
  not in``; two adjacent distinct plain-name positional arguments of a call (not ``max``/``min``).
- ``invert_if``: ``if``/``else`` branches swapped; an ``if`` without plain ``else`` negated;
  ``x if c else y`` to ``y if c else x``.
- ``remove_condition``: one operand of an ``and``/``or`` chain dropped; an ``if`` without ``else``
  (not an ``elif``) replaced by its dedented body.
- ``remove_assignment``: an assignment statement deleted (``pass`` if alone in its block).
- ``remove_loop_or_wrapper``: ``with`` replaced by its body; ``try``/``except`` without ``else`` or
  ``finally`` by its ``try`` body; a ``for``/``while`` without ``else`` deleted (or ``pass``).
- ``shuffle_statements``: two adjacent assignments/expression statements swapped when one writes
  a name, attribute or method-call receiver that the other reads or writes.
- ``drop_method``: a method deleted (``pass`` if the class empties); never a lone ``__init__`` nor
  one a decorator refers to (``@name.setter``).
- ``drop_base_class``: one base of several, or the only base of a class with methods; never
  ``object``, ``Generic`` or ``Protocol``.

Statement forms (``if``, assignments, loops, wrappers, shuffles) act only inside functions. Never
touched: test files, ``if __name__ == "__main__":`` and ``if TYPE_CHECKING:`` blocks, decorators,
annotations, f-strings, docstrings, abstract methods and stubs (only ``...`` or ``raise
NotImplementedError``).
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from codegym.envs.repo_repair.source import SPACE, Edit, Source, splice, split_lines, unified

KINDS: tuple[str, ...] = ("flip_operator", "change_constant", "swap_operands", "invert_if", "remove_condition",
                          "remove_assignment", "remove_loop_or_wrapper", "shuffle_statements", "drop_method",
                          "drop_base_class")  # fmt: skip

_FLIPS = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==", "in": "not in", "not in": "in",
          "is": "is not", "is not": "is", "+": "-", "-": "+", "*": "/", "/": "*", "//": "*", "|": "&", "&": "|",
          "and": "or", "or": "and", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=", "//=": "*=", "|=": "&=",
          "&=": "|="}  # fmt: skip
_ASYMMETRIC = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
               ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)  # fmt: skip
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Tuple, ast.Dict, ast.Set,
          ast.ListComp, ast.SetComp, ast.DictComp)  # fmt: skip
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_ASSIGNS = (ast.Assign, ast.AugAssign, ast.AnnAssign)
_ABSTRACT = {"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"}
_KEPT_BASES = {"object", "Generic", "Protocol"}
_SYMMETRIC_CALLS = {"max", "min"}
_TEST_PATH = re.compile(r"(^|[/\\_.-])(tests?|testing|conftest)([/\\_.-]|$)")


@dataclass(frozen=True)
class Mutation:
    """One injected bug: where it is, what it did, and the file before and after.

    Attributes:
        kind: One of :data:`KINDS`.
        path: The file, relative to the library's root.
        line: The 1-based line of the change in the original file.
        symbol: Qualified name of the enclosing function or class (``"Table.insert"``), if any.
        description: One plain sentence for a problem statement's author.
        original: The file's source before.
        mutated: The file's source after.
    """

    kind: str
    path: str
    line: int
    symbol: str | None
    description: str
    original: str = field(repr=False)
    mutated: str = field(repr=False)

    def bug_patch(self) -> str:
        """Returns the unified diff (git-style ``a/``/``b/`` headers) from the original to the mutated file."""
        return unified(self.path, self.original, self.mutated)

    def fix_patch(self) -> str:
        """Returns the unified diff that undoes :meth:`bug_patch`."""
        return unified(self.path, self.mutated, self.original)


def candidates(source: str, path: str, *, kinds: Iterable[str] = KINDS) -> list[Mutation]:
    """Lists every mutation a file allows, grouped by kind in :data:`KINDS` order, then in source order.

    Args:
        source: The file's text.
        path: The file's path relative to the library's root; test files yield nothing.
        kinds: The kinds to look for.

    Returns:
        The mutations; each parses and changes the AST.

    Raises:
        ValueError: A kind is not one of :data:`KINDS`.
        SyntaxError: ``source`` is not valid Python.
    """
    wanted = _check_kinds(kinds)
    if _TEST_PATH.search(path.lower()):
        return []
    src = Source(source)
    sites = _sites(src.tree)
    found = []
    for kind in wanted:
        for site in sites:
            for change in _FINDERS[kind](src, site):
                mutated = src.mutate(site.unit, change.edits)
                if mutated is not None:
                    found.append(Mutation(kind, path, change.line, change.symbol, change.description, source, mutated))
    return found


def sample(
    source: str, path: str, rng: random.Random, *, kinds: Iterable[str] = KINDS, limit: int = 10
) -> list[Mutation]:
    """Draws up to ``limit`` mutations, taking kinds in turn and preferring functions not yet used.

    Args:
        source: The file's text.
        path: The file's path relative to the library's root.
        rng: The only source of randomness; the same seed gives the same sample.
        kinds: The kinds to draw from.
        limit: The most mutations to return.

    Returns:
        The drawn mutations, in the order drawn.

    Raises:
        ValueError: ``limit`` is negative or a kind is unknown.
    """
    if limit < 0:
        raise ValueError(f"limit must be at least 0, got {limit}")
    pools: dict[str, list[Mutation]] = {}
    for mutation in candidates(source, path, kinds=kinds):
        pools.setdefault(mutation.kind, []).append(mutation)
    for pool in pools.values():
        rng.shuffle(pool)
    order = list(pools)
    rng.shuffle(order)
    chosen: list[Mutation] = []
    used: set[str | None] = set()
    while len(chosen) < limit and any(pools.values()):
        for kind in order:
            pool = pools[kind]
            if pool and len(chosen) < limit:
                index = next((i for i, m in enumerate(pool) if m.symbol not in used), 0)
                chosen.append(pool.pop(index))
                used.add(chosen[-1].symbol)
    return chosen


def _check_kinds(kinds: Iterable[str]) -> list[str]:
    wanted = set(kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ValueError(f"unknown mutation kind(s) {unknown}; expected some of {list(KINDS)}")
    return [kind for kind in KINDS if kind in wanted]


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _chain(node: ast.expr) -> str | None:
    """Returns ``a.b.c`` for a name or an attribute chain on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _chain(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _qualify(*parts: str | None) -> str | None:
    return ".".join(p for p in parts if p) or None


def _where(symbol: str | None) -> str:
    return f"in {symbol}" if symbol else "at module level"


@dataclass(frozen=True)
class _Site:
    node: ast.AST
    symbol: str | None  # the enclosing function or class
    unit: ast.stmt  # the enclosing function, class or top-level statement: what `mutate` re-parses
    in_function: bool


class _Change(NamedTuple):
    line: int
    symbol: str | None
    description: str
    edits: list[Edit]


def _sites(tree: ast.Module) -> list[_Site]:
    """Lists the nodes open to mutation, in source order, with their context (iteratively: no recursion limit)."""
    sites: list[_Site] = []
    stack = [_Site(stmt, None, stmt, False) for stmt in reversed(tree.body)]
    while stack:
        site = stack.pop()
        node, symbol, unit, in_function = site.node, site.symbol, site.unit, site.in_function
        if _skipped(node):
            continue
        sites.append(site)
        children: Sequence[ast.AST]
        if isinstance(node, (*_DEFS, ast.ClassDef)):
            symbol, unit, in_function = _qualify(symbol, node.name), node, isinstance(node, _DEFS)
            defaults = [*node.args.defaults, *node.args.kw_defaults] if isinstance(node, _DEFS) else []
            children = [d for d in defaults if d is not None] + node.body
        elif isinstance(node, ast.Lambda):
            children = [d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None] + [node.body]
        elif isinstance(node, ast.AnnAssign):  # not the annotation
            children = [node.target] + ([node.value] if node.value else [])
        elif isinstance(node, ast.JoinedStr):
            children = []
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(_Site(child, symbol, unit, in_function) for child in reversed(children))
    return sites


def _skipped(node: ast.AST) -> bool:
    if isinstance(node, ast.If):
        test = node.test
        name = _chain(test) or ""
        main = (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], ast.Eq)
            and {_chain(test.left), _chain(test.comparators[0])} == {"__name__", None}
            and "__main__" in {getattr(test.left, "value", None), getattr(test.comparators[0], "value", None)}
        )
        return main or name == "TYPE_CHECKING" or name.endswith(".TYPE_CHECKING")
    if isinstance(node, ast.Expr):  # docstrings and other bare strings
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, _DEFS):
        return _is_stub(node)
    return False


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Abstract, or a body of only a docstring, ``...`` or ``raise NotImplementedError``."""
    names = (_chain(d.func if isinstance(d, ast.Call) else d) or "" for d in node.decorator_list)
    if any(name.rsplit(".", 1)[-1] in _ABSTRACT for name in names):
        return True
    body = node.body[1:] if isinstance(node.body[0], ast.Expr) and _skipped(node.body[0]) else node.body
    if not body:
        return True
    if len(body) > 1:
        return False
    only = body[0]
    if isinstance(only, ast.Expr):
        return isinstance(only.value, ast.Constant) and only.value.value is Ellipsis
    if isinstance(only, ast.Raise) and only.exc is not None:
        exc = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return _chain(exc) == "NotImplementedError"
    return False


def _wrap(node: ast.expr, text: str, atoms: tuple[type, ...] = _ATOMS) -> str:
    return text if isinstance(node, atoms) else f"({text})"


def _flip_operator(src: Source, site: _Site) -> Iterator[_Change]:
    for start, end, op in src.operators(site.node):
        if op in _FLIPS:
            description = f"`{op}` became `{_FLIPS[op]}` {_where(site.symbol)}"
            yield _Change(src.line_of(start), site.symbol, description, [(start, end, _FLIPS[op])])


def _change_constant(src: Source, site: _Site) -> Iterator[_Change]:
    node, targets = site.node, list[tuple[ast.expr, str]]()
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        targets = [(node, str(not node.value))]
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        value, text = {0: 1, 1: 0}.get(node.value, node.value + 1), src.segment(node)
        targets = [(node, {"0x": hex, "0o": oct, "0b": bin}.get(text[:2].lower(), str)(value))]
    elif isinstance(node, ast.Compare):
        for operand in [node.left, *node.comparators]:
            for item in operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]:
                if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value:
                    targets.append((item, repr(item.value[:-1] if len(item.value) > 1 else item.value * 2)))
    for target, new in targets:
        description = f"`{_short(src.segment(target))}` became `{new}` {_where(site.symbol)}"
        yield _Change(target.lineno, site.symbol, description, [(src.start(target), src.end(target), new)])


def _swap_operands(src: Source, site: _Site) -> Iterator[_Change]:
    node, pairs = site.node, list[tuple[ast.expr, ast.expr]]()
    if not isinstance(node, ast.expr):
        return
    if isinstance(node, ast.Call) and (_chain(node.func) or "").rsplit(".", 1)[-1] not in _SYMMETRIC_CALLS:
        args = [arg if isinstance(arg, ast.Name) else None for arg in node.args]
        pairs = [(a, b) for a, b in itertools.pairwise(args) if a and b and a.id != b.id]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _ASYMMETRIC):
        pairs = [(node.left, node.right)]
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _ASYMMETRIC):
        pairs = [(node.left, node.comparators[0])]
    for left, right in pairs:
        if left.lineno != left.end_lineno or right.lineno != right.end_lineno:
            continue
        edits = [
            (src.start(left), src.end(left), _wrap(right, src.segment(right))),
            (src.start(right), src.end(right), _wrap(left, src.segment(left))),
        ]
        new = splice(src.segment(node), edits, -src.start(node))
        description = f"`{_short(src.segment(node))}` became `{_short(new)}` {_where(site.symbol)}"
        yield _Change(left.lineno, site.symbol, description, edits)


def _invert_if(src: Source, site: _Site) -> Iterator[_Change]:
    node, where = site.node, _where(site.symbol)
    if isinstance(node, ast.IfExp):
        loose = (ast.IfExp, ast.Lambda, ast.NamedExpr)
        body, orelse = src.segment(node.body), src.segment(node.orelse)
        edits = [
            (src.start(node.body), src.end(node.body), orelse if not isinstance(node.orelse, loose) else f"({orelse})"),
            (src.start(node.orelse), src.end(node.orelse), body if not isinstance(node.body, loose) else f"({body})"),
        ]
        description = f"the two outcomes of `{_short(src.segment(node))}` were swapped {where}"
        yield _Change(node.lineno, site.symbol, description, edits)
    elif isinstance(node, ast.If) and site.in_function:
        if node.orelse and not _is_elif(src, node.orelse[0]):
            first, second = src.statements(node.body), src.statements(node.orelse)
            if first and second:
                text = src.text
                swapped = text[second[0] : second[1]] + text[first[1] : second[0]] + text[first[0] : first[1]]
                description = f"the `if` and `else` branches of the `if` at line {node.lineno} were swapped {where}"
                yield _Change(node.lineno, site.symbol, description, [(first[0], second[1], swapped)])
            return
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            new = src.segment(test.operand)
        else:
            new = "not " + _wrap(test, src.segment(test), (*_ATOMS, ast.Compare))
        description = f"the `if` condition `{_short(src.segment(test))}` became `{_short(new)}` {where}"
        yield _Change(node.lineno, site.symbol, description, [(src.start(test), src.end(test), new)])


def _is_elif(src: Source, node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and src.masked.startswith("elif", src.start(node))


def _remove_condition(src: Source, site: _Site) -> Iterator[_Change]:
    node, where = site.node, _where(site.symbol)
    if isinstance(node, ast.BoolOp):
        ops, values = src.operators(node), node.values
        for i, value in enumerate(values):
            if i == 0:
                edit = (src.start(node), src.skip_space(ops[0][1], 1), "")
            else:
                stop = src.skip_space(ops[i][0], -1) if i < len(ops) else src.end(node)
                edit = (src.skip_space(ops[i - 1][0], -1), stop, "")
            new = splice(src.segment(node), [edit], -src.start(node))
            description = f"`{_short(src.segment(node))}` became `{_short(new)}` {where}"
            yield _Change(value.lineno, site.symbol, description, [edit])
    elif isinstance(node, ast.If) and site.in_function and not node.orelse and not _is_elif(src, node):
        edits = _unwrap(src, node, node.body)
        if edits:
            test = _short(src.segment(node.test))
            description = f"the guard `if {test}:` at line {node.lineno} was removed, so its body always runs, {where}"
            yield _Change(node.lineno, site.symbol, description, edits)


def _unwrap(src: Source, node: ast.stmt, body: list[ast.stmt]) -> list[Edit] | None:
    """Replaces a compound statement by ``body``, dedented to the statement's own indentation."""
    outer, inner = src.statements([node]), src.statements(body)
    indent, body_indent = src.indent(node.lineno), src.indent(body[0].lineno)
    if not outer or not inner or len(body_indent) <= len(indent) or not body_indent.startswith(indent):
        return None
    cut, lines = len(body_indent) - len(indent), []
    for number, line in enumerate(split_lines(src.text[inner[0] : inner[1]]), body[0].lineno):
        keep = number in src.string_lines
        lines.append(line if keep else line[min(cut, len(line) - len(line.lstrip(" \t\f"))) :])
    return [(outer[0], outer[1], "".join(lines))]


def _remove_statement(src: Source, stmt: ast.stmt) -> list[Edit] | None:
    """Deletes a statement's lines, or puts ``pass`` in its place when it is alone in its block."""
    block, span = src.blocks[id(stmt)], src.statements([stmt])
    if len(block) > 1 and span:
        # Take the comment lines just above along, and one of the blank lines around, so that nothing
        # left behind (an orphan comment, two blank lines in a row) points at where code went missing.
        first, last = src.line_of(span[0]), src.line_of(span[1] - 1)
        while src.is_comment(first - 1):
            first -= 1
        above, below = src.is_blank(first - 1), src.is_blank(last + 1)
        if above and stmt is block[-1]:
            first -= 1
        elif below and (above or stmt is block[0]):
            last += 1
        return [(*src.lines(first, last), "")]
    if len(block) > 1:
        return None
    if span:
        return [(span[0], span[1], src.indent(src.line_of(span[0])) + "pass\n")]
    return None if getattr(stmt, "decorator_list", None) else [(src.start(stmt), src.end(stmt), "pass")]


def _remove_assignment(src: Source, site: _Site) -> Iterator[_Change]:
    node = site.node
    if isinstance(node, _ASSIGNS) and site.in_function and not (isinstance(node, ast.AnnAssign) and not node.value):
        edits = _remove_statement(src, node)
        if edits:
            description = f"the assignment `{_short(src.segment(node))}` was removed {_where(site.symbol)}"
            yield _Change(node.lineno, site.symbol, description, edits)


def _remove_loop_or_wrapper(src: Source, site: _Site) -> Iterator[_Change]:
    node, where = site.node, _where(site.symbol)
    if not site.in_function:
        return
    if isinstance(node, (ast.With, ast.AsyncWith)):
        edits, what = _unwrap(src, node, node.body), f"the `with` statement at line {node.lineno} became its body"
    elif isinstance(node, ast.Try) and node.handlers and not node.orelse and not node.finalbody:
        edits, what = _unwrap(src, node, node.body), f"the `try` at line {node.lineno} lost its `except` handlers"
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and not node.orelse:
        loop = "while" if isinstance(node, ast.While) else "for"
        edits, what = _remove_statement(src, node), f"the `{loop}` loop at line {node.lineno} was removed"
    else:
        return
    if edits:
        yield _Change(node.lineno, site.symbol, f"{what} {where}", edits)


def _shuffle_statements(src: Source, site: _Site) -> Iterator[_Change]:
    first = site.node
    if not (site.in_function and isinstance(first, (*_ASSIGNS, ast.Expr))):
        return
    block = src.blocks[id(first)]
    index = next(i for i, stmt in enumerate(block) if stmt is first)
    second = block[index + 1] if index + 1 < len(block) else None
    if not isinstance(second, (*_ASSIGNS, ast.Expr)) or _skipped(second):
        return
    (reads1, writes1), (reads2, writes2) = _effects(first), _effects(second)
    if not (writes1 & (reads2 | writes2) or writes2 & reads1):  # order matters only if one writes what the other uses
        return
    upper, lower = src.statements([first]), src.statements([second])
    if upper and lower:
        text = src.text
        swapped = text[lower[0] : lower[1]] + text[upper[1] : lower[0]] + text[upper[0] : upper[1]]
        description = (
            f"`{_short(src.segment(first), 40)}` and `{_short(src.segment(second), 40)}` "
            f"(lines {first.lineno} and {second.lineno}) were swapped {_where(site.symbol)}"
        )
        yield _Change(first.lineno, site.symbol, description, [(upper[0], lower[1], swapped)])


def _effects(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """Names and attribute chains a statement reads and writes; a method call writes its receiver."""
    reads: set[str] = set()
    writes: set[str] = set()
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    for target in targets:
        writes |= _stored(target) if target else set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            reads.add(_chain(node) or "")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            writes.add(_chain(node.func.value) or "")
    if isinstance(stmt, ast.AugAssign):
        reads |= writes
    return reads - {""}, writes - {""}


def _stored(target: ast.expr) -> set[str]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_stored(elt) for elt in target.elts))
    if isinstance(target, (ast.Starred, ast.Subscript)):
        return _stored(target.value)
    chain = _chain(target)
    return {chain} if chain else set()


def _drop_method(src: Source, site: _Site) -> Iterator[_Change]:
    cls = site.node
    if not isinstance(cls, ast.ClassDef):
        return
    methods = [stmt for stmt in cls.body if isinstance(stmt, _DEFS)]
    referenced = set()  # `@x.setter` needs `x` to exist when the class body runs
    for method in methods:
        for decorator in method.decorator_list:
            name = _chain(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
            referenced.add(name.split(".")[0] if "." in name else "")
    for method in methods:
        if _is_stub(method) or method.name in referenced or (method.name == "__init__" and len(methods) == 1):
            continue
        edits = _remove_statement(src, method)
        if edits:
            description = f"the method `{method.name}` was removed from class `{cls.name}`"
            yield _Change(method.lineno, _qualify(site.symbol, cls.name, method.name), description, edits)


def _drop_base_class(src: Source, site: _Site) -> Iterator[_Change]:
    cls = site.node
    if not isinstance(cls, ast.ClassDef) or any(isinstance(base, ast.Starred) for base in cls.bases):
        return
    has_methods = any(isinstance(stmt, _DEFS) for stmt in cls.body)
    items: list[ast.expr | ast.keyword] = sorted([*cls.bases, *cls.keywords], key=src.start)
    for base in cls.bases:
        name = _chain(base.value if isinstance(base, ast.Subscript) else base) or ""
        if name.rsplit(".", 1)[-1] in _KEPT_BASES or (len(cls.bases) == 1 and not has_methods):
            continue
        edit = _drop_item(src, items, items.index(base))
        if edit:
            description = f"the base class `{_short(src.segment(base))}` was removed from class `{cls.name}`"
            yield _Change(base.lineno, _qualify(site.symbol, cls.name), description, [edit])


def _drop_item(src: Source, items: list[ast.expr | ast.keyword], i: int) -> Edit | None:
    """Deletes item ``i`` of a parenthesised, comma-separated list, with its comma (or the parentheses)."""
    masked = src.masked
    if len(items) == 1:
        opening = src.skip_space(src.start(items[0]), -1) - 1
        closing = masked.find(")", src.end(items[0]))
        between = masked[src.end(items[0]) : closing]
        if masked[opening] != "(" or closing < 0 or between.strip(SPACE + ","):
            return None
        return opening, closing + 1, ""
    comma = masked.find(",", src.end(items[max(i - 1, 0)]))
    if comma < 0:
        return None
    return (src.start(items[0]), src.skip_space(comma + 1, 1), "") if i == 0 else (comma, src.end(items[i]), "")


_FINDERS: dict[str, Callable[[Source, _Site], Iterator[_Change]]] = {
    "flip_operator": _flip_operator, "change_constant": _change_constant, "swap_operands": _swap_operands,
    "invert_if": _invert_if, "remove_condition": _remove_condition, "remove_assignment": _remove_assignment,
    "remove_loop_or_wrapper": _remove_loop_or_wrapper, "shuffle_statements": _shuffle_statements,
    "drop_method": _drop_method, "drop_base_class": _drop_base_class,
}  # fmt: skip
