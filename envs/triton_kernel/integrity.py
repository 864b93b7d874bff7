"""Static integrity checks of a submission's source: a pure function of the code.

The first line of defence; `guard` checks again at run time. A kernel submission needs
torch (to allocate), triton and triton.language (to write kernels) and a few pure helpers;
it needs no reflection. So: imports come from an allow-list, and modules other modules expose
as attributes (``torch.os``) are as forbidden; no private or dunder attributes or dunder
methods (bar ``__init__``); no frame or traceback attributes; none of the builtins that
reach around the language (getattr, eval, open, globals, ...); no assignment to an attribute
of an imported module (patching torch, triton or a timer); none of the torch and triton APIs
that compute without a Triton kernel (torch.compile, torch.ops, torch.library), load code
(torch.load), run concurrently (CUDA streams and graphs) or time things (triton.testing).

Static checks of Python are a filter, not a wall: the wall is the process boundary (the
outputs are judged by the harness, the reference runs in its own job).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

ALLOWED_IMPORTS = frozenset(
    {"__future__", "math", "typing", "functools", "itertools", "dataclasses", "torch", "torch.nn",
     "torch.nn.functional", "triton", "triton.language"}
)  # fmt: skip
ALLOWED_IMPORT_PREFIXES = ("triton.language.",)
FORBIDDEN_BUILTINS = frozenset(
    [
        "eval",
        "exec",
        "compile",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "dir",
        "open",
        "breakpoint",
        "input",
        "memoryview",
        "help",
        "exit",
        "quit",
        "id",
    ]
)
ALLOWED_DUNDERS = frozenset({"__init__"})
FORBIDDEN_ATTRIBUTES = frozenset(
    # computing outside Triton, launch hooks, and the frame and traceback attributes that
    # lead to other code's globals (the guard's among them)
    [
        "numpy",
        "tolist",
        "item",
        "untyped_storage",
        "storage",
        "from_numpy",
        "frombuffer",
        "add_pre_run_hook",
        "pre_run_hooks",
        "f_back",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_code",
        "gi_frame",
        "gi_code",
        "cr_frame",
        "ag_frame",
        "tb_frame",
        "tb_next",
        "get_type_hints",
    ]
)
# Modules that other modules import and so expose as attributes (``torch.os``, ``x.sys``):
# reaching one through an attribute is as forbidden as importing it.
FORBIDDEN_MODULE_ATTRIBUTES = frozenset(
    [
        "os",
        "sys",
        "inspect",
        "gc",
        "ctypes",
        "builtins",
        "importlib",
        "subprocess",
        "threading",
        "multiprocessing",
        "socket",
        "signal",
        "types",
        "weakref",
        "pickle",
        "marshal",
        "shutil",
        "pathlib",
        "tempfile",
        "linecache",
        "traceback",
        "atexit",
        "time",
        "posix",
        "runpy",
        "codecs",
        "mmap",
        "resource",
        "concurrent",
        "asyncio",
        "sysconfig",
        "site",
        "platform",
        "pty",
        "fcntl",
        "operator",
    ]
)
FORBIDDEN_QUALIFIED = (
    "torch.compile", "torch.jit", "torch.fx", "torch.export", "torch.library", "torch.ops", "torch.utils",
    "torch.overrides", "torch.multiprocessing", "torch.distributed", "torch.backends", "torch.cuda.Stream",
    "torch.cuda.stream", "torch.cuda.set_stream", "torch.cuda.ExternalStream", "torch.cuda.graph",
    "torch.cuda.CUDAGraph", "torch.cuda.Event", "torch.cuda.streams", "torch.cuda.graphs", "torch.Stream",
    "torch.set_", "torch.manual_seed", "torch.random", "torch.from_numpy", "torch.frombuffer", "torch.autograd",
    "torch.load", "torch.save", "torch.hub", "torch.package", "torch.serialization", "torch.classes",
    "typing.get_type_hints", "typing.ForwardRef",
    "triton.testing", "triton.runtime", "triton.compiler", "triton.knobs", "triton.compile", "triton.backends",
)  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """One violation: what, where."""

    check: str
    message: str
    line: int | None = None


def check(source: str) -> list[Finding]:
    """Every static violation in ``source`` (empty when clean or when it does not parse:
    a syntax error is the compile step's to report)."""
    return list(_check(source))


@functools.lru_cache(maxsize=1024)  # an env asks for the same source up to three times a step
def _check(source: str) -> tuple[Finding, ...]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    aliases = _aliases(tree)
    findings: list[Finding] = []
    for node in _checked_nodes(tree):
        findings += _imports(node) + _names(node) + _attributes(node, aliases) + _definitions(node)
    return tuple(sorted(set(findings), key=lambda f: (f.line or 0, f.check, f.message)))


def _checked_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node, except the bodies of top-level ``if __name__ == "__main__":`` blocks: the
    submission is imported as ``solution``, so they never run (and ``__name__`` may only be
    read), while answers often carry a small self-test there."""
    skipped = {id(s) for node in tree.body if _is_main_guard(node) for s in node.body}  # type: ignore[attr-defined]
    found: list[ast.AST] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if id(node) in skipped:
            continue
        found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _is_main_guard(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified module path, from every import of the file."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    aliases[head] = head
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _allowed_module(name: str) -> bool:
    return name in ALLOWED_IMPORTS or name.startswith(ALLOWED_IMPORT_PREFIXES)


def _imports(node: ast.AST) -> list[Finding]:
    line = getattr(node, "lineno", None)
    if isinstance(node, ast.Import):
        return [
            Finding("import", f"import of {a.name!r} is not allowed", line)
            for a in node.names
            if not _allowed_module(a.name)
        ]
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module or not _allowed_module(node.module):
            return [Finding("import", f"import from {node.module or '.'!r} is not allowed", line)]
        return [
            Finding("forbidden_api", f"{node.module}.{a.name} is not allowed", line)
            for a in node.names
            if _forbidden_qualified(f"{node.module}.{a.name}") or a.name == "*"
        ]
    return []


def _definitions(node: ast.AST) -> list[Finding]:
    """Dunder methods other than ``__init__`` (``__del__`` would run after the forward,
    unobserved; ``__reduce__``, ``__torch_function__`` and friends hook into torch)."""
    is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if is_def and node.name.startswith("__") and node.name not in ALLOWED_DUNDERS:
        return [Finding("dunder", f"defining {node.name} is not allowed", node.lineno)]
    return []


def _names(node: ast.AST) -> list[Finding]:
    if isinstance(node, ast.Name) and node.id in FORBIDDEN_BUILTINS:
        return [Finding("builtin", f"the builtin {node.id}() is not allowed", node.lineno)]
    readable = isinstance(node, ast.Name) and node.id == "__name__" and isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Name) and node.id.startswith("__") and not readable:
        return [Finding("dunder", f"the name {node.id} is not allowed", node.lineno)]
    return []


def _attributes(node: ast.AST, aliases: dict[str, str]) -> list[Finding]:
    if not isinstance(node, ast.Attribute):
        return []
    line = node.lineno
    found = []
    name = node.attr
    if name.startswith("_") and name not in ALLOWED_DUNDERS:
        found.append(Finding("private", f"the attribute .{name} is not allowed (private or dunder)", line))
    if name in FORBIDDEN_ATTRIBUTES:
        found.append(Finding("forbidden_api", f".{name} is not allowed", line))
    if name in FORBIDDEN_MODULE_ATTRIBUTES:
        found.append(Finding("import", f".{name} reaches a module that may not be imported", line))
    qualified = _qualified(node, aliases)
    if qualified is not None:
        if _forbidden_qualified(qualified):
            found.append(Finding("forbidden_api", f"{qualified} is not allowed", line))
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            found.append(Finding("patch", f"assigning to {qualified} patches a module", line))
    return found


def _qualified(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``torch.cuda.Stream`` for an attribute chain rooted at an imported name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _forbidden_qualified(name: str) -> bool:
    return any(name == f or name.startswith(f if f.endswith("_") else f + ".") for f in FORBIDDEN_QUALIFIED)
