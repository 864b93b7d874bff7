"""What a submission judged in its own process (a BigCodeBench suite) may not write.

The suite's tests run beside the solution (see `codegym.envs.python_function.suite`), and the
runner's report carries a nonce the solution is not given: code that reached the runner's
objects (through the garbage collector, frames, the module table or the interpreter's
internals) could forge it, and an object whose ``__eq__`` always agrees could pass any
``assertEqual``. This static layer refuses, as ``HACK`` before anything runs, a solution that
names any of those; the runtime checks (every test reported once, with the nonce; unittest's
and the runner's functions unchanged) stand behind it. No BigCodeBench task needs them.
"""

from __future__ import annotations

import ast

# Modules a solution may not import: the collector, frames, the interpreter's internals, the
# test machinery itself, and codegym.
MODULES = frozenset({"gc", "ctypes", "inspect", "importlib", "builtins", "unittest", "codegym", "_thread"})
# Attributes and names that reach frames, the module table, the collector or the process's exit.
ATTRIBUTES = frozenset({
    "_getframe", "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "ag_frame",
    "get_objects", "get_referrers", "get_referents", "settrace", "setprofile", "modules", "_exit", "abort",
    "__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__",
})  # fmt: skip
NAMES = frozenset({"__import__", "__builtins__", "globals", "locals", "vars", "breakpoint"})
# Methods that decide a comparison or a truth value: a solution's class may not define them.
COMPARISONS = frozenset(
    {"__eq__", "__ne__", "__bool__", "__len__", "__hash__", "__instancecheck__", "__subclasscheck__"}
)


def findings(source: str) -> list[str]:
    """What ``source`` holds that is refused in a solution run beside its tests, with the line."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # (the runner reports it as CE)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        for what in _refused(node):
            found.append(f"line {line}: {what}")
    return found


def _refused(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [f"imports {a.name}" for a in node.names if a.name.split(".")[0] in MODULES]
    if isinstance(node, ast.ImportFrom):
        return [f"imports from {node.module}"] if (node.module or "").split(".")[0] in MODULES or node.level else []
    if isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
        return [f"uses .{node.attr}"]
    if isinstance(node, ast.Name) and node.id in NAMES:
        return [f"uses {node.id}"]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in COMPARISONS:
        return [f"defines {node.name}, which decides comparisons the tests make"]
    return []
