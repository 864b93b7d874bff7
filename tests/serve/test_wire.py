"""The wire codec: exact round trips of arrays, grades and spaces through JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

from codegym.grade import Diagnostic, Grade, Status, TestOutcome
from codegym.serve.wire import WireError, decode, encode, space_from_dict, space_to_dict
from codegym.spaces import UnicodeText, observation_space


def _through_json(value: Any) -> Any:
    return decode(json.loads(json.dumps(encode(value), allow_nan=False)))


def test_values_round_trip_exactly() -> None:
    value = {"a": np.arange(6, dtype=np.int8).reshape(2, 3), "b": np.float32(0.5), "t": ("x", 1), "n": None,
             "nan": float("nan"), "inf": -float("inf"), "bytes": b"\x00\xff", "list": [1, "é", True]}  # fmt: skip
    back = _through_json(value)
    assert back["a"].dtype == np.int8 and back["a"].shape == (2, 3) and np.array_equal(back["a"], value["a"])
    assert back["b"].dtype == np.float32 and back["b"] == np.float32(0.5)
    assert back["t"] == ("x", 1) and isinstance(back["t"], tuple) and back["bytes"] == b"\x00\xff"
    assert math.isnan(back["nan"]) and back["inf"] == -math.inf and back["list"] == [1, "é", True]


def test_a_grade_round_trips_with_its_measurements_and_artifacts() -> None:
    grade = Grade(
        Status.WA,
        tests=(TestOutcome("t1", True, time_s=0.1), TestOutcome("t2", False, hidden=True, tier="edge", got="3")),
        diagnostics=(Diagnostic("boom", line=3, column=1, severity="warning", code="E1"),),
        metrics={"pass_rate": 0.5},
        reward_components={"correct": 0.0},
        message="1 of 2",
        resources={"cpu_s": 0.25},
        artifacts={"render": np.zeros((4, 4, 3), dtype=np.uint8)},
    )
    back = _through_json({"grade": grade})["grade"]
    assert back == grade and back.resources == grade.resources and back.tests[0].time_s == 0.1
    assert back.artifacts["render"].dtype == np.uint8 and back.artifacts["render"].shape == (4, 4, 3)


def test_spaces_round_trip() -> None:
    picture = spaces.Box(0, 255, shape=(8, 8, 3), dtype=np.uint8)
    for space in (observation_space(), UnicodeText(), spaces.Text(5, charset="ab"), picture,
                  spaces.Dict({"p": picture, "s": spaces.Sequence(spaces.Discrete(3))}),
                  spaces.Tuple((spaces.MultiDiscrete([2, 3]), spaces.MultiBinary(4)))):  # fmt: skip
        assert space_from_dict(json.loads(json.dumps(space_to_dict(space)))) == space


def test_what_the_wire_cannot_carry_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot send a object"):
        encode(object())
    with pytest.raises(WireError, match="unknown space type"):
        space_from_dict({"type": "Graph"})
    with pytest.raises(WireError, match="malformed __ndarray__"):
        decode({"__ndarray__": "AAAA", "dtype": "<i8", "shape": [7]})
