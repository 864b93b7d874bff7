"""The gate in front of Dafny: constructs that make a program verify without a proof (pure).

It reads the agent's answer as Dafny's lexer would (`lexer`: nothing in a comment or a
string counts) and refuses, with the construct and its line:

- ``assume`` statements, and the attributes that turn checks off or declare something
  true: ``{:axiom}``, ``{:verify false}``, ``{:extern}``, ``{:termination false}``,
  ``{:imported}``, ``{:assumption}``;
- ``decreases *`` (a loop or method that need not terminate) and ``witness *`` (a subset
  type that need not have a value);
- a method, lemma, function or predicate without a body that promises something
  (``ensures``): it would be an axiom;
- a ``forall`` statement or a loop without a body (each is an assumption);
- ``include``, ``module``, ``import`` and ``refines``: the answer is one file of the task's
  module.

The gate is the first layer, not the only one: the env verifies a file assembled from the
trusted specification (`program.assemble`), and the appended canary (a lemma ``ensures
false``) must fail, which it does not when anything smuggled in makes the context
inconsistent.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from codegym.envs.dafny.lexer import LexError, Token, tokens
from codegym.envs.dafny.program import CLAUSES, declarations, opens_block, routines

from codegym.verifier import GateReport, Violation

BANNED_WORDS = {
    "assume": "an assume statement (it is taken as true without proof)",
    "include": "an include directive (the answer is one file)",
    "module": "a module declaration (the answer belongs to the task's module)",
    "import": "a module import (the answer belongs to the task's module)",
    "refines": "module refinement (the answer belongs to the task's module)",
}
BANNED_ATTRIBUTES = {
    "axiom": "the {:axiom} attribute (it declares a body-less promise true)",
    "verify": "the {:verify} attribute (it can turn verification off)",
    "extern": "the {:extern} attribute (an external body is not verified)",
    "termination": "the {:termination} attribute (it can turn termination checks off)",
    "imported": "the {:imported} attribute (an imported declaration is not verified)",
    "assumption": "the {:assumption} attribute (it makes a variable an assumption)",
}


@functools.lru_cache(maxsize=256)
def check(answer: str) -> GateReport:
    """Every banned construct in ``answer`` (cached: a step asks for it when it builds the
    job and again when it grades it)."""
    try:
        found = tokens(answer)
        declarations(answer)  # (an answer the splitter cannot read is unreadable)
    except LexError as e:
        return GateReport(unreadable=str(e))
    violations = [*_banned_tokens(found), *_bodiless_statements(found)]
    for declared in routines(answer):
        if not declared.has_body and declared.promises:
            what = f"a {declared.kind} without a body that ensures something ({declared.name}: an axiom)"
            violations.append(Violation(what, declared.line, declared.column))
    return GateReport(tuple(sorted(violations, key=lambda v: (v.line, v.column))))


def _banned_tokens(found: Sequence[Token]) -> list[Violation]:
    violations = []
    for index, token in enumerate(found):
        following = found[index + 1] if index + 1 < len(found) else None
        if token.kind == "name" and token.text in BANNED_WORDS:
            violations.append(Violation(BANNED_WORDS[token.text], token.line, token.column))
        elif token.text == "{:" and following is not None and following.text in BANNED_ATTRIBUTES:
            violations.append(Violation(BANNED_ATTRIBUTES[following.text], token.line, token.column))
        elif token.text == "decreases" and following is not None and following.text == "*":
            violations.append(Violation("decreases * (it waives the termination proof)", token.line, token.column))
        elif token.text == "witness" and following is not None and following.text == "*":
            what = "witness * (it waives the proof that the type has a value: an empty type proves anything)"
            violations.append(Violation(what, token.line, token.column))
    return violations


def _bodiless_statements(found: Sequence[Token]) -> list[Violation]:
    """``forall`` statements and loops that end without a block: each is an assumption."""
    violations = []
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in ("while", "forall"):
            continue
        if token.text == "forall" and not _statement_position(found, index):
            continue  # (a quantifier)
        if not _has_block(found, index):
            what = "a loop" if token.text == "while" else "a forall statement"
            violations.append(Violation(f"{what} without a body (it is assumed, not proved)", token.line, token.column))
    return violations


def _statement_position(found: Sequence[Token], index: int) -> bool:
    """Whether the token at ``index`` starts a statement (after ``;``, ``{`` or ``}``)."""
    return index > 0 and found[index - 1].text in (";", "{", "}")


def _has_block(found: Sequence[Token], index: int) -> bool:
    """Whether the statement at ``index`` reaches a block before it ends (a quantifier,
    with its ``::``, is an expression: it counts as having one). A ``;`` that ends one of
    its clauses (``invariant 0 <= i;``, which Dafny 2.3 takes) ends the statement only when
    neither a clause nor its block follows."""
    level = found[index].depth
    for at in range(index + 1, len(found)):
        text = found[at].text
        if found[at].depth != level:
            continue
        if text == "::" or (text == "{" and opens_block(found[at - 1])):
            return True
        if text == "}" or (text == ";" and not _clause_or_block_after(found, at)):
            return False
    return False


def _clause_or_block_after(found: Sequence[Token], at: int) -> bool:
    following = found[at + 1] if at + 1 < len(found) else None
    return following is not None and (following.text == "{" or following.text in CLAUSES)
