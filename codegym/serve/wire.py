"""The JSON form of what an env sends and takes: observations, infos, `Grade` values and spaces.

`encode` turns a value into plain JSON (dicts, lists, str, numbers, bools, None) and `decode`
turns it back, exactly: a numpy array keeps its dtype, shape and bytes; a tuple stays a tuple;
a `Grade` comes back equal, with its measured resources and artifacts; a non-finite float stays
what it was. Values JSON cannot carry as themselves travel as one-key tagged objects::

    {"__ndarray__": "<base64 of the C-order bytes>", "dtype": "<i8", "shape": [2, 3]}
    {"__npscalar__": "<base64>", "dtype": "<f4"}     {"__tuple__": [...]}
    {"__grade__": {...}}     {"__bytes__": "<base64>"}     {"__float__": "nan"}

`space_to_dict` and `space_from_dict` do the same for the Gymnasium spaces codegym declares
(`UnicodeText`, ``Text``, ``Discrete``, ``MultiBinary``, ``MultiDiscrete``, ``Box``, ``Dict``,
``Tuple``, ``Sequence``).
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from codegym.grade import Diagnostic, Grade, Status, TestOutcome
from codegym.harness.wire import ModelReply
from codegym.spaces import UnicodeText

TAGS = ("__ndarray__", "__npscalar__", "__tuple__", "__grade__", "__bytes__", "__model_reply__", "__float__")


class WireError(ValueError):
    """A JSON value that is not what `decode` or `space_from_dict` expects."""


def encode(value: Any) -> Any:
    """``value`` as plain JSON that `decode` turns back into an equal value.

    Raises:
        TypeError: A value of a type the wire does not carry (an arbitrary object).
    """
    if value is None or (isinstance(value, (bool, int, str)) and not isinstance(value, enum.Enum)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, np.ndarray):
        return _array(value)
    if isinstance(value, np.generic):
        return {"__npscalar__": _b64(np.asarray(value).tobytes()), "dtype": value.dtype.str}
    if isinstance(value, Grade):
        return {"__grade__": grade_to_dict(value)}
    if isinstance(value, ModelReply):  # (a harness step's action)
        return {"__model_reply__": encode(dataclasses.asdict(value))}
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes__": _b64(bytes(value))}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {_key(key): encode(item) for key, item in value.items()}
    raise TypeError(
        f"cannot send a {type(value).__name__} over the wire; expected JSON values, numpy arrays or a Grade"
    )


def decode(value: Any) -> Any:
    """The value `encode` made ``value`` from."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    tag = next((key for key in TAGS if key in value), None)
    if tag is None:
        return {key: decode(item) for key, item in value.items()}
    try:
        return _untag(tag, value)
    except (KeyError, TypeError, ValueError) as e:
        raise WireError(f"a malformed {tag} value ({e}): {str(value)[:200]}") from e


def _untag(tag: str, value: dict[str, Any]) -> Any:
    if tag == "__ndarray__":
        data = base64.b64decode(value["__ndarray__"])
        return np.frombuffer(data, dtype=np.dtype(value["dtype"])).reshape(value["shape"]).copy()
    if tag == "__npscalar__":
        return np.frombuffer(base64.b64decode(value["__npscalar__"]), dtype=np.dtype(value["dtype"]))[0]
    if tag == "__tuple__":
        return tuple(decode(item) for item in value["__tuple__"])
    if tag == "__grade__":
        return grade_from_dict(value["__grade__"])
    if tag == "__bytes__":
        return base64.b64decode(value["__bytes__"])
    if tag == "__model_reply__":
        return ModelReply.from_fields(decode(value["__model_reply__"]))
    return float(value["__float__"])


def _array(array: np.ndarray) -> dict[str, Any]:
    if array.dtype.hasobject:
        raise TypeError(f"cannot send an array of Python objects (dtype {array.dtype}) over the wire")
    data = np.ascontiguousarray(array).tobytes()
    return {"__ndarray__": _b64(data), "dtype": array.dtype.str, "shape": list(array.shape)}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a mapping sent over the wire needs str keys, got {type(key).__name__} {key!r}")
    return key


# --- Grade ------------------------------------------------------------------------------------


def grade_to_dict(grade: Grade) -> dict[str, Any]:
    """``grade`` as JSON: its fields, tests and diagnostics as objects of their fields."""
    return {
        "status": grade.status.value,
        "tests": [_fields(test) for test in grade.tests],
        "diagnostics": [_fields(diagnostic) for diagnostic in grade.diagnostics],
        "metrics": encode(dict(grade.metrics)),
        "reward_components": encode(dict(grade.reward_components)),
        "message": grade.message,
        "resources": encode(dict(grade.resources)),
        "artifacts": encode(dict(grade.artifacts)),
        "solved": grade.solved,
    }


