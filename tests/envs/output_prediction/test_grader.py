"""Answers are read as literals only, and compared by value and type."""

from __future__ import annotations

import pytest
from codegym.envs.output_prediction.grader import as_literal, parse_input, parse_output

from codegym.error import InvalidTask


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("[1, 'a']", [1, "a"]),
        ("  (1, 2.5)\n", (1, 2.5)),
        ("assert f('ab', 3) == {'x': {1, 2}}", {"x": {1, 2}}),
        ("f(1) == -0.5", -0.5),
        ("[ANSWER]\nassert f(1) == True\n[/ANSWER]", True),
        ("Let me think.\n[ANSWER]1[/ANSWER] no, [ANSWER]2[/ANSWER]", 2),
        ("The output:\n```python\nb'\\x00'\n```\n", b"\x00"),
        ("set()", set()),
        ("1+2j", 1 + 2j),
    ],
)
def test_output_answers_parse_to_their_literal(raw: str, value: object) -> None:
    answer = parse_output(raw)
    assert answer.ok, answer.error
    assert answer.values == (value,) and type(answer.values[0]) is type(value)


@pytest.mark.parametrize(
    ("raw", "values"),
    [
        ("1, 2", (1, 2)),
        ("(1, 2)", ((1, 2),)),
        ("f(1, 2)", (1, 2)),
        ("f((1, 2))", ((1, 2),)),
        ("assert f('a', [1]) == 'x'", ("a", [1])),
        ("[ANSWER]assert f(3) == 9[/ANSWER]", (3,)),
        ("'a', # a comment\n 2", ("a", 2)),
        ("[]", ([],)),
    ],
)
def test_input_answers_parse_to_arguments(raw: str, values: tuple) -> None:
    answer = parse_input(raw, "f")
    assert answer.ok, answer.error
    assert answer.values == values


@pytest.mark.parametrize(
    "raw",
    [
        "__import__('os').system('touch /tmp/x')",
        "lambda: 1",
        "f(1)",
        "x",
        "[1, 2][0]",
        "2 ** 1000",
        "1,",  # a tuple without parentheses is fine as a literal: checked separately below
        "print(1); 3",
        "[" * 200_000,
        "'a' * 10",
        "",
    ],
)
def test_output_answers_that_are_not_literals_are_refused(raw: str) -> None:
    answer = parse_output(raw)
    if raw == "1,":
        assert answer.ok and answer.values == ((1,),)
        return
    assert not answer.ok and answer.error


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        ("__import__('os').system('touch /tmp/x')", "literal"),
        ("1) + g(2", "only the arguments"),
        ("1), f(2", "only the arguments"),
        ("f(x=1)", "keyword arguments"),
        ("f(*[1])", "starred"),
        ("g(1)", "literal"),
        ("(lambda: 1)()", "literal"),
        ("", "empty"),
        ("1, " * 40_000, "at most"),
    ],
)
def test_input_answers_that_are_not_literals_are_refused(raw: str, match: str) -> None:
    answer = parse_input(raw, "f")
    assert not answer.ok
    assert match in str(answer.error)


def test_the_refusal_quotes_the_part_that_is_not_a_literal() -> None:
    assert "not a literal: __import__('os').system('ls')" in str(parse_input("1, __import__('os').system('ls')").error)
    assert "not a literal: x + 1" in str(parse_output("assert f(1) == x + 1").error)


def test_as_literal_refuses_values_without_a_literal() -> None:
    assert as_literal({"a": (1, 2.5, None)}) == "{'a': (1, 2.5, None)}"
    with pytest.raises(InvalidTask, match="literal"):
        as_literal(float("inf"))
    with pytest.raises(InvalidTask, match="literal"):
        as_literal([float("nan")])
