"""Plain builtin values across the process boundary (stdlib only; both sides use it).

Only None, bool, int, float, complex, str, bytes, list, tuple, dict, set and frozenset of
exactly those types cross; a subclass (an ``int`` with a custom ``__eq__``) or any other
object is refused. The grader decodes with its own copy of this module, so whatever the
submission does to its copy, the grader only ever compares genuine builtins.

Calls go the other way, from the grader to the submission, and carry only the tests' own
values: they travel as `marshal` (`encode_call`), which the submission's process decodes
in one C call. Everything the grader reads is JSON, decoded and checked here.
"""

from __future__ import annotations

import base64
import json
import marshal
from typing import Any

MAX_DEPTH = 100
_TAGS = {"t", "d", "s", "f", "b", "c", "i"}


class NotPlain(TypeError):
    """A value that is not a plain builtin."""


class Malformed(ValueError):
    """Bytes that are not a well-formed encoding."""


def encode(value: Any) -> bytes:
    return _ENCODER.encode(_tree(value, 0)).encode()


def encode_call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """A call of the submission's function ``name``, from the grader."""
    try:
        return marshal.dumps((name, args, kwargs))
    except ValueError as e:  # (what marshal cannot carry: objects of other types)
        raise NotPlain(f"an argument cannot cross the process boundary ({e}); pass plain builtins") from e


def decode_call(data: bytes) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """`encode_call` undone, in the submission's process (which trusts the grader)."""
    return marshal.loads(data)


def decode(data: bytes) -> Any:
    try:
        return _DECODER.decode(data.decode(json.detect_encoding(data), "surrogatepass"))
    except (ValueError, TypeError, RecursionError) as e:
        raise Malformed(f"not a valid value encoding: {e}") from e


def _tree(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise NotPlain(f"value nested deeper than {MAX_DEPTH}")
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is float:
        return value
    if kind is int:
        return value if -(10**300) < value < 10**300 else {"i": hex(value)}
    if kind is list:
        return [_tree(v, depth + 1) for v in value]
    if kind is tuple:
        return {"t": [_tree(v, depth + 1) for v in value]}
    if kind is dict:
        return {"d": [[_tree(k, depth + 1), _tree(v, depth + 1)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"s" if kind is set else "f": [_tree(v, depth + 1) for v in value]}
    if kind is bytes:
        return {"b": base64.b64encode(value).decode()}
    if kind is complex:
        return {"c": [value.real, value.imag]}
    raise NotPlain(f"values of type {kind.__qualname__} cannot cross the process boundary; return plain builtins")


def _untag(pairs: list[tuple[str, Any]]) -> Any:
    if len(pairs) != 1 or pairs[0][0] not in _TAGS:
        raise Malformed("unexpected object in value encoding")
    tag, body = pairs[0]
    if tag == "t":
        return tuple(_list(body))
    if tag == "d":
        return {_key(k): v for k, v in (_pair(p) for p in _list(body))}
    if tag == "s":
        return {_key(v) for v in _list(body)}
    if tag == "f":
        return frozenset(_key(v) for v in _list(body))
    if tag == "b":
        return base64.b64decode(_str(body), validate=True)
    if tag == "c":
        real, imag = _list(body)
        return complex(float(real), float(imag))
    return int(_str(body), 16)


def _list(body: Any) -> list[Any]:
    if type(body) is not list:
        raise Malformed("expected a list in value encoding")
    return body


def _str(body: Any) -> str:
    if type(body) is not str:
        raise Malformed("expected a string in value encoding")
    return body


def _pair(body: Any) -> tuple[Any, Any]:
    items = _list(body)
    if len(items) != 2:
        raise Malformed("expected a key/value pair")
    return items[0], items[1]


def _key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError as e:
        raise Malformed(f"unhashable key or set member: {e}") from e
    return value


# Made once: json.dumps and json.loads build a new coder on every call given options.
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_DECODER = json.JSONDecoder(object_pairs_hook=_untag, parse_constant=float)
# What a submission that loaded says first, made once: the grader knows it by its bytes.
READY = encode({"kind": "ready"})
