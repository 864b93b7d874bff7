"""A WhyML task's modules, its hint stripping, and the file the env verifies (pure, stdlib only).

A task file holds ``module Defs`` (optional: the logic the specification uses), ``module
Spec`` (the specification: ``val`` declarations with contracts) and ``module Impl`` (the
reference implementation), each starting with ``module <Name>`` at the start of a line and
ending with a line ``end``. The agent answers with a ``module Impl`` of its own. The file the
env verifies (`assemble`) is the task's ``Defs`` and ``Spec``, the answer, then two modules of
the env's: ``Check`` clones ``Spec`` with each ``val`` instantiated by the answer's function
(Why3 then proves that the answer's contracts refine the specification's) and ``Canary``,
whose goal ``false`` must stay unproved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegym.envs.whyml.lexer import tokens

from codegym.verifier.source import without

_MODULE = re.compile(r"^module (\w+)[^\n]*\n.*?^end[ \t]*$", re.MULTILINE | re.DOTALL)
_HINT = re.compile(r"[ \t]*\b(?:invariant|variant)\s*\{")
PROGRAM = "program.mlw"
CANARY = "Canary"


def modules(text: str) -> dict[str, str]:
    """The task file's modules by name, each with its ``module`` and ``end`` lines."""
    return {found.group(1): found.group(0) for found in _MODULE.finditer(text)}


def spec_functions(spec: str) -> list[str]:
    """The names the specification declares with ``val``."""
    found = tokens(spec)
    names = []
    for index, token in enumerate(found):
        if token.text == "val":
            after = [t for t in found[index + 1 : index + 4] if t.text not in ("ghost", "function", "predicate")]
            if after and after[0].kind == "name":
                names.append(after[0].text)
    return names


def strip_hints(impl: str) -> str:
    """``impl`` without its ``invariant { ... }`` and ``variant { ... }`` clauses; a clause
    alone on its lines takes those lines with it."""
    spans = [(found.start(), _closing_brace(impl, found.end() - 1) + 1) for found in _HINT.finditer(impl)]
    return without(impl, spans)


def _closing_brace(text: str, opening: int) -> int:
    depth = 0
    for index in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return len(text) - 1


@dataclass(frozen=True)
class Assembly:
    """The file verified, and where the answer's lines are in it.

    Attributes:
        text: The file.
        first_line: The file's line where the answer's line 1 is.
        lines: How many lines the answer has.
    """

    text: str
    first_line: int
    lines: int

    def agent_line(self, line: int) -> int | None:
        """The answer's line of file line ``line``, or None for a line of the task's."""
        offset = line - self.first_line
        return offset + 1 if 0 <= offset < self.lines else None


def assemble(defs: str | None, spec: str, answer: str) -> Assembly:
    """``Defs``, ``Spec``, the answer, ``Check`` and ``Canary``, in that order."""
    head = "\n\n".join(part for part in (defs, spec) if part) + "\n\n"
    names = spec_functions(spec)
    instances = ", ".join(f"val {name} = Impl.{name}" for name in names)
    uses = "  use Defs\n" if defs else ""
    check = f"module Check\n{uses}  use Impl\n  clone Spec with {instances}\nend\n"
    canary = f"module {CANARY}\n{uses}  use Impl\n  goal canary: false\nend\n"
    body = answer.rstrip("\n") + "\n"
    text = f"{head}{body}\n{check}\n{canary}"
    return Assembly(text, head.count("\n") + 1, body.count("\n"))
