"""Boundary probes: small concrete inputs every answer is run on, beside CrossHair's (pure).

CrossHair searches a bounded number of paths, in an order of its own: an answer wrong on a
whole class of inputs (every negative number, the empty list) can be missed when its other
paths fill the budget first. Every answer is therefore also run, concretely and in the
sandbox, on probes drawn from its parameters' annotations: the boundary values of each type
(negative, zero, one, empty, repeated, unsorted), combined by a generator seeded with the
task's id, so the same task always gets the same probes. They are judged as CrossHair's
inputs are: the harness checks the preconditions (a probe outside them is skipped), the
postconditions and exceptions, and the answer against the reference. A probe on which the
reference itself raises is not counted.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

PROBES = 16  # combined inputs per task at most
VALUES: dict[str, tuple[Any, ...]] = {
    "int": (0, 1, -1, 2, -2, 3, 7, 8, 10, 100),
    "bool": (False, True),
    "str": ("", "a", "ab", "aA", "ba", " a b", "aba", "Zz9", "abcab"),
    "list[int]": ((), (0,), (-1,), (1, 2), (2, 1), (3, -1, 3), (5, 5, 5), (1, 2, 3, 4), (4, 0, -2, 9, 1)),
    "list[str]": ((), ("",), ("a",), ("b", "a"), ("a", "a"), ("ab", "", "b")),
    "list[list[int]]": ((), ((),), ((1,),), ((1, 2), (3,)), ((-1,), (0, 0))),
    "dict[str, int]": ({}, {"a": 0}, {"a": -1, "b": 2}, {"b": 1, "a": 1}, {"x": 5, "y": 5, "z": -3}),
}
_TYPING = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set"}


def normalized(annotation: str) -> str:
    """``annotation`` in the builtin generics' spelling: ``List[int]`` is ``list[int]``."""
    text = re.sub(r"\b(List|Dict|Tuple|Set)\b", lambda m: _TYPING[m.group(1)], annotation)
    return text.replace(" ", "").replace(",", ", ")


def probes(task_id: str, annotations: Sequence[str]) -> list[tuple[Any, ...]]:
    """Up to `PROBES` argument tuples for a function whose parameters have ``annotations``
    (none when one of them is not in `VALUES`): each parameter's values in turn first, then
    seeded combinations."""
    pools = [VALUES.get(normalized(a)) for a in annotations]
    if not pools or any(pool is None for pool in pools):
        return []
    chosen: list[tuple[Any, ...]] = []
    rng = random.Random(f"codegym-probes:{task_id}")
    longest = max(len(pool) for pool in pools if pool is not None)
    candidates = [tuple(pool[i % len(pool)] for pool in pools if pool is not None) for i in range(longest)]
    candidates += [tuple(rng.choice(pool) for pool in pools if pool is not None) for _ in range(4 * PROBES)]
    for candidate in candidates:
        if candidate not in chosen:
            chosen.append(candidate)
        if len(chosen) == PROBES:
            break
    return [tuple(_thawed(v) for v in values) for values in chosen]


def _thawed(value: Any) -> Any:
    """A fresh mutable copy of a pool value (tuples stand for lists)."""
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    if isinstance(value, dict):
        return dict(value)
    return value
