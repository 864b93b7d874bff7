"""Tasks and where they come from."""

from __future__ import annotations

import base64
import binascii
import io
import json
import logging
import pickle
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from codegym.error import TaskFormatError, UnknownTask

logger = logging.getLogger(__name__)

Difficulty = Literal["easy", "medium", "hard"]
TIERS = ("basic", "intermediate", "complex", "edge")
QUARANTINE_FORMAT = "codegym-quarantine/1"
# What ``quarantine=`` takes: a file `codegym.validate` wrote (or one task id per line), or the ids.
Quarantine = str | Path | Mapping[str, Any] | Iterable[str]


@dataclass(frozen=True)
class TestCase:
    """One test of a task.

    Attributes:
        name: Unique within the task.
        code: The test itself (an assert statement, an input, ...; family-defined).
        hidden: Hidden tests count for reward but are never shown to the agent.
        tier: One of `TIERS`, when the task set labels them.
        setup: Code run just before this test, in the same namespace (family-defined).
        expected: Expected output, for families that compare outputs.
    """

    __test__ = False  # not a pytest class

    name: str
    code: str
    hidden: bool = True
    tier: str | None = None
    setup: str = ""
    expected: str | None = None


@dataclass(frozen=True)
class Task:
    """A coding problem. The agent sees `prompt` and the public tests only.

    Attributes:
        id: Unique id, for example ``"HumanEval/0"``.
        family: The env family that can run it.
        prompt: What the agent reads.
        tests: Public and hidden tests.
        language: Language of the expected submission.
        difficulty: ``easy``/``medium``/``hard`` when known.
        tags: Free-form labels.
        reference: A known-correct solution, never shown to the agent.
        metadata: Family-specific fields (entry point, prelude, ...). A loader that finds a
            task it cannot make gradable (a reference that does not parse, a problem too
            big for the machine) keeps it with ``metadata["invalid"]`` saying why: its
            submissions are graded ``IE`` and ``codegym validate`` reports it.
    """

    id: str
    family: str
    prompt: str
    tests: tuple[TestCase, ...]
    language: str = "python"
    difficulty: Difficulty | None = None
    tags: tuple[str, ...] = ()
    reference: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def invalid(self) -> str | None:
        """Why the task cannot be graded, when its loader found out (else None)."""
        reason = self.metadata.get("invalid")
        return str(reason) if reason else None

    @property
    def public_tests(self) -> tuple[TestCase, ...]:
        return tuple(t for t in self.tests if not t.hidden)

    @property
    def hidden_tests(self) -> tuple[TestCase, ...]:
        return tuple(t for t in self.tests if t.hidden)


class TaskSet:
    """An ordered, immutable collection of tasks, sampled with the env's ``np_random``."""

    def __init__(self, tasks: Iterable[Task], name: str = "tasks") -> None:
        self.name = name
        self._tasks: dict[str, Task] = {}
        for task in tasks:
            if task.id in self._tasks:
                raise ValueError(f"duplicate task id {task.id!r} in task set {name!r}")
            self._tasks[task.id] = task
        if not self._tasks:
            raise ValueError(f"task set {name!r} is empty")

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks.values())

    def __contains__(self, task_id: object) -> bool:
        return str(task_id) in self._tasks

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._tasks)

    def get(self, task_id: str | int) -> Task:
        """The task of id ``task_id``; also found by the id its source gave it (``11`` or
        ``"11"`` for ``"mbpp/11"``) when exactly one task's id ends with ``/`` and that."""
        key = str(task_id)
        task = self._tasks.get(key)
        if task is not None:
            return task
        suffixed = [t for i, t in self._tasks.items() if i.endswith(f"/{key}")]
        if len(suffixed) == 1:
            return suffixed[0]
        close = [i for i in self._tasks if key.lower() in i.lower()][:5]
        hint = f" Did you mean one of {close}?" if close else f" It holds {len(self)} tasks, e.g. {self.ids[:3]}."
        raise UnknownTask(f"task {task_id!r} is not in task set {self.name!r}.{hint}")

    def sample(self, rng: np.random.Generator) -> Task:
        return self._tasks[self.ids[int(rng.integers(len(self._tasks)))]]

    def without(self, task_ids: Iterable[str], *, why: str = "left out") -> TaskSet:
        """This set less ``task_ids`` (ids it does not hold are ignored)."""
        dropped = set(task_ids)
        kept = [t for t in self if t.id not in dropped]
        if len(kept) < len(self):
            logger.info("%s: %d task(s) %s", self.name, len(self) - len(kept), why)
        return TaskSet(kept, name=self.name)

    def filter(self, **fields: Any) -> TaskSet:
        """The tasks whose attributes equal ``fields`` (e.g. ``difficulty="easy"``)."""
        chosen = [t for t in self if all(getattr(t, k) == v for k, v in fields.items())]
        return TaskSet(chosen, name=f"{self.name}[{fields}]")


