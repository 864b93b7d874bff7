"""Tasks and where they come from."""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import logging
import pickle
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
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
                raise TaskFormatError(f"duplicate task id {task.id!r} in task set {name!r}: task ids must be unique")
            self._tasks[task.id] = task
        if not self._tasks:
            raise TaskFormatError(f"task set {name!r} is empty")

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


def files_or_rows(source: str | Path | TaskSet | Iterable[Mapping[str, Any]], *, bundled: str, data: Path,
                  pattern: str, file_task: Callable[[str, str], Task],
                  row_task: Callable[[int, Mapping[str, Any]], Task]) -> TaskSet:  # fmt: skip
    """The task sources of a family whose task is one file: ``bundled`` (the folder of that
    name under ``data``), a folder of files matching ``pattern`` (each made a task by
    ``file_task(task_id, text)``, its id ``<folder>/<stem>``), or rows (``row_task(index,
    row)``); a `TaskSet` passes through."""
    if isinstance(source, TaskSet):
        return source
    if isinstance(source, str) and source == bundled:
        return TaskSet(_folder_tasks(data / bundled, bundled, pattern, file_task), name=bundled)
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_dir():
            raise TaskFormatError(f"{path}: expected {bundled!r}, a folder of task files ({pattern}) or rows")
        return TaskSet(_folder_tasks(path, path.name, pattern, file_task), name=path.name)
    rows = as_rows(source)
    if rows is None:
        raise TaskFormatError(f"expected a task source (a name, a folder or rows), got {type(source).__name__}")
    return TaskSet([row_task(index, row) for index, row in enumerate(rows)], name="rows")


def _folder_tasks(folder: Path, prefix: str, pattern: str, file_task: Callable[[str, str], Task]) -> list[Task]:
    files = sorted(folder.glob(pattern))
    if not files:
        raise TaskFormatError(f"{folder}: no task files ({pattern})")
    return [file_task(f"{prefix}/{path.stem}", path.read_text(encoding="utf-8")) for path in files]


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


# --- reading task files: every error names the file, the line and the field ------------------

SHOWN_CHARS = 80  # of a bad line, quoted in its error
SHOWN_LINES = 5  # bad lines named in one error


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line of a JSONL file: its number (from 1), and its value or why it has none."""

    number: int
    text: str
    value: Any = None
    error: str | None = None


def text_lines(text: str) -> list[str]:
    r"""``text``'s lines as JSON counts them: split at ``\n`` only (a trailing ``\r`` dropped),
    never at the U+2028 or ``\x1c`` that ``str.splitlines`` also breaks at and JSON strings
    may hold raw."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def json_lines(text: str) -> list[JsonLine]:
    """The non-blank lines of a JSONL text, each parsed (an unparsable line keeps its error)."""
    lines = []
    for number, line in enumerate(text_lines(text), 1):
        if not line.strip():
            continue
        try:
            lines.append(JsonLine(number, line, json.loads(line)))
        except json.JSONDecodeError as e:
            lines.append(JsonLine(number, line, error=f"not JSON ({e.msg} at column {e.colno}): {quoted(line)}"))
    return lines


def quoted(text: str, width: int = SHOWN_CHARS) -> str:
    """``text`` quoted, cut to ``width`` characters."""
    return repr(text) if len(text) <= width else repr(text[: width - 3]) + "..."


