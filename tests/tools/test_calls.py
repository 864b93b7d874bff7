"""parse_tool_calls: every accepted form, every error kind, ids, and a fuzz run that must never raise."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from codegym.tools.calls import ParsedAction, ToolCall, parse_tool_calls
from codegym.tools.schemas import TOOL_NAMES, tool_schemas

TOOLS = tool_schemas()


def parse(action: Any) -> ParsedAction:
    return parse_tool_calls(action, TOOLS)


def only_error(action: Any) -> str:
    parsed = parse(action)
    assert not parsed.calls and len(parsed.errors) == 1, parsed
    return parsed.errors[0]


def hermes(name: str, arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


# Hermes / Qwen blocks


def test_hermes_block() -> None:
    parsed = parse(
        'I will list the files.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>'
    )
    assert parsed.ok
    assert parsed.calls == (ToolCall("call_0", "bash", {"command": "ls"}),)


def test_hermes_arguments_as_json_string() -> None:
    parsed = parse(hermes("search", json.dumps({"pattern": "def f", "path": "src"})))
    assert parsed.calls[0].arguments == {"pattern": "def f", "path": "src"}


def test_hermes_missing_closing_tag_at_end_is_tolerated() -> None:
    parsed = parse('<tool_call>\n{"name": "submit", "arguments": {}}\n')
    assert parsed.ok and parsed.calls[0].name == "submit"


def test_hermes_missing_closing_tag_before_next_block_is_an_error() -> None:
    parsed = parse('<tool_call>{"name": "submit", "arguments": {}}\n' + hermes("bash", {"command": "ls"}))
    assert [call.name for call in parsed.calls] == ["bash"]
    assert len(parsed.errors) == 1 and "not closed by </tool_call>" in parsed.errors[0]


def test_hermes_missing_arguments_means_none() -> None:
    assert parse('<tool_call>{"name": "submit"}</tool_call>').ok


def test_several_hermes_blocks_in_order_with_ids() -> None:
    text = hermes("bash", {"command": "ls"}) + "\nthen\n" + hermes("search", {"pattern": "x"}) + hermes("submit", {})
    parsed = parse(text)
    assert [(call.id, call.name) for call in parsed.calls] == [
        ("call_0", "bash"),
        ("call_1", "search"),
        ("call_2", "submit"),
    ]


def test_malformed_json_says_where() -> None:
    message = only_error('<tool_call>{"name": "bash", "arguments": {"command": "ls"}</tool_call>')
    assert "not valid JSON" in message and "line 1 column" in message
    assert '<tool_call>{"name": "bash"' in message  # an example of the right form


def test_block_that_is_not_an_object() -> None:
    assert "must be a JSON object, not an array" in only_error("<tool_call>[1, 2]</tool_call>")


def test_unexpected_key_in_the_call() -> None:
    message = only_error('<tool_call>{"name": "bash", "parameters": {"command": "ls"}}</tool_call>')
    assert 'unexpected key(s) "parameters"' in message and '"arguments"' in message


def test_deeply_nested_or_huge_json_is_an_error_not_a_crash() -> None:
    assert "not valid JSON" in only_error("<tool_call>" + "[" * 100_000 + "</tool_call>")
    assert "not valid JSON" in only_error('<tool_call>{"name": "bash", "arguments": ' + "9" * 10_000 + "}</tool_call>")


# OpenHands / R2E-Gym XML blocks


def test_xml_block() -> None:
    parsed = parse("<function=bash>\n<parameter=command>ls -la</parameter>\n</function>")
    assert parsed.calls == (ToolCall("call_0", "bash", {"command": "ls -la"}),)


def test_xml_values_keep_all_but_one_leading_and_trailing_newline() -> None:
    text = (
        "<function=str_replace_editor>\n<parameter=command>create</parameter>\n<parameter=path>a.py</parameter>\n"
        "<parameter=file_text>\n\ndef f():\n    return 1\n\n</parameter>\n</function>"
    )
    assert parse(text).calls[0].arguments["file_text"] == "\ndef f():\n    return 1\n"


@pytest.mark.parametrize(
    ("name", "key", "text", "value"),
    [
        ("str_replace_editor", "insert_line", " 3 ", 3),
        ("str_replace_editor", "view_range", "[1, -1]", [1, -1]),
        ("bash", "timeout_s", "2.5", 2.5),
        ("bash", "timeout_s", "10", 10),
    ],
)
def test_xml_values_convert_to_the_schema_type(name: str, key: str, text: str, value: object) -> None:
    required = {"bash": {"command": "ls"}, "str_replace_editor": {"command": "view", "path": "a.py"}}[name]
    parameters = "".join(f"<parameter={k}>{v}</parameter>" for k, v in {**required, key: text}.items())
    parsed = parse(f"<function={name}>{parameters}</function>")
    assert parsed.ok, parsed.errors
    assert parsed.calls[0].arguments[key] == value
    assert type(parsed.calls[0].arguments[key]) is type(value)


def test_xml_boolean_conversion() -> None:
    schema = {"name": "flag", "parameters": {"type": "object", "properties": {"on": {"type": "boolean"}}}}
    for text, value in [("true", True), ("False", False)]:
        parsed = parse_tool_calls(f"<function=flag><parameter=on>{text}</parameter></function>", [schema])
        assert parsed.calls[0].arguments == {"on": value}
    parsed = parse_tool_calls("<function=flag><parameter=on>yes</parameter></function>", [schema])
    assert "<parameter=on> must be a boolean" in parsed.errors[0]


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("insert_line", "abc", '<parameter=insert_line> must be an integer, not "abc"'),
        ("insert_line", "1.5", "<parameter=insert_line> must be an integer"),
        ("view_range", "1, 10", "<parameter=view_range> must be an array in JSON"),
        ("view_range", "[1, 2, 3]", "must hold 2 items, not 3"),
        ("view_range", '[1, "x"]', '"view_range"[1] must be an integer, not a string'),
    ],
)
def test_xml_conversion_errors(key: str, text: str, expected: str) -> None:
    message = only_error(
        f"<function=str_replace_editor><parameter=command>view</parameter><parameter=path>a</parameter>"
        f"<parameter={key}>{text}</parameter></function>"
    )
    assert expected in message
    assert message.count(key) >= 1 and "Expected str_replace_editor(" in message
    assert "<function=str_replace_editor>" in message  # the example takes the form the model used


def test_xml_unclosed_parameter_at_the_end_is_tolerated_but_not_before_another() -> None:
    assert parse("<function=bash>\n<parameter=command>ls\n</function>").calls[0].arguments == {"command": "ls"}
    message = only_error("<function=bash><parameter=command>ls<parameter=timeout_s>3</parameter></function>")
    assert "<parameter=command> is not closed by </parameter>" in message


def test_xml_duplicate_parameter() -> None:
    message = only_error(
        "<function=bash><parameter=command>ls</parameter><parameter=command>pwd</parameter></function>"
    )
    assert "<parameter=command> is given twice" in message


def test_xml_unclosed_function_before_the_next() -> None:
    parsed = parse("<function=submit>\n<function=bash><parameter=command>ls</parameter></function>")
    assert [call.name for call in parsed.calls] == ["bash"]
    assert "not closed by </function>" in parsed.errors[0]
    assert parse("<function=bash><parameter=command>ls</parameter>").ok  # cut off at the very end


def test_hermes_and_xml_blocks_mix_in_text_order() -> None:
    text = "<function=submit></function>" + hermes("bash", {"command": "ls"})
    assert [call.name for call in parse(text).calls] == ["submit", "bash"]


def test_a_block_inside_another_blocks_value_is_not_a_call() -> None:
    inner = hermes("submit", {})
    parsed = parse(f"<function=bash><parameter=command>echo '{inner}'</parameter></function>")
    assert [call.name for call in parsed.calls] == ["bash"]
    assert inner in parsed.calls[0].arguments["command"]


# Fenced bash blocks


def test_fenced_bash_blocks() -> None:
    parsed = parse("Let me look.\n```bash\nls -la\ncat a.py\n```\nand then\n```sh\npython a.py\n```\n")
    assert [call.arguments["command"] for call in parsed.calls] == ["ls -la\ncat a.py", "python a.py"]
    assert [call.id for call in parsed.calls] == ["call_0", "call_1"]


def test_fences_in_other_languages_are_not_calls() -> None:
    assert "No tool call found" in only_error("```python\nprint(1)\n```")


def test_fences_are_ignored_when_the_text_has_blocks() -> None:
    parsed = parse("```bash\nrm -rf build\n```\n" + hermes("submit", {}))
    assert [call.name for call in parsed.calls] == ["submit"]


# Python objects


def test_plain_dict() -> None:
    parsed = parse({"name": "search", "arguments": {"pattern": "TODO"}})
    assert parsed.calls == (ToolCall("call_0", "search", {"pattern": "TODO"}),)


def test_openai_tool_calls_keep_their_ids() -> None:
    calls = [
        {"id": "call_abc", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}},
        {"id": "call_def", "type": "function", "function": {"name": "submit", "arguments": ""}},
    ]
    parsed = parse(calls)
    assert [(call.id, call.name, call.arguments) for call in parsed.calls] == [
        ("call_abc", "bash", {"command": "ls"}),
        ("call_def", "submit", {}),
    ]


def test_assistant_message() -> None:
    message = {
        "role": "assistant",
        "content": "thinking... ```bash\nrm -rf /\n```",
        "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
        ],
    }
    assert parse(message).calls == (ToolCall("t1", "bash", {"command": "ls"}),)


def test_assistant_message_without_tool_calls_reads_its_content() -> None:
    message = {"role": "assistant", "content": hermes("submit", {}), "tool_calls": None}
    assert parse(message).calls[0].name == "submit"
    assert "No tool call found" in only_error({"role": "assistant", "content": None})


def test_ids_count_malformed_calls() -> None:
    parsed = parse([{"name": "nope"}, {"name": "submit"}])
    assert parsed.calls[0].id == "call_1"
    assert parsed.errors[0].startswith("Tool call call_0:")


def test_arguments_are_a_copy() -> None:
    arguments = {"pattern": "x"}
    parsed = parse({"name": "search", "arguments": arguments})
    parsed.calls[0].arguments["path"] = "src"
    assert arguments == {"pattern": "x"}


@pytest.mark.parametrize("action", [3, None, b"<tool_call>", [1, 2], ["ls"]])
def test_wrong_python_type_raises(action: object) -> None:
    with pytest.raises(TypeError, match=r"str, a mapping or a sequence of mappings|holds mappings"):
        parse(action)


# Validation errors


def test_unknown_tool_suggests_a_close_name() -> None:
    message = only_error(hermes("bsh", {"command": "ls"}))
    assert 'unknown tool "bsh"; did you mean "bash"?' in message
    assert "bash, str_replace_editor, search, submit" in message


def test_missing_name() -> None:
    assert "must name a tool, not null" in only_error({"arguments": {}})
    assert "must name a tool, not 5" in only_error('<tool_call>{"name": 5, "arguments": {}}</tool_call>')


def test_arguments_not_an_object() -> None:
    assert "the arguments must be a JSON object, not an array" in only_error(hermes("bash", ["ls"]))
    assert "the arguments must be a JSON object, not null" in only_error({"name": "submit", "arguments": None})


def test_arguments_string_with_bad_json() -> None:
    message = only_error({"name": "bash", "arguments": '{"command": ls}'})
    assert "the arguments string is not valid JSON: Expecting value at line 1 column 13" in message
    assert message.endswith('For example: {"name": "bash", "arguments": {"command": "..."}}')


def test_missing_required_argument() -> None:
    message = only_error(hermes("str_replace_editor", {"command": "view"}))
    assert 'the required argument "path" is missing' in message
    assert "Expected str_replace_editor(command: " in message and "path: string" in message


def test_unknown_argument_suggests_a_close_name() -> None:
    message = only_error(hermes("bash", {"command": "ls", "timeout": 5}))
    assert 'unknown argument "timeout"; did you mean "timeout_s"?' in message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"command": 5}, '"command" must be a string, not an integer 5'),
        ({"command": "ls", "timeout_s": "5"}, '"timeout_s" must be a number, not a string "5"'),
        ({"command": "ls", "timeout_s": True}, '"timeout_s" must be a number, not a boolean true'),
        ({"command": ["ls"]}, '"command" must be a string, not an array'),
        ({"command": {"a": 1}}, '"command" must be a string, not an object'),
    ],
)
def test_wrong_json_types(arguments: dict[str, Any], expected: str) -> None:
    assert expected in only_error(hermes("bash", arguments))


def test_integer_is_not_number_or_bool() -> None:
    base = {"command": "insert", "path": "a", "new_str": "x"}
    assert '"insert_line" must be an integer, not a number 1.0' in only_error(
        hermes("str_replace_editor", {**base, "insert_line": 1.0})
    )
    assert '"insert_line" must be an integer, not a boolean' in only_error(
        hermes("str_replace_editor", {**base, "insert_line": False})
    )
    assert parse(hermes("bash", {"command": "ls", "timeout_s": 3})).ok  # an integer is a number


def test_enum_violation() -> None:
    message = only_error(hermes("str_replace_editor", {"command": "delete", "path": "a"}))
    assert (
        '"command" must be one of "view" | "create" | "str_replace" | "insert" | "undo_edit", not "delete"' in message
    )


def test_every_problem_of_a_call_is_in_its_one_message() -> None:
    message = only_error(hermes("str_replace_editor", {"command": "vew", "pth": "a"}))
    assert "unknown argument" in message and "missing" in message and "must be one of" in message


def test_mixed_valid_and_invalid_calls() -> None:
    text = hermes("bash", {"command": "ls"}) + hermes("bash", {}) + "<tool_call>oops</tool_call>" + hermes("submit", {})
    parsed = parse(text)
    assert [(call.id, call.name) for call in parsed.calls] == [("call_0", "bash"), ("call_3", "submit")]
    assert len(parsed.errors) == 2 and not parsed.ok
    assert parsed.errors[0].startswith("Tool call call_1 to bash:") and parsed.errors[1].startswith("Tool call call_2:")


@pytest.mark.parametrize("text", ["", "I think the answer is 42.", "<tool_call", "```bash\nls"])
def test_no_call_explains_the_forms(text: str) -> None:
    message = only_error(text)
    assert message.startswith("No tool call found.")
    assert '<tool_call>{"name": "bash", "arguments": {"command": "..."}}</tool_call>' in message
    assert "<function=NAME>" in message and "```bash" in message


def test_examples_in_messages_parse() -> None:
    for name in TOOL_NAMES:
        for action in (
            f"<tool_call>{json.dumps({'name': name, 'arguments': {'zz': 1}})}</tool_call>",
            f"<function={name}><parameter=zz>1</parameter></function>",
        ):
            example = only_error(action).split("For example: ", 1)[1]
            parsed = parse(example)
            assert parsed.ok and parsed.calls[0].name == name, (example, parsed.errors)


def test_only_offered_tools_are_accepted() -> None:
    parsed = parse_tool_calls(hermes("bash", {"command": "ls"}), tool_schemas(["search", "submit"]))
    assert 'unknown tool "bash"' in parsed.errors[0] and "(the tools are: search, submit)" in parsed.errors[0]
    assert 'For example: <tool_call>{"name": "search"' in parsed.errors[0]


# Fuzz

FRAGMENTS = (
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<function=bash>",
    "<function=str_replace_editor>",
    "</function>",
    "<parameter=",
    "<parameter=command>",
    "<parameter=view_range>",
    "<parameter=insert_line>",
    "</parameter>",
    "{",
    "}",
    "[",
    "]",
    '"name"',
    '"arguments"',
    '"bash"',
    '"command"',
    ":",
    ",",
    '"',
    "\\",
    "\n",
    " ",
    "```",
    "```bash\n",
    "```sh",
    "ls",
    "1",
    "-1",
    "true",
    "null",
    "view",
    ">",
    "<",
    "=",
    "\ud800",
    "é",
    "\x00",
)


def test_fuzz_never_raises() -> None:
    rng = random.Random(20240501)
    names = set(TOOL_NAMES)
    for _ in range(4000):
        text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 40)))
        parsed = parse(text)
        assert parsed.calls or parsed.errors
        assert parsed.ok == (bool(parsed.calls) and not parsed.errors)
        assert all(call.name in names and isinstance(call.arguments, dict) for call in parsed.calls)
        assert all(isinstance(error, str) and error for error in parsed.errors)
        for error in parsed.errors:
            error.encode("utf-8")  # the message can be tokenized


def random_json(rng: random.Random, depth: int = 0) -> Any:
    leaves = [None, True, 0, -1, 2.5, "", "ls", "bash", "view", "submit", "\ud800"]
    kind = rng.randrange(4 if depth < 3 else 1)
    if kind == 0:
        return rng.choice(leaves)
    if kind == 1:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["name", "arguments", "id", "type", "function", "command", "path", "view_range", "tool_calls", "role"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def test_fuzz_objects_never_raise() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        value = random_json(rng)
        for action in (value, f"<tool_call>{json.dumps(value)}</tool_call>"):
            if isinstance(action, (str, dict)) or (
                isinstance(action, list) and all(isinstance(v, dict) for v in action)
            ):
                parsed = parse(action)
                assert parsed.calls or parsed.errors
