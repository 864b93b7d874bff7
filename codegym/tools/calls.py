"""Turning a model's action into tool calls, checked against the offered tools' schemas.

Whatever the model wrote is data: a malformed call becomes a message for the model (what was wrong, what is expected,
an example of the right form), never an exception. Only an action of the wrong Python type raises.

Accepted forms, in text: Hermes/Qwen ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks; OpenHands /
R2E-Gym ``<function=NAME><parameter=KEY>value</parameter></function>`` blocks; else fenced ```bash blocks,
each one bash call. As Python objects: ``{"name": ..., "arguments": ...}``, the OpenAI tool-call form
``{"id": ..., "type": "function", "function": {"name": ..., "arguments": "<json>"}}``, a list of either, or an OpenAI
assistant message with ``tool_calls``.
"""

from __future__ import annotations

import difflib
import json
import re
import reprlib
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_OPENER = re.compile(r"<tool_call>|<function=([^>\n]*)>")
_PARAMETER = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|\Z)", re.S)
_FENCE = re.compile(r"^[ \t]*(`{3,})[ \t]*(?:bash|sh)[ \t]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S | re.I)
_CALL_KEYS = frozenset({"name", "arguments", "id", "type"})
_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": Mapping,
    "null": type(None),
}
_ARTICLES = {"integer": "an integer", "array": "an array", "object": "an object"}
# bool before int: JSON keeps booleans and numbers apart, Python does not.
_JSON_NAMES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (Mapping, "an object"),
    (type(None), "null"),
)
_NOT_CONVERTED = object()