def read_quarantine(quarantine: Quarantine) -> dict[str, str]:
    """The quarantined task ids, with why: from a file `codegym.validate` wrote (JSON), a text
    file of one id per line (``#`` comments), a mapping of id to reason, or an iterable of ids."""
    if isinstance(quarantine, Mapping):
        return {str(k): str(v) for k, v in quarantine.items()}
    if not isinstance(quarantine, (str, Path)):
        return {str(task_id): "quarantined" for task_id in quarantine}
    path = Path(quarantine)
    try:
        text = path.read_text()
    except OSError as e:
        raise TaskFormatError(f"cannot read the quarantine file {path}: {e}") from e
    if text.lstrip().startswith("{"):
        data = json.loads(text)
        if data.get("format") != QUARANTINE_FORMAT or not isinstance(data.get("quarantined"), dict):
            raise TaskFormatError(
                f"{path} is not a quarantine file: expected a JSON object with format {QUARANTINE_FORMAT!r} and a "
                "'quarantined' object (`codegym validate ... --quarantine FILE` writes one), or one task id per line"
            )
        return {k: f"{v.get('verdict', 'invalid')}: {v.get('reason', '')}" for k, v in data["quarantined"].items()}
    ids = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return {task_id: "quarantined" for task_id in ids if task_id}


def quarantined(tasks: TaskSet, quarantine: Quarantine | None) -> TaskSet:
    """``tasks`` less those ``quarantine`` names (see `read_quarantine`); all when None."""
    if quarantine is None:
        return tasks
    return tasks.without(read_quarantine(quarantine), why="quarantined")


def as_rows(source: object) -> list[Mapping[str, Any]] | None:
    """``source`` as a list of records when it holds rows in memory: a list or tuple of
    mappings, or a ``datasets.Dataset`` / ``IterableDataset`` (anything with
    ``column_names`` that iterates mappings; ``datasets`` itself is never imported). None
    for anything else (a name, a path, a `TaskSet`, tasks)."""
    if isinstance(source, (str, Path, TaskSet, Mapping)):
        return None
    if hasattr(source, "column_names") and hasattr(source, "__iter__"):
        return [dict(row) for row in source]  # type: ignore[union-attr]
    if isinstance(source, (list, tuple)) and source and all(isinstance(row, Mapping) for row in source):
        return list(source)
    return None


class _PlainUnpickler(pickle.Unpickler):
    """Builds plain values only: a pickle naming any class or function is refused, so a data
    file can never run code in this process."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to load {module}.{name}")


def inflate_test_cases(value: str) -> str:
    """LiveCodeBench's compressed test cases (base64 of zlib of a pickled JSON string) as the
    JSON text they hold. Raises `TaskFormatError` saying what is wrong."""
    try:
        text = _PlainUnpickler(io.BytesIO(zlib.decompress(base64.b64decode(value)))).load()
    except (binascii.Error, zlib.error, pickle.UnpicklingError, EOFError, ValueError) as e:
        raise TaskFormatError(f"neither JSON nor LiveCodeBench's compressed form ({e})") from e
    if not isinstance(text, str):
        raise TaskFormatError(f"decompressed to {type(text).__name__}, not JSON text")
    return text
