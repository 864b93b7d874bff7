"""Messages between the family's processes: a JSON header plus raw byte blobs (stdlib only).

Tensors travel as raw arrays: a record ``{"dtype", "shape", "strides", "blob"}`` in the
header (strides in elements, as the producing process saw them) and the bytes of a
contiguous copy in blob ``blob``. Nothing here trusts the bytes it decodes: `unpack`
checks every length and type and raises `Malformed`.
"""

from __future__ import annotations

import json
import struct
from typing import Any

_LENGTH = struct.Struct("!Q")
MAX_BLOBS = 4096
# Item sizes of the dtypes that may cross; bf16 travels as its raw 16 bits.
ITEM_SIZE = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
    "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}  # fmt: skip


# What a timing report may hold (anything else a submission's process sends is dropped).
TIMING_KEYS = ("speedup", "speedup_low", "speedup_high", "reference_ms", "candidate_ms", "pairs")


class Malformed(ValueError):
    """Bytes that are not a well-formed message."""


def pack(header: dict[str, Any], blobs: list[bytes] | tuple[bytes, ...] = ()) -> bytes:
    """One message: the JSON header, then each blob, each prefixed by its length."""
    text = json.dumps({**header, "_blobs": len(blobs)}).encode()
    parts = [_LENGTH.pack(len(text)), text]
    for blob in blobs:
        parts += [_LENGTH.pack(len(blob)), bytes(blob)]
    return b"".join(parts)


def unpack(data: bytes) -> tuple[dict[str, Any], list[bytes]]:
    """The header and blobs of a `pack`ed message; `Malformed` if it is not one."""
    view = memoryview(data)
    text, offset = _take(view, 0)
    try:
        header = json.loads(bytes(text))
    except ValueError as e:
        raise Malformed(f"the header is not JSON: {e}") from e
    if type(header) is not dict or type(header.get("_blobs")) is not int or not 0 <= header["_blobs"] <= MAX_BLOBS:
        raise Malformed("the header is not an object with a blob count")
    blobs = []
    for _ in range(header.pop("_blobs")):
        blob, offset = _take(view, offset)
        blobs.append(bytes(blob))
    if offset != len(view):
        raise Malformed(f"{len(view) - offset} stray bytes after the last blob")
    return header, blobs


def _take(view: memoryview, offset: int) -> tuple[memoryview, int]:
    if offset + _LENGTH.size > len(view):
        raise Malformed("the message ends inside a length prefix")
    (size,) = _LENGTH.unpack(view[offset : offset + _LENGTH.size])
    start = offset + _LENGTH.size
    if start + size > len(view):
        raise Malformed("a blob runs past the end of the message")
    return view[start : start + size], start + size


def check_record(record: Any, blobs: list[bytes]) -> dict[str, Any]:
    """``record`` if it describes a tensor consistent with its blob (blob -1: metadata only,
    for an output whose dtype or shape is wrong); else `Malformed`."""
    if type(record) is not dict:
        raise Malformed("a tensor record is not an object")
    dtype, shape, strides, blob = (record.get(k) for k in ("dtype", "shape", "strides", "blob"))
    if dtype not in ITEM_SIZE:
        raise Malformed(f"unsupported dtype {dtype!r}")
    for name, value in (("shape", shape), ("strides", strides)):
        if type(value) is not list or not all(type(v) is int for v in value):
            raise Malformed(f"{name} is not a list of ints")
    assert isinstance(shape, list) and isinstance(strides, list)
    if len(shape) != len(strides) or any(v < 0 for v in shape):
        raise Malformed("shape and strides disagree")
    if type(blob) is not int or not -1 <= blob < len(blobs):
        raise Malformed("the record names no blob")
    if blob == -1:  # metadata only
        return record
    count = 1
    for v in shape:
        count *= v
    if len(blobs[blob]) != count * ITEM_SIZE[dtype]:
        raise Malformed(f"blob of {len(blobs[blob])} bytes for {count} {dtype} values")
    return record
