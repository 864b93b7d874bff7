"""The gate in front of Why3: constructs that make a module verify without a proof (pure).

It reads the agent's module as WhyML's lexer would (`lexer`: nothing in a comment or a
string counts) and refuses, with the construct and its line:

- ``axiom`` and ``assume``; ``val`` (a declaration without a body: its contract would be
  taken as true) and ``any`` (a value with a contract, taken as true); ``diverges`` and
  ``partial`` (no termination proof);
- ``clone`` (a cloned theory's axioms stay axioms) and ``meta`` (prover settings);
- another ``module``, ``theory`` or ``scope`` than the answer's own ``module Impl``;
- ``use`` of anything but Why3's standard library (``int.Int``, ``array.Array``, ...) and
  the task's ``Defs``: never the specification's module, whose declarations have no bodies.

Behind it, the env verifies the answer in a file whose other modules are the task's, checks
that the answer refines the specification (``clone Spec with val f = Impl.f``), and keeps a
canary goal ``false`` that must stay unproved.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from codegym.envs.whyml.lexer import LexError, Token, tokens

from codegym.verifier import GateReport, Violation

ANSWER_MODULE = "Impl"
ALLOWED_LOCAL = frozenset({"Defs"})
BANNED = {
    "axiom": "an axiom (it is taken as true without proof)",
    "assume": "an assume expression (it is taken as true without proof)",
    "val": "a val declaration (without a body its contract is taken as true: write a let)",
    "any": "an any expression (its contract is taken as true)",
    "diverges": "diverges (it waives the termination proof)",
    "partial": "partial (it waives the termination proof)",
    "clone": "clone (a cloned theory's axioms stay axioms)",
    "meta": "a meta declaration (it changes what the provers are told)",
    "theory": "a theory declaration (the answer is the one module Impl)",
    "scope": "a scope declaration (the answer is the one module Impl)",
}


@functools.lru_cache(maxsize=256)
def check(answer: str) -> GateReport:
    """Every banned construct in ``answer`` (which must be ``module Impl ... end``)."""
    try:
        found = tokens(answer)
    except LexError as e:
        return GateReport(unreadable=str(e))
    if len(found) < 2 or [t.text for t in found[:2]] != ["module", ANSWER_MODULE]:
        return GateReport(unreadable=f"the answer must be one module: `module {ANSWER_MODULE} ... end`")
    violations = [_banned(t) for t in found if t.kind == "name" and t.text in BANNED]
    violations += [Violation("another module (the answer is the one module Impl)", t.line, t.column)
                   for t in found[1:] if t.text == "module"]  # fmt: skip
    violations += _uses(found)
    return GateReport(tuple(sorted((v for v in violations if v is not None), key=lambda v: (v.line, v.column))))


def _banned(token: Token) -> Violation:
    return Violation(BANNED[token.text], token.line, token.column)


def _uses(found: Sequence[Token]) -> list[Violation]:
    """``use`` (and ``use import``/``use export``) of something other than the standard
    library (a dotted path: ``int.Int``) or the task's own ``Defs``."""
    violations = []
    for index, token in enumerate(found):
        if token.text != "use":
            continue
        at = index + 1
        while at < len(found) and found[at].text in ("import", "export"):
            at += 1
        target = found[at].text if at < len(found) else ""
        dotted = at + 2 < len(found) and found[at + 1].text == "."
        if not (dotted and target[:1].islower()) and target not in ALLOWED_LOCAL:
            violations.append(Violation(f"use of {target or 'nothing'} (only Why3's standard library and Defs)",
                                        token.line, token.column))  # fmt: skip
    return violations
