"""The gate in front of CrossHair: what would let an answer reach the checker (pure).

The answer's code runs in the same process as CrossHair (symbolic execution runs the code
itself), so whatever it could reach, it could switch off: the gate reads it before anything
runs, by its tokens and its syntax tree, and refuses, with the construct and its line:

- CrossHair's directives (a comment ``# crosshair: ...``, such as ``# crosshair: off``,
  changes how a function is checked) and any name or attribute that mentions CrossHair (a
  comment or string that merely mentions it is fine: nothing reaches a module by a string
  without what the gate refuses below);
- imports other than of a few pure standard modules (`ALLOWED_MODULES`), star and relative
  imports, a module's private, module-valued or reflective members (``typing.get_type_hints``
  evaluates strings, ``operator.attrgetter`` reads any attribute, ...), and a module used as
  a value (``m = math``): a module appears only as ``module.member``;
- the builtins that run, read or reach code and state (`BANNED_NAMES`: ``eval``, ``exec``,
  ``compile``, ``__import__``, ``open``, ``globals``, ``locals``, ``vars``, ``getattr``,
  ``setattr``, ``delattr``, ``type``, ``input``, ...) and the names ``sys``, ``os``, ``gc``,
  ``inspect`` and ``builtins``;
- every dunder name (``__class__``, ``def __eq__``) but reading ``__name__`` (the usual
  ``if __name__ == "__main__":`` block, which never runs here), every attribute that starts
  with ``_``
  or reaches frames and code (``gi_frame``, ``f_back``, ``tb_frame``, ``co_code``, ...),
  ``.format`` and ``.format_map`` (a format string reads attributes), and strings that spell
  a dunder name;
- ``class`` statements (an object with its own ``__eq__`` could stand in for a plain value)
  and assigning or deleting an attribute (patching a module the checker uses);
- a string holding a PEP 316 line (``pre:``, ``post:``, ``inv:``, ``raises:``): CrossHair
  reads a called function's docstring contract, and may assume it instead of running the body.

Behind the gate, the hidden tests call the answer across a process boundary, CrossHair runs
on a module the harness writes, a canary checks that CrossHair still works, and every
counterexample is replayed concretely before it counts.
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import re
import tokenize
import types
from collections.abc import Iterator

from codegym.verifier import GateReport, Violation

ALLOWED_MODULES = frozenset({"math", "itertools", "functools", "collections", "heapq", "bisect", "string", "re",
                             "typing", "dataclasses", "operator"})  # fmt: skip
BANNED_NAMES = {
    "eval": "eval (it runs code the gate never read)",
    "exec": "exec (it runs code the gate never read)",
    "compile": "compile (it makes code the gate never read)",
    "open": "open (no file is the answer's to read or write)",
    "globals": "globals (it reaches the module's state)",
    "locals": "locals (it reaches a frame's state)",
    "vars": "vars (it reaches an object's state)",
    "dir": "dir (introspection)",
    "getattr": "getattr (it reads any attribute by name)",
    "setattr": "setattr (it writes any attribute by name)",
    "delattr": "delattr (it removes any attribute by name)",
    "type": "type (it makes classes, and tells a symbolic value from a concrete one: use isinstance)",
    "super": "super (there are no classes to call up to)",
    "memoryview": "memoryview (raw memory)",
    "input": "input (the function reads nothing: its arguments are its input)",
    "breakpoint": "breakpoint (it runs a debugger)",
    "help": "help (it imports and prints)",
    "exit": "exit (the function returns)",
    "quit": "quit (the function returns)",
    "sys": "sys (the interpreter's state)",
    "os": "os (the operating system)",
    "gc": "gc (it reaches every object)",
    "inspect": "inspect (introspection)",
    "builtins": "builtins (the interpreter's own names)",
}
BANNED_MEMBERS = {
    ("typing", "get_type_hints"): "it evaluates strings as code",
    ("typing", "ForwardRef"): "it evaluates strings as code",
    ("string", "Formatter"): "a format string reads attributes",
    ("operator", "attrgetter"): "it reads any attribute by name",
    ("operator", "methodcaller"): "it calls any method by name",
    ("dataclasses", "make_dataclass"): "it makes classes",
}
BANNED_ATTRIBUTES = {
    "format": "str.format (a format string reads attributes: use an f-string)",
    "format_map": "str.format_map (a format string reads attributes: use an f-string)",
}
_REFLECTIVE = re.compile(r"^(?:f|gi|cr|ag|tb|co)_")  # frame, generator, coroutine, traceback and code fields
_DUNDER = re.compile(r"__\w*__")
_DIRECTIVE = re.compile(r"^#\s*crosshair\s*:", re.IGNORECASE)  # (CrossHair's own reads `# crosshair:`)
HARMLESS_DUNDERS = frozenset({"__name__", "__main__"})  # the main guard: `if __name__ == "__main__":`
_CONTRACT = re.compile(r"^\s*(?:pre|post|inv|raises)(?:\[[^\]]*\])?\s*:", re.MULTILINE)  # a PEP 316 line


@functools.lru_cache(maxsize=512)
def check(answer: str, entry_point: str) -> GateReport:
    """Every construct of ``answer`` the gate refuses, in order; or why it cannot be read (it
    does not parse, or defines no top-level function ``entry_point``)."""
    try:
        tree = ast.parse(answer)
        comments = list(_comments(answer))
    except SyntaxError as e:
        return GateReport(unreadable=f"line {e.lineno}: SyntaxError: {e.msg}")
    except (tokenize.TokenError, IndentationError) as e:
        return GateReport(unreadable=f"it does not tokenize: {e}")
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if entry_point not in functions:
        return GateReport(unreadable=misnamed(entry_point, functions))
    violations = [*comments, *_Walker(_module_names(tree)).visit_all(tree)]
    return GateReport(tuple(sorted(set(violations), key=lambda v: (v.line, v.column, v.construct))))


MISNAMED = "expected a function named"  # (how `misnamed` starts: the grader words it as no syntax error)


def misnamed(entry_point: str, functions: list[str]) -> str:
    """Why an answer without a top-level ``entry_point`` cannot be checked, naming what it defines."""
    found = ", ".join(f"`{name}`" for name in functions) if functions else "no function at the top level"
    return f"{MISNAMED} `{entry_point}`, found {found}: name the function as the task's signature does"


def _comments(answer: str) -> Iterator[Violation]:
    for token in tokenize.generate_tokens(io.StringIO(answer).readline):
        if token.type == tokenize.COMMENT and _DIRECTIVE.match(token.string):
            yield Violation("a CrossHair directive (`# crosshair: ...` changes how the answer is checked)",
                            token.start[0], token.start[1] + 1)  # fmt: skip


def _module_names(tree: ast.Module) -> dict[str, str]:
    """Each name an ``import`` binds to a module, and the module."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name
    return names


