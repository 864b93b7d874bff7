"""Output answers are read as literals only; input answers are split into their arguments'
sources, none evaluated here."""

from __future__ import annotations

import ast

import pytest
from codegym.envs.output_prediction.grader import (
    MAX_ANSWER,
    TOO_LONG,
    Answer,
    answer_text,
    arguments_source,
    as_literal,
    grade_output,
    parse_arguments,
    parse_input,
    parse_output,
)

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
def test_literal_inputs_parse_to_arguments(raw: str, values: tuple) -> None:
    answer = parse_arguments(answer_text(raw), "f")
    assert answer.ok, answer.error
    assert answer.values == values


@pytest.mark.parametrize(
    ("raw", "sources"),
    [
        ("1, 2", ("1", "2")),
        ("(1, 2)", ("(1, 2)",)),
        ("f((1, 2))", ("(1, 2)",)),
        ("assert f('a', [1]) == 'x'", ("'a'", "[1]")),
        ("[ANSWER]assert f(3) == 9[/ANSWER]", ("3",)),
        ("dict(a=1), lambda x: x + 1", ("dict(a=1)", "lambda x: x + 1")),
        ("f(range(3), 'a-b'.split('-'), LIMIT)", ("range(3)", "'a-b'.split('-')", "LIMIT")),
        ("__import__('os').system('touch /tmp/x')", ("__import__('os').system('touch /tmp/x')",)),
        ("f(f(1) + g(2))", ("f(1) + g(2)",)),
        ("f()", ()),
        ("'a', # a comment\n 2", ("'a'", "2")),
    ],
)
def test_input_answers_parse_to_the_sources_of_their_arguments(raw: str, sources: tuple[str, ...]) -> None:
    answer = parse_input(raw, "f")
    assert answer.ok, answer.error
    assert answer.sources == sources
    literals = parse_arguments(answer_text(raw))  # (all literals: read here, as they always were)
    assert answer.evaluated is not literals.ok
    assert answer.values == (literals.values if literals.ok else ())


@pytest.mark.parametrize(
    ("raw", "sources"),
    [
        ("'é', [1,\r\n 2]", ("'é'", "[1,\r\n 2]")),  # (column offsets count UTF-8 bytes; every line end counts)
        ("'日本', # ü\r 'x'", ("'日本'", "'x'")),
        ("f('ß'\n, lambda x: x + 'ñ')", ("'ß'", "lambda x: x + 'ñ'")),
        ("1, " * 3000, ("1",) * 3000),
    ],
)
def test_each_argument_s_source_is_its_text_in_the_answer(raw: str, sources: tuple[str, ...]) -> None:
    assert parse_input(raw, "f").sources == sources


def test_the_arguments_source_reads_back_as_a_tuple_of_each_argument() -> None:
    assert arguments_source(()) == "()"
    for raw in ("x for x in 'ab'", "1, # c\n 2", "lambda: 1, (y := 2)", "[1,\n 2]"):
        answer = parse_input(raw, "f")
        tree = ast.parse(arguments_source(answer.sources), mode="eval").body
        assert isinstance(tree, ast.Tuple) and len(tree.elts) == len(answer.sources), raw


def test_an_empty_input_is_the_call_f_only_for_a_function_without_parameters() -> None:
    assert parse_input("", "f", no_arguments=True) == Answer()
    assert parse_input("[ANSWER][/ANSWER]", "f", no_arguments=True).ok
    refused = parse_input("", "f")
    assert not refused.ok and "empty" in str(refused.error)
    assert refused.message == "the answer is not the arguments of f(...)"


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
        ("1) + g(2", "only the arguments"),
        ("1), f(2", "only the arguments"),
        ("f(x=1)", "keyword arguments"),
        ("f(*[1])", "starred"),
        ("f(1", "SyntaxError"),
        ("", "empty"),
        ("1, " * 40_000, "at most"),
    ],
)
def test_input_answers_that_are_not_arguments_are_refused(raw: str, match: str) -> None:
    answer = parse_input(raw, "f")
    assert not answer.ok
    assert match in str(answer.error)


@pytest.mark.parametrize("raw", ["__import__('os').system('touch /tmp/x')", "g(1)", "(lambda: 1)()", "x"])
def test_a_task_s_own_input_is_read_as_literals_only(raw: str) -> None:
    answer = parse_arguments(raw, "f")
    assert not answer.ok and "literal" in str(answer.error)


@pytest.mark.parametrize("parse", [parse_output, parse_input])
def test_an_answer_over_the_size_limit_says_so(parse: object) -> None:
    huge = "[" + "1, " * (7 << 20) + "]"  # a 20 MB literal
    answer = parse(huge)  # type: ignore[operator]
    assert not answer.ok and answer.message == TOO_LONG
    assert f"at most {MAX_ANSWER} are read" in str(answer.error) and str(len(huge)) in str(answer.error)
    grade = grade_output(answer, [1], "f()", 0.0)
    assert grade.status.value == "CE" and grade.message == TOO_LONG


def test_the_refusal_quotes_the_part_that_is_not_a_literal() -> None:
    refused = parse_arguments("1, __import__('os').system('ls')")
    assert "not a literal: __import__('os').system('ls')" in str(refused.error)
    assert "not a literal: x + 1" in str(parse_output("assert f(1) == x + 1").error)


def test_as_literal_refuses_values_without_a_literal() -> None:
    assert as_literal({"a": (1, 2.5, None)}) == "{'a': (1, 2.5, None)}"
    with pytest.raises(InvalidTask, match="literal"):
        as_literal(float("inf"))
    with pytest.raises(InvalidTask, match="literal"):
        as_literal([float("nan")])
