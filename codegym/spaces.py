"""Spaces for code: any Unicode text, and the observation every family shares."""

from __future__ import annotations

import multiprocessing
import string
from collections.abc import Sequence
from types import ModuleType
from typing import Any, overload

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import shared_memory

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


# Async vector envs pass observations through shared memory, read once, at construction, as a
# live view that each step's writes update. Gymnasium stores a `Text` as indices into its
# charset (a code point outside it cannot be stored) and reads it as a tuple of str, which never
# changes again; a `UnicodeText` is stored as its code points, -1 past its end, and read as a
# `TextView` that decodes the memory on each access.
@shared_memory.create_shared_memory.register(UnicodeText)
def _create_text_memory(space: UnicodeText, n: int = 1, ctx: ModuleType = multiprocessing) -> Any:
    memory = ctx.Array(np.dtype(np.int32).char, n * space.max_length)
    np.frombuffer(memory.get_obj(), dtype=np.int32).fill(-1)
    return memory


@shared_memory.read_from_shared_memory.register(UnicodeText)
def _read_text_memory(space: UnicodeText, memory: Any, n: int = 1) -> Any:  # (a TextView)
    return TextView(np.frombuffer(memory.get_obj(), dtype=np.int32).reshape((n, space.max_length)))


@shared_memory.write_to_shared_memory.register(UnicodeText)
def _write_text_memory(space: UnicodeText, index: int, value: str, memory: Any) -> None:
    row = np.frombuffer(memory.get_obj(), dtype=np.int32)[index * space.max_length : (index + 1) * space.max_length]
    points = np.frombuffer(value.encode("utf-32-le", errors="surrogatepass"), dtype="<u4").astype(np.int32)
    row[: len(points)] = points
    row[len(points) :] = -1


class TextView(Sequence[str]):
    """The texts of a batch, decoded from shared memory on each access (a copy is a tuple)."""

    def __init__(self, rows: np.ndarray) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._rows[index]
        return row[row >= 0].astype("<u4").tobytes().decode("utf-32-le", errors="surrogatepass")

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, TextView) else other)

    __hash__ = None  # type: ignore[assignment]  # (mutable: the memory changes)

    def __deepcopy__(self, memo: dict[int, object]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"TextView({tuple(self)!r})"


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
