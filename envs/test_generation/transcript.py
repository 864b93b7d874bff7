"""What a program was asked and answered in one run of the tests: the record a kill rests on.

The program's process (`codegym.envs.test_generation.holder`) writes a line when a call
comes in and one when it is answered; the runner reads them (`Transcript`). The tests never
see this pipe. Two runs of one test file, on the reference and on a mutant, are compared by
their transcripts (`divergence`): where the first difference is a *call* (the tests asked
something else: their own chance, clock or state, not the program, made them), nothing that
follows is the program's doing; where it is an *answer* to the same call, it is.

Lines (ASCII): ``L`` (loaded), ``E <message>`` (did not load), ``c <digest> <cpu_s>`` (a call
came in: its bytes' digest and the process's CPU time so far), ``r <digest> <cpu_s>`` (it was
answered: the answer's digest and the CPU time the call took). Answers are digested by value
by value and type, sets and dicts in any order (see `answer_digest`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_NOTHING: Any = object()
MAX_CALLS = 1 << 16  # calls recorded per run; later ones are not compared


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def answer_digest(kind: bytes, encoded: bytes, value: Any = _NOTHING) -> str:
    """The digest of an answer: ``kind`` (returned or raised) and, for a returned value, the
    value by value and type, with sets and dicts in any order (equal ones, one digest; ``1``,
    ``1.0`` and ``True`` are three answers, as a test that checks types sees them). A raised
    error: its ``encoded`` type and message.

    The codec's encoding already tells every type apart; only sets and dicts (whose tags a
    string's escaped quotes can never spell) need putting in order first."""
    if value is _NOTHING or not any(tag in encoded for tag in (b'{"s":', b'{"f":', b'{"d":')):
        return digest(kind + encoded)
    return digest(kind + json.dumps(_canonical(value), separators=(",", ":")).encode())


def _canonical(value: Any) -> Any:
    kind = type(value)
    if kind is str or value is None:
        return value
    if kind is list or kind is tuple:
        return [kind.__name__, [_canonical(v) for v in value]]
    if kind is set or kind is frozenset:
        return [kind.__name__, sorted(_key(v) for v in value)]
    if kind is dict:
        return ["dict", sorted([_key(k), _key(v)] for k, v in value.items())]
    if kind is bytes:
        return ["bytes", value.hex()]
    if kind is int:
        return ["int", hex(value)]  # (str() of a huge int is refused; hex() never is)
    return [kind.__name__, repr(value)]


def _key(value: Any) -> str:
    return json.dumps(_canonical(value), separators=(",", ":"))


@dataclass
class Call:
    """One call: its request's digest, its answer's (None while it runs), the CPU time the
    process had used when it came in and the CPU time it took (the program's own: what other
    processes do cannot add to it)."""

    request: str
    started_cpu_s: float
    answer: str | None = None
    cpu_s: float = 0.0


@dataclass
class Transcript:
    """A run's transcript as the runner reads it, line by line."""

    loaded: bool = False
    error: str | None = None
    calls: list[Call] = field(default_factory=list)
    truncated: bool = False
    garbled: bool = False

    def feed(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            self._line(line)

    def _line(self, line: bytes) -> None:
        parts = line.split(b" ", 2)
        try:
            if parts[0] == b"L":
                self.loaded = True
            elif parts[0] == b"E":
                self.error = line[2:].decode("utf-8", "replace")
            elif parts[0] == b"c" and len(self.calls) < MAX_CALLS:
                self.calls.append(Call(parts[1].decode(), float(parts[2])))
            elif parts[0] == b"c":
                self.truncated = True
            elif parts[0] == b"r" and self.calls and self.calls[-1].answer is None and not self.truncated:
                self.calls[-1].answer = parts[1].decode()
                self.calls[-1].cpu_s = float(parts[2])
        except (IndexError, ValueError):
            self.garbled = True


def divergence(reference: Transcript, run: Transcript, *, cpu_s: float, memory_bytes: int,
               reference_memory_bytes: int) -> dict[str, Any] | None:  # fmt: skip
    """Where ``run`` first differs from ``reference`` *in the program's answer to the same
    call*, or None: the runs agree, or the tests changed their calls first.

    Returns ``{"kind": "answer", "at": i}`` (the program answered call ``i`` otherwise), or
    ``{"kind": "unanswered", "at": i, ...}`` (the program never answered call ``i``, which
    the reference answered: it was still running, or died, when the run ended), carrying the
    CPU time the call had taken (``cpu_s``: ``cpu_s`` is the process's total, measured when
    it was stopped) and the program's peak memory, each with the reference's, for the grader
    to judge whether the mutant is really slower or hungrier (`grader.killed`).
    """
    if run.garbled or reference.garbled:
        return None
    comparison = Comparison(reference)
    state, i = comparison.update(run), comparison.checked
    if state == "answer":
        return {"kind": "answer", "at": i}
    if state == "moot" or i >= len(run.calls):
        return None
    call, expected = run.calls[i], reference.calls[i]  # (the same call, which only the reference answered)
    return {"kind": "unanswered", "at": i, "cpu_s": max(0.0, cpu_s - call.started_cpu_s),
            "reference_cpu_s": expected.cpu_s, "memory_bytes": memory_bytes,
            "reference_memory_bytes": reference_memory_bytes}  # fmt: skip


class Comparison:
    """A mutant run's transcript against the reference's, as far as it has come in (a run
    then ends as soon as its verdict is known). `state`: ``same`` (no difference yet; a call
    still running stops the walk at `checked`), ``answer`` (the program answered call
    `checked` otherwise: a failing test kills it from here), or ``moot`` (the tests asked
    otherwise first: nothing that follows can kill)."""

    def __init__(self, reference: Transcript) -> None:
        self.reference = reference
        self.checked = 0
        self.state = "same"

    def update(self, run: Transcript) -> str:
        while self.state == "same" and self.checked < len(run.calls):
            i, call = self.checked, run.calls[self.checked]
            expected = self.reference.calls[i] if i < len(self.reference.calls) else None
            if expected is None or expected.request != call.request or expected.answer is None:
                self.state = "moot"
            elif call.answer is None:
                break  # (still running)
            elif call.answer != expected.answer:
                self.state = "answer"
            else:
                self.checked += 1
        return self.state
