"""The value codec across the process boundary, and code extraction from model answers."""

from __future__ import annotations

import math

import pytest
from codegym.envs.python_function import codec

from codegym.extract import extract_code

VALUES = [None, True, 0, -7, 10**400, 1.5, float("inf"), "héllo", b"\x00\xff", 1 + 2j, [1, [2]], (1, (2,)),
          {"a": 1, (1, 2): [3]}, {1, 2}, frozenset({"x"}), [], (), {}]  # fmt: skip


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_plain_values_round_trip_with_their_exact_types(value: object) -> None:
    decoded = codec.decode(codec.encode(value))
    assert decoded == value and type(decoded) is type(value)


def test_nan_round_trips() -> None:
    assert math.isnan(codec.decode(codec.encode(float("nan"))))


@pytest.mark.parametrize(
    "value",
    [
        object(),
        type("Liar", (int,), {"__eq__": lambda s, o: True})(1),
        [1, lambda: 0],
        {"k": type("S", (str,), {})("x")},
    ],
    ids=["object", "int-subclass", "nested-function", "str-subclass"],
)
def test_anything_else_is_refused(value: object) -> None:
    with pytest.raises(codec.NotPlain, match="cannot cross"):
        codec.encode(value)


@pytest.mark.parametrize(
    "data", [b"\xff", b'{"x": 1}', b'{"s": [[1]]}', b'{"d": [[1]]}', b"[" * 100000, b'{"c": "no"}']
)
def test_malformed_bytes_are_rejected(data: bytes) -> None:
    with pytest.raises(codec.Malformed):
        codec.decode(data)


def test_raw_code_is_returned_as_is() -> None:
    assert extract_code("def f():\n    return 1\n") == "def f():\n    return 1\n"


def test_the_tagged_block_wins() -> None:
    answer = "Try:\n```text\nnot code\n```\nthen\n```python\ndef f(): pass\n```\n"
    assert extract_code(answer) == "def f(): pass\n"
    assert extract_code("```py\nx = 1\n```") == "x = 1\n"


def test_untagged_then_longest_block() -> None:
    assert extract_code("```\na = 1\n```\n```rust\nfn main() {}\n```") == "a = 1\n"
    assert extract_code("```rust\nfn a() {}\n```\n```go\nfunc main() { longer() }\n```") == "func main() { longer() }\n"


def test_unterminated_fence_keeps_the_rest() -> None:
    assert extract_code("Sure!\n```python\ndef f():\n    return 2\n") == "def f():\n    return 2\n"