def _fields(value: Any) -> dict[str, Any]:
    """A flat dataclass (a `TestOutcome`, a `Diagnostic`) as an object of its encoded fields,
    but those at their default (most of a passed test's: the dataclass puts them back)."""
    out = {}
    for name, default in _defaults(type(value)):
        item = getattr(value, name)
        if item is not default and item != default:
            out[name] = encode(item)
    return out


def _flat(data: Mapping[str, Any]) -> dict[str, Any]:
    """The fields `_fields` sent (scalars but a tagged float or tuple, decoded)."""
    return {name: decode(item) if isinstance(item, (dict, list)) else item for name, item in data.items()}


@functools.cache
def _defaults(kind: type) -> tuple[tuple[str, Any], ...]:
    """Each field's name and default (`dataclasses.MISSING` when it has none)."""
    return tuple((field.name, field.default) for field in dataclasses.fields(kind))


def grade_from_dict(data: Mapping[str, Any]) -> Grade:
    """The `Grade` `grade_to_dict` made ``data`` from."""
    return Grade(
        status=Status(data["status"]),
        tests=tuple(TestOutcome(**_flat(test)) for test in data.get("tests", ())),
        diagnostics=tuple(Diagnostic(**_flat(item)) for item in data.get("diagnostics", ())),
        metrics=decode(data.get("metrics", {})),
        reward_components=decode(data.get("reward_components", {})),
        message=data.get("message", ""),
        resources=decode(data.get("resources", {})),
        artifacts=decode(data.get("artifacts", {})),
        solved=data.get("solved"),
    )


# --- spaces -----------------------------------------------------------------------------------


def space_to_dict(space: spaces.Space[Any]) -> dict[str, Any]:
    """``space`` as JSON (its seed is not sent: a client seeds its own copy).

    Raises:
        TypeError: A space type codegym does not declare.
    """
    if isinstance(space, UnicodeText):
        return {"type": "UnicodeText", "max_length": space.max_length}
    if isinstance(space, spaces.Text):
        return {"type": "Text", "max_length": space.max_length, "min_length": space.min_length,
                "charset": "".join(space.character_set)}  # fmt: skip
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": encode(space.n)}
    if isinstance(space, spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": encode(space.nvec), "start": encode(space.start),
                "dtype": space.dtype.str}  # fmt: skip
    if isinstance(space, spaces.Box):
        return {"type": "Box", "low": encode(space.low), "high": encode(space.high), "dtype": space.dtype.str}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {key: space_to_dict(sub) for key, sub in space.spaces.items()}}
    if isinstance(space, spaces.Tuple):
        return {"type": "Tuple", "spaces": [space_to_dict(sub) for sub in space.spaces]}
    if isinstance(space, spaces.Sequence):
        return {"type": "Sequence", "feature_space": space_to_dict(space.feature_space), "stack": space.stack}
    raise TypeError(f"cannot send a {type(space).__name__} space over the wire")


def space_from_dict(data: Mapping[str, Any]) -> spaces.Space[Any]:
    """The space `space_to_dict` made ``data`` from.

    Raises:
        WireError: ``data`` names no known space type or lacks one of its fields.
    """
    kind = data.get("type")
    try:
        return _SPACES[kind](data)  # type: ignore[index]
    except KeyError as e:
        if kind not in _SPACES:
            raise WireError(f"unknown space type {kind!r}; expected one of {sorted(_SPACES)}") from e
        raise WireError(f"a {kind} space without its field {e}") from e


_SPACES: dict[str, Any] = {
    "UnicodeText": lambda d: UnicodeText(d["max_length"]),
    "Text": lambda d: spaces.Text(d["max_length"], min_length=d["min_length"], charset=d["charset"]),
    "Discrete": lambda d: spaces.Discrete(d["n"], start=d["start"]),
    "MultiBinary": lambda d: spaces.MultiBinary(decode(d["n"])),
    "MultiDiscrete": lambda d: spaces.MultiDiscrete(decode(d["nvec"]), dtype=d["dtype"], start=decode(d["start"])),
    "Box": lambda d: spaces.Box(decode(d["low"]), decode(d["high"]), dtype=np.dtype(d["dtype"])),  # type: ignore[arg-type]
    "Dict": lambda d: spaces.Dict({key: space_from_dict(sub) for key, sub in d["spaces"].items()}),
    "Tuple": lambda d: spaces.Tuple([space_from_dict(sub) for sub in d["spaces"]]),
    "Sequence": lambda d: spaces.Sequence(space_from_dict(d["feature_space"]), stack=d["stack"]),
}
