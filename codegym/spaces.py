"""Spaces for code: any Unicode text, and the observation every family shares."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

from codegym.grade import STATUSES

MAX_TEXT = 1 << 16
_SAMPLE_CHARSET = string.printable


class UnicodeText(spaces.Text):
    """A string of any Unicode characters up to ``max_length``.

    Gymnasium's `Text` accepts only characters of a finite charset; code and compiler
    output contain any character, so membership here checks the type and length only.
    Samples are drawn from printable ASCII.
    """

    def __init__(self, max_length: int = MAX_TEXT, *, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnicodeText) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash((UnicodeText, self.max_length))


NO_STATUS = len(STATUSES)  # the status before any submission


def observation_space(max_tests: int = 256) -> spaces.Dict:
    """The observation of every code env.

    Keys:
        prompt: The task statement.
        feedback: Rendered feedback on the last submission ("" after reset).
        diagnostics: The last submission's diagnostics, one ``file:line:col: severity:
            message`` per line.
        status: Index into `codegym.grade.STATUSES`; ``NO_STATUS`` after reset.
        tests_passed: Per-test pass (1) / fail (0) of the last submission, public tests
            first, then hidden (padded with 0 up to ``max_tests``).
        tests_hidden: 1 where that test is hidden.
        tests_count: How many entries of the two arrays are real.
        pass_rate: Fraction of tests passed.
        attempt: Submissions made so far in this episode.

    Timings are not part of the observation: Gymnasium requires that the same seed and
    action give the same observation and info, and measured time never does. They are in
    ``info["grade"].resources``, which takes no part in a grade's equality.
    """
    return spaces.Dict(
        {
            "prompt": UnicodeText(),
            "feedback": UnicodeText(),
            "diagnostics": UnicodeText(),
            "status": spaces.Discrete(len(STATUSES) + 1),
            "tests_passed": spaces.MultiBinary(max_tests),
            "tests_hidden": spaces.MultiBinary(max_tests),
            "tests_count": spaces.Discrete(max_tests + 1),
            "pass_rate": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
            "attempt": spaces.Discrete(1 << 16),
        }
    )
