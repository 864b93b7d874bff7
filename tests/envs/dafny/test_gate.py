"""The gate in front of Dafny: every banned construct is refused with its line; the same words
in comments, strings and names, and the constructs' honest relatives, are not."""

from __future__ import annotations

import pytest
from codegym.envs.dafny.gate import check
from codegym.envs.dafny.lexer import LexError, tokens, unclosed_comment

METHOD = "method M(a: array<int>) returns (r: int)\n  ensures r == 0\n{{\n  {body}\n}}\n"
CHEATS = {
    "assume": (METHOD.format(body="assume false; r := 1;"), "assume statement"),
    "axiom": ("lemma {:axiom} L()\n  ensures false\n", "{:axiom}"),
    "verify false": ("method {:verify false} M() returns (r: int) ensures r == 0 { r := 1; }\n", "{:verify}"),
    "extern": ("method {:extern} M() returns (r: int)\n", "{:extern}"),
    "termination false": ("function {:termination false} F(n: int): int { F(n) }\n", "{:termination}"),
    "decreases star": (METHOD.format(body="r := 0;\n  while true\n    decreases *\n  {\n  }"), "decreases *"),
    "bodiless lemma": (
        "lemma Bogus()\n  ensures false\n" + METHOD.format(body="Bogus(); r := 1;"),
        "lemma without a body",
    ),
    "bodiless function": ("function F(): int\n  ensures false\n", "function without a body"),
    "bodiless method": ("method N() returns (x: int)\n  ensures x == 1 && x == 2\n", "method without a body"),
    "bodiless forall": (METHOD.format(body="forall i | 0 <= i < 1\n    ensures false;\n  r := 1;"), "forall statement"),
    "bodiless loop": (METHOD.format(body="r := 1;\n  while r < 5\n    invariant false"), "a loop without a body"),
    "witness star": ("newtype Empty = x: int | false witness *\n", "witness *"),
    "include": ('include "other.dfy"\n' + METHOD.format(body="r := 0;"), "include"),
    "module": ("module Other {\n  lemma L() ensures false {}\n}\n", "module declaration"),
    "import": ("import opened Other\n", "module import"),
}


@pytest.mark.parametrize("name", CHEATS)
def test_each_banned_construct_is_refused_with_its_line(name: str) -> None:
    answer, construct = CHEATS[name]
    report = check(answer)
    assert not report.passed
    assert any(construct in v.construct for v in report.violations), report.violations
    first = report.violations[0]
    assert answer.splitlines()[first.line - 1][first.column - 1 :].strip()  # (it points at the construct)


HONEST = {
    "comment": "// assume false; {:axiom} include\n/* nested /* assume */ decreases * */\n"
    + METHOD.format(body="r := 0;"),
    "string": METHOD.format(body='var s := "assume false; {:axiom}"; r := 0;'),
    "verbatim string": METHOD.format(body='var s := @"a "" assume"; r := 0;'),
    "names": METHOD.format(body="var assumed, x' := 1, 2; r := 0;"),
    "char": METHOD.format(body="var c := '\\''; r := 0;"),
    "quantifier predicate": "predicate Sorted(a: array<int>)\n  reads a\n{\n  forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]\n}\n",
    "forall statement with a body": METHOD.format(
        body="forall i | 0 <= i < a.Length\n    ensures true\n  {\n  }\n  r := 0;"
    ),
    "loop with a body": METHOD.format(
        body="r := 0;\n  while r < 5\n    invariant 0 <= r <= 5\n    decreases 5 - r\n  {\n    r := r + 1;\n  }\n  r := 0;"
    ),
    "bodiless function without a promise": "function F(x: int): int\n" + METHOD.format(body="r := 0;"),
    "set display in a clause": "method S() returns (s: set<int>)\n  ensures s == {1, 2}\n{\n  s := {1, 2};\n}\n",
    "allowed attributes": "lemma {:induction n} L(n: nat)\n  ensures n + 0 == n\n{\n}\n",
}


@pytest.mark.parametrize("name", HONEST)
def test_honest_relatives_pass(name: str) -> None:
    report = check(HONEST[name])
    assert report.passed, report.violations


def test_text_that_does_not_lex_is_unreadable_not_refused() -> None:
    report = check('method M() { var s := "never closed\n}')
    assert not report.passed and report.unreadable and "never closed" in report.unreadable
    assert not report.violations


def test_a_comment_never_closed_runs_to_the_end_as_in_dafny() -> None:
    """Dafny's scanner reads an unclosed ``/*`` to the end of the file: what follows is no code."""
    answer = METHOD.format(body="r := 0;") + "/* an earlier try:\nlemma Bogus() ensures false\n  assume false;\n"
    assert check(answer).passed
    assert [t.text for t in tokens("a /* b /* c */")] == ["a"] and unclosed_comment("a /* b /* c */") == 2


def test_the_lexer_keeps_positions_and_skips_comments() -> None:
    found = tokens("a /* x */ b'\n  // c\n  \"d\\\"e\" 'f'")
    assert [(t.kind, t.text, t.line, t.column) for t in found] == [
        ("name", "a", 1, 1), ("name", "b'", 1, 11), ("string", '"d\\"e"', 3, 3), ("char", "'f'", 3, 10),
    ]  # fmt: skip
    with pytest.raises(LexError):
        tokens('"unterminated\n"')


def test_a_bodiless_promise_inside_a_class_is_refused_too() -> None:
    report = check(
        "class C {\n  static lemma Bogus()\n    ensures false\n}\n" + METHOD.format(body="C.Bogus(); r := 1;")
    )
    assert not report.passed and report.violations[0].line == 2 and "Bogus" in report.violations[0].construct
    assert check("class C {\n  static lemma Fine()\n    ensures true\n  {\n  }\n}\n").passed