@dataclass(frozen=True)
class ToolCall:
    """One well-formed call of an offered tool.

    Attributes:
        id: The id the action gave the call, else ``call_<i>`` with ``i`` its position among the action's calls.
            Malformed calls count too: their messages in `ParsedAction.errors` start with their id.
        name: The tool's name.
        arguments: The arguments, checked against the tool's schema. The dataclass is frozen but this dict is not:
            copy it before changing it.
    """

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ParsedAction:
    """The tool calls found in one action.

    Attributes:
        calls: The well-formed calls, in the order the action gave them.
        errors: One message per malformed call, written for the model: what was wrong, what is expected, and an
            example of the right form. An action with no call at all gets one message explaining the forms.
    """

    calls: tuple[ToolCall, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the action held at least one call and no malformed one."""
        return bool(self.calls) and not self.errors


@dataclass(frozen=True)
class _Found:
    """A call as found in the action, before it is checked: the fields hold whatever the model wrote.

    ``form`` is how it was written: ``tool_call`` or ``fence`` (examples then use ``<tool_call>``), ``function``
    (the XML form, whose values are text to convert), or ``json`` (a Python object). ``fault`` is a problem met
    while reading it, such as malformed JSON.
    """

    name: object = None
    arguments: object = None
    id: object = None
    form: str = "json"
    fault: str | None = None


def parse_tool_calls(
    action: str | Mapping[str, Any] | Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> ParsedAction:
    """Find the tool calls in a model's action and check them against the tools' schemas.

    Args:
        action: The model's text, one call or assistant message as a mapping, or a sequence of calls.
        tools: The offered tools' schemas, as `codegym.tools.schemas.tool_schemas` returns them.

    Returns:
        The well-formed calls and one error message per malformed call; a malformed call does not stop the others.

    Raises:
        TypeError: ``action`` is not a str, a mapping, or a sequence of mappings.
    """
    schemas = _parameters_by_name(tools)
    found = _find(action)
    calls: list[ToolCall] = []
    errors: list[str] = []
    for index, item in enumerate(found):
        call_id = item.id if isinstance(item.id, str) and item.id else f"call_{index}"
        checked = _check(item, call_id, schemas)
        if isinstance(checked, ToolCall):
            calls.append(checked)
        else:
            errors.append(checked)
    if not found:
        errors.append(_no_call_message(schemas))
    return ParsedAction(tuple(calls), tuple(errors))


def _parameters_by_name(tools: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    by_name = {}
    for tool in tools:
        function = tool.get("function", tool)  # the OpenAI wrapper, or a bare function description
        by_name[function["name"]] = function.get("parameters", {})
    return by_name


# Reading the action


def _find(action: object) -> list[_Found]:
    if isinstance(action, str):
        return _from_text(action)
    if isinstance(action, Mapping):
        return _from_object(action)
    if isinstance(action, Sequence) and not isinstance(action, bytes | bytearray):
        found = []
        for item in action:
            if not isinstance(item, Mapping):
                raise TypeError(f"a sequence action holds mappings (tool calls), not {type(item).__name__}")
            found.extend(_from_object(item))
        return found
    raise TypeError(f"an action is a str, a mapping or a sequence of mappings, not {type(action).__name__}")


def _from_object(item: Mapping[Any, Any]) -> list[_Found]:
    if "tool_calls" not in item and "role" not in item:
        return [_from_call(item, "json")]
    tool_calls = item.get("tool_calls")
    if not tool_calls:  # an assistant message that answered in text
        content = item.get("content")
        return _from_text(content) if isinstance(content, str) else []
    if not isinstance(tool_calls, Sequence) or isinstance(tool_calls, str):
        return [_Found(fault=f"'tool_calls' must be a list of calls, not {_json_type(tool_calls)}")]
    return [_from_call(call, "json") for call in tool_calls]


def _from_call(call: object, form: str) -> _Found:
    if not isinstance(call, Mapping):
        return _Found(form=form, fault=f"a call must be a JSON object, not {_json_type(call)}")
    function = call.get("function")
    if isinstance(function, Mapping):  # OpenAI: {"id", "type": "function", "function": {"name", "arguments"}}
        return _Found(function.get("name"), function.get("arguments", {}), call.get("id"), form)
    unexpected = sorted(map(str, set(call) - _CALL_KEYS))
    keys = ", ".join(map(_show, unexpected))
    fault = f'unexpected key(s) {keys} in the call, which holds "name" and "arguments"' if unexpected else None
    return _Found(call.get("name"), call.get("arguments", {}), call.get("id"), form, fault)


def _from_text(text: str) -> list[_Found]:
    found = []
    position = 0
    while match := _OPENER.search(text, position):
        item, position = _xml_block(text, match) if match.group(1) is not None else _json_block(text, match.end())
        found.append(item)
    if found:
        return found
    return [_Found("bash", {"command": m.group(2).removesuffix("\n")}, form="fence") for m in _FENCE.finditer(text)]


def _block(text: str, start: int, opener: str, closer: str) -> tuple[str, int, bool]:
    """Return the body of the block opened just before ``start``, where reading resumes, and whether it is closed.

    A block left open at the very end of the text counts as closed, since generation often stops there; one left
    open before the next ``opener`` does not.
    """
    close = text.find(closer, start)
    reopen = text.find(opener, start)
    if reopen != -1 and (close == -1 or reopen < close):
        return text[start:reopen], reopen, False
    if close == -1:
        return text[start:], len(text), True
    return text[start:close], close + len(closer), True


def _json_block(text: str, start: int) -> tuple[_Found, int]:
    body, resume, closed = _block(text, start, "<tool_call>", "</tool_call>")
    if not closed:
        return _Found(form="tool_call", fault="a <tool_call> block is not closed by </tool_call>"), resume
    try:
        call = json.loads(body)
    except (ValueError, RecursionError) as e:
        return _Found(form="tool_call", fault=f"the <tool_call> block is not valid JSON: {_json_error(e)}"), resume
    return _from_call(call, "tool_call"), resume


def _xml_block(text: str, match: re.Match[str]) -> tuple[_Found, int]:
    name = match.group(1).strip()
    body, resume, closed = _block(text, match.end(), "<function=", "</function>")
    if not closed:
        return _Found(name, form="function", fault="a <function=...> block is not closed by </function>"), resume
    arguments: dict[str, str] = {}
    faults = []
    for parameter in _PARAMETER.finditer(body):
        key, value = parameter.group(1).strip(), parameter.group(2)
        if "<parameter=" in value:
            faults.append(f"<parameter={key}> is not closed by </parameter>")
        elif key in arguments:
            faults.append(f"<parameter={key}> is given twice")
        else:  # the newlines that set a value on its own lines are layout, not content
            arguments[key] = value.removeprefix("\n").removesuffix("\n")
    return _Found(name, arguments, form="function", fault="; ".join(faults) or None), resume


# Checking a call


def _check(item: _Found, call_id: str, schemas: Mapping[str, Mapping[str, Any]]) -> ToolCall | str:
    name = item.name
    if item.fault is not None:
        return _message(call_id, name, [item.fault], item.form, schemas)
    if not isinstance(name, str) or not name:
        return _message(call_id, None, [f"the call's name must name a tool, not {_show(name)}"], item.form, schemas)
    if name not in schemas:
        return _message(call_id, name, [_unknown("tool", name, schemas)], item.form, schemas)
    arguments, problems = _arguments(item, schemas[name])
    if problems:
        return _message(call_id, name, problems, item.form, schemas)
    return ToolCall(call_id, name, arguments)


def _arguments(item: _Found, parameters: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    arguments = item.arguments
    if isinstance(arguments, str):
        if not arguments.strip():  # some APIs send "" for a call without arguments
            arguments = "{}"
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as e:
            return {}, [f"the arguments string is not valid JSON: {_json_error(e)}"]
    if not isinstance(arguments, Mapping):
        return {}, [f"the arguments must be a JSON object, not {_json_type(arguments)}"]
    arguments = dict(arguments)
    unconverted = _convert_text(arguments, parameters) if item.form == "function" else {}
    return arguments, [*unconverted.values(), *_validate(arguments, parameters, skip=unconverted)]


def _convert_text(arguments: dict[str, Any], parameters: Mapping[str, Any]) -> dict[str, str]:
    """Convert, in place, the XML form's text values to the types the schema declares.

    Returns:
        The problem with each value that would not convert, by argument name.
    """
    properties = parameters.get("properties", {})
    problems = {}
    for key, value in arguments.items():
        kind = properties.get(key, {}).get("type")
        if kind in _PYTHON_TYPES and kind != "string" and isinstance(value, str):
            converted = _parse_text(value, kind)
            if converted is _NOT_CONVERTED:
                notation = " in JSON" if kind in ("array", "object") else ""
                problems[key] = f"<parameter={key}> must be {_a(kind)}{notation}, not {_show(value)}"
            else:
                arguments[key] = converted
    return problems


def _parse_text(text: str, kind: str) -> object:
    text = text.strip()
    if kind == "boolean" and text.lower() in ("true", "false"):  # Python's True / False too
        return text.lower() == "true"
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_CONVERTED
    return value if _is(value, kind) else _NOT_CONVERTED


def _validate(arguments: Mapping[str, Any], parameters: Mapping[str, Any], skip: Container[str] = ()) -> list[str]:
    """Return what is wrong with ``arguments``, leaving out the values of the arguments in ``skip``."""
    properties = parameters.get("properties", {})
    problems = []
    if parameters.get("additionalProperties") is False:
        problems += [_unknown("argument", key, properties) for key in arguments if key not in properties]
    problems += [
        f"the required argument {_show(key)} is missing"
        for key in parameters.get("required", ())
        if key not in arguments
    ]
    for key, value in arguments.items():
        if key in properties and key not in skip:
            problems += _check_value(value, properties[key], _show(key))
    return problems


def _check_value(value: object, schema: Mapping[str, Any], where: str) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str) and not _is(value, kind):
        return [f"{where} must be {_a(kind)}, not {_json_type(value)} {_show(value)}"]
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        choices = " | ".join(map(json.dumps, enum))
        return [f"{where} must be one of {choices}, not {_show(value)}"]
    if not isinstance(value, list):
        return []
    lowest, highest = schema.get("minItems", 0), schema.get("maxItems", len(value))
    if not lowest <= len(value) <= highest:
        count = lowest if lowest == highest else f"{lowest} to {highest}"
        return [f"{where} must hold {count} items, not {len(value)}"]
    items = schema.get("items", {})
    return [problem for i, item in enumerate(value) for problem in _check_value(item, items, f"{where}[{i}]")]


def _is(value: object, kind: str) -> bool:
    if kind not in _PYTHON_TYPES:
        return True
    if isinstance(value, bool) and kind != "boolean":  # as in _JSON_NAMES
        return False
    return isinstance(value, _PYTHON_TYPES[kind])


# Messages for the model


def _message(
    call_id: str, name: object, problems: list[str], form: str, schemas: Mapping[str, Mapping[str, Any]]
) -> str:
    if isinstance(name, str) and name in schemas:
        head, tool, expected = f"Tool call {call_id} to {name}", name, f" Expected {_signature(name, schemas[name])}."
    else:
        head, tool, expected = f"Tool call {call_id}", _default_tool(schemas), ""
    example = _example(tool, schemas.get(tool, {}), form)
    message = f"{head}: {'; '.join(problems)}.{expected} For example: {example}"
    # JSON escapes can yield lone surrogates (\ud800), which a tokenizer's UTF-8 encoding would reject.
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


def _no_call_message(schemas: Mapping[str, Mapping[str, Any]]) -> str:
    example = _example(_default_tool(schemas), schemas.get(_default_tool(schemas), {}), "tool_call")
    fence = " or a ```bash block" if "bash" in schemas else ""
    return (
        f"No tool call found. Write each call as JSON inside <tool_call></tool_call> tags, for example: {example} "
        f"(the <function=NAME><parameter=KEY>value</parameter></function> form{fence} works too). "
        f"The tools are: {', '.join(schemas) or 'none'}."
    )


def _unknown(what: str, name: object, known: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1) if isinstance(name, str) else []
    hint = f"; did you mean {_show(close[0])}?" if close else ""
    choices = ", ".join(known) or "none"
    return f"unknown {what} {_show(name)}{hint} (the {what}s are: {choices})"


def _default_tool(schemas: Mapping[str, Mapping[str, Any]]) -> str:
    return "bash" if "bash" in schemas else next(iter(schemas), "tool_name")


def _signature(name: str, parameters: Mapping[str, Any]) -> str:
    required = parameters.get("required", ())
    properties = parameters.get("properties", {}).items()
    parts = [f"{key}{'' if key in required else '?'}: {_type_name(schema)}" for key, schema in properties]
    return f"{name}({', '.join(parts)})"


def _type_name(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(map(json.dumps, schema["enum"]))
    kind = str(schema.get("type", "any"))
    return f"{kind}[{_type_name(schema['items'])}]" if kind == "array" and "items" in schema else kind


def _example(name: str, parameters: Mapping[str, Any], form: str) -> str:
    properties = parameters.get("properties", {})
    arguments = {key: _placeholder(properties.get(key, {})) for key in parameters.get("required", ())}
    if form == "function":
        lines = [
            f"<parameter={k}>{v if isinstance(v, str) else json.dumps(v)}</parameter>" for k, v in arguments.items()
        ]
        return "\n".join([f"<function={name}>", *lines, "</function>"])
    call = json.dumps({"name": name, "arguments": arguments})
    return call if form == "json" else f"<tool_call>{call}</tool_call>"


def _placeholder(schema: Mapping[str, Any]) -> object:
    if "enum" in schema:
        return schema["enum"][0]
    kind = str(schema.get("type"))
    if kind == "array":
        return [_placeholder(schema.get("items", {}))] * schema.get("minItems", 0)
    return {"integer": 1, "number": 1, "boolean": True, "object": {}, "null": None}.get(kind, "...")


def _a(kind: str) -> str:
    return _ARTICLES.get(kind, f"a {kind}")


def _json_type(value: object) -> str:
    found = (name for python_type, name in _JSON_NAMES if isinstance(value, python_type))
    return next(found, f"a Python {type(value).__name__}")


def _json_error(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at line {error.lineno} column {error.colno}"
    return "nested too deeply" if isinstance(error, RecursionError) else str(error)


def _show(value: object, limit: int = 60) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        shown = reprlib.repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
