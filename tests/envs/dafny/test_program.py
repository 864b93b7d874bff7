"""Splitting a Dafny program, removing its hints, and assembling an answer into the trusted text."""

from __future__ import annotations

from codegym.envs.dafny.program import assemble, declarations, empty_bodies, strip_hints

PROGRAM = """\
function Double(n: int): int
{
  2 * n
}

method Twice(n: nat) returns (r: int)
  requires n >= 0
  ensures r == Double(n)
  decreases n
{
  r := 0;
  var i := 0;
  while i < n
    invariant 0 <= i <= n
    invariant r == 2 * i
    decreases n - i
  {
    assert r + 2 == 2 * (i + 1);
    r := r + 2;
    i := i + 1;
  }
}
"""


def test_declarations_split_header_clauses_and_body() -> None:
    function, method = declarations(PROGRAM)
    assert (function.kind, function.name, function.body) == ("function", "Double", "{\n  2 * n\n}")
    assert method.signature == "method Twice(n: nat) returns (r: int)"
    assert [c.keyword for c in method.clauses] == ["requires", "ensures", "decreases"]
    assert (
        method.body is not None
        and method.body.startswith("{\n  r := 0;")
        and (method.body_line, method.body_column) == (10, 1)
    )


def test_strip_hints_removes_invariants_assertions_and_decreases_of_open_members() -> None:
    given = strip_hints(PROGRAM)
    assert "invariant" not in given and "assert" not in given and "decreases" not in given
    assert "requires n >= 0" in given and "ensures r == Double(n)" in given and "r := r + 2;" in given
    assert strip_hints(PROGRAM, ["Other"]) == PROGRAM


def test_empty_bodies_keeps_functions() -> None:
    emptied = empty_bodies(PROGRAM)
    assert "2 * n" in emptied and "r := 0" not in emptied and "ensures r == Double(n)" in emptied


def test_assembly_takes_bodies_and_decreases_from_the_answer_and_the_rest_from_the_task() -> None:
    answer = PROGRAM.replace("ensures r == Double(n)", "ensures true").replace("2 * n\n", "0\n")
    answer = answer.replace("decreases n\n", "decreases n + 1\n") + "\nlemma Helper() ensures true {}\n"
    assembly = assemble(PROGRAM, strip_hints(PROGRAM), answer, ["Twice"])
    text = assembly.text
    assert "ensures r == Double(n)" in text and "ensures true\n" not in text.split("lemma Helper")[0]
    assert "2 * n" in text and "decreases n + 1" in text and "lemma Helper() ensures true {}" in text
    assert assembly.kept == ("Double",) and assembly.missing == ()
    assert f"lemma {assembly.canary}()" in text and "_" not in assembly.canary
    # The answer's lines map back: the body's first line is the answer's line 10.
    body_line = text.split("\n").index("{", text.split("\n").index("  decreases n + 1")) + 1
    assert assembly.agent_line(body_line) == 10
    assert assembly.agent_line(1) is None


def test_a_missing_body_falls_back_to_the_given_one() -> None:
    given = strip_hints(PROGRAM)
    assembly = assemble(PROGRAM, given, "// nothing\n", ["Twice"])
    assert assembly.missing == ("Twice",) and "invariant" not in assembly.text