class _Walker(ast.NodeVisitor):
    """Collects the violations of one syntax tree."""

    def __init__(self, modules: dict[str, str]) -> None:
        self.modules = modules
        self.found: list[Violation] = []
        self.member_of: set[int] = set()  # ids of the Name nodes read as `module.member`

    def visit_all(self, tree: ast.AST) -> list[Violation]:
        self.visit(tree)
        return self.found

    def refuse(self, node: ast.AST, construct: str) -> None:
        self.found.append(Violation(construct, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_MODULES:
                self.refuse(node, f"import of {alias.name} (only {', '.join(sorted(ALLOWED_MODULES))})")
            self._name(node, alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or module not in ALLOWED_MODULES:
            self.refuse(node, f"import from {'.' * node.level}{module} (only {', '.join(sorted(ALLOWED_MODULES))})")
            return
        for alias in node.names:
            if alias.name == "*":
                self.refuse(node, f"from {module} import * (import the names you use)")
            elif (why := _member(module, alias.name)) is not None:
                self.refuse(node, f"{module}.{alias.name} ({why})")
            self._name(node, alias.asname)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.refuse(node, "a class definition (the answer is functions: an object of its own could stand in for "
                          "a plain value)")  # fmt: skip
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._name(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> None:
        self._name(node, node.arg)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self._name(node, node.arg)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self._name(node, name)

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self._name(node, node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar) -> None:
        self._name(node, node.name)
        self.generic_visit(node)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self._name(node, node.rest)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if not (node.id in HARMLESS_DUNDERS and isinstance(node.ctx, ast.Load)):
            self._name(node, node.id)
        if node.id in BANNED_NAMES:
            self.refuse(node, BANNED_NAMES[node.id])
        if node.id in self.modules and id(node) not in self.member_of:
            self.refuse(node, f"the module {node.id} used as a value (write {node.id}.member)")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.refuse(node, f"assigning or deleting the attribute .{node.attr} (nothing outside the answer's own "
                              "values is its to change)")  # fmt: skip
        self._attribute(node, node.attr)
        if isinstance(node.value, ast.Name) and node.value.id in self.modules:
            self.member_of.add(id(node.value))
            module = self.modules[node.value.id]
            if (why := _member(module, node.attr)) is not None:
                self.refuse(node, f"{module}.{node.attr} ({why})")
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for name in node.kwd_attrs:
            self._attribute(node, name)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        if isinstance(text, str):
            if _CONTRACT.search(text):
                self.refuse(node, "a PEP 316 contract line in a string (CrossHair would take it as the answer's own "
                                  "contract, and might skip the body for it: the contract is the task's)")  # fmt: skip
            elif any(found not in HARMLESS_DUNDERS for found in _DUNDER.findall(text)):
                self.refuse(node, "a string that spells a dunder name")

    def _name(self, node: ast.AST, name: str | None) -> None:
        if name is None:
            return
        if name.startswith("__") and name.endswith("__"):
            self.refuse(node, f"the dunder name {name}")
        elif "crosshair" in name.lower():
            self.refuse(node, f"the name {name} (nothing of CrossHair is the answer's to reach)")

    def _attribute(self, node: ast.AST, name: str) -> None:
        if name.startswith("_"):
            self.refuse(node, f"the attribute .{name} (private and dunder attributes are the interpreter's)")
        elif _REFLECTIVE.match(name):
            self.refuse(node, f"the attribute .{name} (frames, generators and code objects are not the answer's)")
        elif name in BANNED_ATTRIBUTES:
            self.refuse(node, BANNED_ATTRIBUTES[name])
        elif "crosshair" in name.lower():
            self.refuse(node, f"the attribute .{name} (nothing of CrossHair is the answer's to reach)")


@functools.lru_cache(maxsize=1024)
def _member(module: str, name: str) -> str | None:
    """Why ``module.name`` is refused, or None (the allowed modules are imported here to
    tell a member that is a module, such as ``typing.sys``, from one that is not)."""
    if name.startswith("_"):
        return "a private member"
    if (module, name) in BANNED_MEMBERS:
        return BANNED_MEMBERS[(module, name)]
    if module in ALLOWED_MODULES and isinstance(getattr(importlib.import_module(module), name, None), types.ModuleType):
        return "a module, reached through another"
    return None
