"""tool_schemas: the OpenAI shape, the required lists, fresh copies, and calls that validate against each schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codegym.tools.calls import parse_tool_calls
from codegym.tools.schemas import TOOL_NAMES, tool_schemas

# One call per tool with every argument given, in JSON types.
FULL_CALLS = {
    "bash": {"command": "ls -la", "timeout_s": 30},
    "str_replace_editor": {
        "command": "str_replace",
        "path": "a.py",
        "file_text": "x = 1\n",
        "old_str": "x = 1",
        "new_str": "x = 2",
        "insert_line": 0,
        "view_range": [1, -1],
    },
    "search": {"pattern": r"def \w+", "path": "src"},
    "submit": {},
}
REQUIRED = {"bash": ["command"], "str_replace_editor": ["command", "path"], "search": ["pattern"], "submit": []}


def test_all_tools_in_order() -> None:
    assert [schema["function"]["name"] for schema in tool_schemas()] == list(TOOL_NAMES)
    assert [schema["function"]["name"] for schema in tool_schemas(["submit", "bash"])] == ["submit", "bash"]


@pytest.mark.parametrize("schema", tool_schemas(), ids=TOOL_NAMES)
def test_openai_function_shape(schema: dict[str, Any]) -> None:
    assert set(schema) == {"type", "function"} and schema["type"] == "function"
    function = schema["function"]
    assert set(function) == {"name", "description", "parameters"}
    assert isinstance(function["description"], str) and function["description"]
    parameters = function["parameters"]
    assert set(parameters) == {"type", "properties", "required", "additionalProperties"}
    assert parameters["type"] == "object" and parameters["additionalProperties"] is False
    assert parameters["required"] == REQUIRED[function["name"]]
    assert set(parameters["required"]) <= set(parameters["properties"])
    for prop in parameters["properties"].values():
        assert prop["type"] in {"string", "integer", "number", "boolean", "array", "object"}
        assert prop["description"]
    assert json.loads(json.dumps(schema)) == schema


def test_editor_parameters() -> None:
    (editor,) = tool_schemas(["str_replace_editor"])
    properties = editor["function"]["parameters"]["properties"]
    assert properties["command"]["enum"] == ["view", "create", "str_replace", "insert", "undo_edit"]
    assert properties["insert_line"]["type"] == "integer"
    assert properties["view_range"]["type"] == "array" and properties["view_range"]["items"] == {"type": "integer"}
    description = editor["function"]["description"]
    for needed in (
        "Needs file_text",
        "exactly once",
        "empty when omitted",
        "Needs insert_line and new_str",
        "two levels",
    ):
        assert needed in description


def test_bash_description_states_the_sandbox_rules() -> None:
    (bash,) = tool_schemas(["bash"])
    description = bash["function"]["description"]
    for needed in (
        "fresh process",
        "no network",
        "persist",
        "background",
        "nohup",
        "killed",
        "elided",
        "saved to a file",
    ):
        assert needed in description


def test_max_timeout_is_stated() -> None:
    def timeout_description(**kwargs: Any) -> str:
        return tool_schemas(["bash"], **kwargs)[0]["function"]["parameters"]["properties"]["timeout_s"]["description"]

    assert "At most 90" in timeout_description(max_timeout_s=90)
    assert "At most 2.5" in timeout_description(max_timeout_s=2.5)
    assert "At most" not in timeout_description() and "caps" in timeout_description()


def test_schemas_are_fresh_copies() -> None:
    first = tool_schemas()
    first[0]["function"]["parameters"]["required"].append("timeout_s")
    first[1]["function"]["parameters"]["properties"]["command"]["enum"].clear()
    assert tool_schemas()[0]["function"]["parameters"]["required"] == ["command"]
    assert len(tool_schemas()[1]["function"]["parameters"]["properties"]["command"]["enum"]) == 5


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown tool 'python'.*bash, str_replace_editor, search, submit"):
        tool_schemas(["bash", "python"])


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_each_schema_accepts_its_example_call(name: str) -> None:
    tools = tool_schemas()
    arguments = FULL_CALLS[name]
    parsed = parse_tool_calls(f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>", tools)
    assert parsed.ok, parsed.errors
    assert parsed.calls[0].arguments == arguments
    required_only = {key: arguments[key] for key in REQUIRED[name]}
    assert parse_tool_calls({"name": name, "arguments": required_only}, tools).ok


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_each_schema_accepts_its_example_call_in_xml(name: str) -> None:
    arguments = FULL_CALLS[name]
    values = {key: value if isinstance(value, str) else json.dumps(value) for key, value in arguments.items()}
    parameters = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in values.items())
    parsed = parse_tool_calls(f"<function={name}>\n{parameters}</function>", tool_schemas())
    assert parsed.ok, parsed.errors
    assert parsed.calls[0].arguments == arguments


@pytest.mark.parametrize("name", [name for name in TOOL_NAMES if REQUIRED[name]])
def test_each_required_argument_is_enforced(name: str) -> None:
    for missing in REQUIRED[name]:
        arguments = {key: value for key, value in FULL_CALLS[name].items() if key != missing}
        parsed = parse_tool_calls({"name": name, "arguments": arguments}, tool_schemas())
        assert f'the required argument "{missing}" is missing' in parsed.errors[0]