def shown(value: Any, width: int = SHOWN_CHARS) -> str:
    """``value`` as JSON, cut to ``width`` characters."""
    try:
        text = json.dumps(value, default=repr)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def read_text(path: str | Path, *, expected: str) -> str:
    """A task file's text (gunzipped when it ends in ``.gz``).

    Raises:
        TaskFormatError: The file is missing, unreadable, not UTF-8, or empty.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
        text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except FileNotFoundError as e:
        raise TaskFormatError(f"{path}: no such file; expected {expected}") from e
    except IsADirectoryError as e:
        raise TaskFormatError(f"{path} is a folder; expected a file of {expected}") from e
    except (OSError, EOFError, UnicodeDecodeError) as e:  # (gzip's BadGzipFile is an OSError)
        raise TaskFormatError(f"{path}: cannot be read ({e}); expected {expected}") from e
    if not text.strip():
        raise TaskFormatError(f"{path}: the file is empty; expected {expected}")
    return text


def read_rows(path: str | Path, *, expected: str) -> list[tuple[str, Mapping[str, Any]]]:
    """The rows of a JSONL file or a JSON array (gzipped or not), each with where it is:
    ``FILE:LINE``, the line its row starts on.

    Args:
        path: The file.
        expected: What a row holds, in words, for the errors (``"a JSON object with task_id,
            prompt and tests"``).

    Raises:
        TaskFormatError: The file is missing or empty, a line is not JSON (each such line is
            named, with its text), or a row is not a JSON object.
    """
    text = read_text(path, expected=f"one JSON object per line ({expected})")
    if text.lstrip().startswith("["):
        items = _array_items(text, path)
    else:
        lines = json_lines(text)
        bad = [f"{path}:{line.number}: {line.error}" for line in lines if line.error]
        if bad:
            more = f"\n(and {len(bad) - SHOWN_LINES} more)" if len(bad) > SHOWN_LINES else ""
            raise TaskFormatError(
                "\n".join(bad[:SHOWN_LINES]) + more + f"\nexpected one JSON object per line ({expected})"
            )
        items = [(line.number, line.value) for line in lines]
    rows = []
    for number, value in items:
        if not isinstance(value, Mapping):
            raise TaskFormatError(
                f"{path}:{number}: expected a JSON object ({expected}), got a JSON {json_kind(value)}: {shown(value)}"
            )
        rows.append((f"{path}:{number}", value))
    return rows


def parse_json(text: str, path: str | Path, *, expected: str) -> Any:
    """``text``, the whole of the file ``path``, parsed as one JSON document.

    Raises:
        TaskFormatError: Naming the line and column where it stops being JSON, and that line.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        lines = text_lines(text)
        line = lines[e.lineno - 1] if e.lineno <= len(lines) else ""
        raise TaskFormatError(
            f"{path}:{e.lineno}: not JSON ({e.msg} at column {e.colno}): {quoted(line.strip())}; expected {expected}"
        ) from e


def _array_items(text: str, path: str | Path) -> list[tuple[int, Any]]:
    """The items of a JSON array with the line each starts on."""
    values = parse_json(text, path, expected="a JSON array of objects, or one JSON object per line")
    return list(zip(array_item_lines(text, text.index("[")), values, strict=True))


def array_item_lines(text: str, start: int) -> list[int]:
    """The line (from 1) each item of the valid JSON array opening at ``text[start]`` starts on."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    line, counted, position = 1, 0, start + 1
    while True:
        while text[position] in " \t\r\n,":
            position += 1
        if text[position] == "]":
            return lines
        # (counted from the last item on: from the file's start each time was quadratic)
        line += text.count("\n", counted, position)
        counted = position
        lines.append(line)
        _, position = decoder.raw_decode(text, position)


def json_kind(value: Any) -> str:
    """The JSON name of ``value``'s type (object, array, string, number, boolean, null)."""
    if isinstance(value, Mapping):
        return "object"
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


FieldType = type | tuple[type, ...]
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object",
               Mapping: "an object", bool: "true or false"}  # fmt: skip


def check_fields(
    row: Mapping[str, Any],
    where: str,
    *,
    kind: str,
    required: Mapping[str, FieldType],
    optional: Mapping[str, FieldType] | None = None,
    noun: str = "row",
) -> None:
    """Check that ``row`` (a ``noun`` of format ``kind``) has each ``required`` field, and that
    each field it has is of its type.

    Raises:
        TaskFormatError: Naming ``where``, the field, what it must be, and what the row holds.
    """
    missing = [name for name in required if row.get(name) is None]
    if missing:
        fields = ", ".join(required)
        raise TaskFormatError(
            f"{where}: missing field{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}: a {kind} {noun} "
            f"needs {fields}; this {noun} has {sorted(row)}"
        )
    for name, wanted in {**required, **(optional or {})}.items():
        value = row.get(name)
        types = wanted if isinstance(wanted, tuple) else (wanted,)
        if value is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types)):
            raise TaskFormatError(
                f"{where}: field {name!r} must be {' or '.join(_TYPE_NAMES.get(t, t.__name__) for t in types)}, "
                f"got {json_kind(value)} {shown(value)}"
            )


def nearest_formats(fields: Iterable[str], detected_by: Mapping[str, Iterable[str]]) -> str:
    """A line naming the formats whose detecting fields (``detected_by[kind]``: names, or
    ``"a|b"`` where either does) ``fields`` lacks fewest of, holding one at least, and what each
    lacks; "" when the row holds none of any format's."""
    has = set(fields)
    lacking = {kind: [f.replace("|", " or ") for f in needed if not set(f.split("|")) & has]
               for kind, needed in ((k, tuple(v)) for k, v in detected_by.items())}  # fmt: skip
    near = {kind: lacks for kind, lacks in lacking.items() if len(lacks) < len(tuple(detected_by[kind]))}
    if not near:
        return ""
    fewest = min(map(len, near.values()))
    named = [f"{kind} (missing {', '.join(map(repr, lacks))})" for kind, lacks in near.items() if len(lacks) == fewest]
    return f"\nnearest format{'s' * (len(named) > 1)}: {'; '.join(named)}"


@contextmanager
def row_errors(where: str, expected: str, *, passing: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Errors reading one row, as a `TaskFormatError` naming ``where`` (``FILE:LINE`` or
    ``row N``) and, for a missing field, the field and ``expected`` (what the row needs).
    Exceptions of ``passing`` types go through as they are."""
    try:
        yield
    except passing:
        raise
    except TaskFormatError as e:
        if str(e).startswith(where):
            raise
        raise TaskFormatError(f"{where}: {e}") from e
    except KeyError as e:
        raise TaskFormatError(f"{where}: missing field {e}; expected {expected}") from e
    except (TypeError, ValueError, AttributeError) as e:
        raise TaskFormatError(
            f"{where}: a field has the wrong type or value ({type(e).__name__}: {e}); expected {expected}"
        ) from e
