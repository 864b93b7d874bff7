"""The gate in front of Why3: each banned construct is refused with its line; the same words in
comments and strings, and honest modules, are not."""

from __future__ import annotations

import pytest
from codegym.envs.whyml.gate import check
from codegym.envs.whyml.lexer import LexError, tokens

MODULE = "module Impl\n  use int.Int\n{extra}\n  let f (x: int) : int ensures {{ result = x }} = x\nend\n"
CHEATS = {
    "axiom": ("  axiom bad: false", "an axiom"),
    "assume": ("  let g () : unit = assume { false }", "assume"),
    "val": ("  val h (x: int) : int ensures { false }", "val declaration"),
    "any": ("  let g () : int = any int ensures { false }", "any expression"),
    "diverges": ("  let rec g (x: int) : int diverges = g x", "diverges"),
    "partial": ("  let partial g (x: int) : int = x", "partial"),
    "clone": ("  clone algebra.Group", "clone"),
    "meta": ('  meta "remove_prop" axiom foo', "meta"),
    "another module": ("end\nmodule Other\n  lemma l: true", "another module"),
    "theory": ("  theory T end", "theory"),
    "use spec": ("  use Spec", "use of Spec"),
    "use canary": ("  use import Canary", "use of Canary"),
}


@pytest.mark.parametrize("name", CHEATS)
def test_each_banned_construct_is_refused_with_its_line(name: str) -> None:
    extra, construct = CHEATS[name]
    report = check(MODULE.format(extra=extra))
    assert not report.passed and any(construct in v.construct for v in report.violations), report.violations
    assert report.violations[0].line >= 3


HONEST = {
    "comment": "  (* axiom assume val (* nested any *) clone *)",
    "operator that looks like a comment": "  let g (x: int) : int = ( * ) x 2",
    "string": '  let s () : string = "axiom assume"',
    "defs and the standard library": "  use Defs\n  use array.Array\n  use import ref.Ref",
    "lemma": "  lemma l: forall x: int. x + 0 = x",
}


@pytest.mark.parametrize("name", HONEST)
def test_honest_modules_pass(name: str) -> None:
    report = check(MODULE.format(extra=HONEST[name]))
    assert report.passed, report.violations


def test_the_answer_must_be_module_impl() -> None:
    assert check("let f (x: int) : int = x\n").unreadable
    assert check("module Spec\nend\n").unreadable
    assert check("module Impl\n  (* never closed\nend\n").unreadable


def test_the_lexer_keeps_lines_and_skips_nested_comments() -> None:
    found = tokens('a (* b (* c *) d *) e\n"f\\"g" (*) h')
    assert [(t.text, t.line, t.column) for t in found] == [
        ("a", 1, 1), ("e", 1, 21), ('"f\\"g"', 2, 1), ("(", 2, 8), ("*", 2, 9), (")", 2, 10), ("h", 2, 12),
    ]  # fmt: skip
    with pytest.raises(LexError):
        tokens('"open')
