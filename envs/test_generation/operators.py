"""Mutation operators for small functions, beside the repository-repair injector's kinds.

A function of a few lines offers that injector few sites; these add the classic mutation-
testing operators on expressions: an integer constant minus one, an index or slice bound
shifted, ``max``/``min``, ``any``/``all`` and string-method pairs swapped, a returned
condition negated. Each edit is spliced into the source text at its node's position.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

SWAPS = {"max": "min", "min": "max", "any": "all", "all": "any", "upper": "lower", "lower": "upper",
         "startswith": "endswith", "endswith": "startswith", "isdigit": "isalpha", "isalpha": "isdigit",
         "append": "remove", "sorted": "reversed", "floor": "ceil", "ceil": "floor"}  # fmt: skip
UNWRAPPED = {"abs", "int", "float", "str", "round", "sorted", "list", "set", "tuple", "reversed"}
BOUNDARIES = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
KINDS = ("constant_minus_one", "shift_index", "swap_call", "negate_return", "unwrap_call", "shift_boundary",
         "swap_variable")  # fmt: skip


def mutations(program: str) -> Iterator[tuple[str, int, str, str]]:
    """``(kind, line, description, mutated program)`` for each site of ``program`` inside a
    function, in source order; every mutated program parses."""
    tree = ast.parse(program)
    data = program.encode()  # (ast's columns count UTF-8 bytes)
    offsets = _line_offsets(data)
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
        names = sorted(_locals(function))
        for statement in function.body[1:] if _has_docstring(function) else function.body:
            for node in ast.walk(statement):
                for kind, target, text, description in [*_edits(node), *_renames(node, names)]:
                    start = offsets[target.lineno - 1] + target.col_offset  # type: ignore[attr-defined]
                    end = offsets[target.end_lineno - 1] + target.end_col_offset  # type: ignore[attr-defined]
                    mutated = (data[:start] + text.encode() + data[end:]).decode()
                    if _parses(mutated):
                        yield kind, target.lineno, description, mutated  # type: ignore[attr-defined]


def _edits(node: ast.AST) -> Iterator[tuple[str, ast.AST, str, str]]:
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value not in (1,):
        yield "constant_minus_one", node, str(node.value - 1), f"the constant {node.value} became {node.value - 1}"
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        text = ast.unparse(node.slice)
        yield "shift_index", node.slice, f"({text}) + 1", f"the index {text} became {text} + 1"
    if isinstance(node, ast.Slice):
        for bound in (node.lower, node.upper):
            if bound is not None:
                text = ast.unparse(bound)
                yield "shift_index", bound, f"({text}) - 1", f"the slice bound {text} became {text} - 1"
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name in SWAPS:
            func = node.func
            text = SWAPS[name] if isinstance(func, ast.Name) else f"{ast.unparse(func.value)}.{SWAPS[name]}"  # type: ignore[attr-defined]
            yield "swap_call", func, text, f"{name}(...) became {SWAPS[name]}(...)"
    if _unwrappable(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        text = ast.unparse(node.args[0])
        yield "unwrap_call", node, f"({text})", f"{node.func.id}({text}) became {text}"
    if isinstance(node, ast.Compare) and any(type(op) in BOUNDARIES for op in node.ops):
        changed = ast.Compare(node.left, [BOUNDARIES.get(type(op), type(op))() for op in node.ops], node.comparators)
        yield "shift_boundary", node, ast.unparse(changed), f"the comparison {ast.unparse(node)} moved its boundary"
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Compare | ast.BoolOp | ast.UnaryOp):
        text = ast.unparse(node.value)
        yield "negate_return", node.value, f"not ({text})", f"the returned condition {text} was negated"


def _unwrappable(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in UNWRAPPED
            and len(node.args) == 1 and not node.keywords)  # fmt: skip


def _locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    return names | {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _renames(node: ast.AST, names: list[str]) -> Iterator[tuple[str, ast.AST, str, str]]:
    """A local variable read where another was (the two nearest others in name order)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names and len(names) > 1:
        at = names.index(node.id)
        for other in {names[(at + 1) % len(names)], names[at - 1]} - {node.id}:
            yield "swap_variable", node, other, f"{node.id} was read where it was {other}"


def _line_offsets(data: bytes) -> list[int]:
    offsets, total = [], 0
    for line in data.splitlines(keepends=True):
        offsets.append(total)
        total += len(line)
    return [*offsets, total]


def _has_docstring(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = function.body[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _parses(program: str) -> bool:
    try:
        ast.parse(program)
    except SyntaxError:
        return False
    return True
