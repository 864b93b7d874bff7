"""Dafny tasks: the bundled programs, DafnyBench's layout, the vericoding benchmark's files, and
rows in memory.

A task's ``metadata``:

- ``kind``: ``hints`` (the program with its proof hints removed; the agent puts them back),
  ``impl`` (the specification with empty bodies; the agent writes them) or ``spec`` (a
  method without its ``requires`` and ``ensures``; the agent writes them, scored by the
  held mutants they reject: `spec`);
- ``trusted``: the full program the env assembles every answer into (`program.assemble`);
- ``given``: what the agent is shown;
- ``open``: the methods and lemmas whose bodies (and header ``decreases``) are the agent's;
- ``description``: what the program does, in words (the comment block a bundled file starts
  with);
- ``hints``: how many hints were removed (``hints`` tasks), a difficulty for curricula;
- ``spec``: a ``spec`` task's hidden inputs and mutants (`spec.SpecCases.to_json`), read from
  ``<stem>.spec.json`` beside a program (made by `mutants`) or a row's ``spec_cases``.

``Task.reference`` is the full program where there is one (a vericoding file has none).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from codegym.envs.dafny.lexer import CLOSING, OPENING, LexError, Token, tokens, unclosed_comment
from codegym.envs.dafny.program import OPENABLE, declarations, empty_bodies, strip_hints, strip_spec
from codegym.envs.dafny.spec import SpecCases

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, as_rows

logger = logging.getLogger(__name__)

Kind = Literal["hints", "impl", "spec"]
KINDS: tuple[str, ...] = ("hints", "impl", "spec")
DATA = Path(__file__).with_name("data")
BUNDLED = "codegym-dafny"
VERSION_NOTE = (
    "The verifier is Dafny 2.3 (with Z3): write `function method` for a function that code calls, "
    "use `while` loops (there is no `for` loop), and `returns (r: T)` for a method's results."
)
HINT_WORDS = frozenset({"invariant", "decreases", "assert"})
NO_HINTS = "_no_hints"  # (DafnyBench's hints_removed/<stem>_no_hints.dfy)
_SECTION = re.compile(r"^[ \t]*//[ \t]*<(/?)vc-(preamble|helpers|spec|code|description)>[ \t]*$", re.MULTILINE)


def load_tasks(source: str | Path | TaskSet | Iterable[Mapping[str, Any]], kind: Kind = "hints") -> TaskSet:
    """Tasks of ``kind`` from ``source``: ``"codegym-dafny"`` (bundled), a folder (DafnyBench's
    layout, `load_dafnybench`: the clone, its ``DafnyBench/dataset`` or a folder holding
    ``ground_truth``; vericoding ``.dfy`` files; or plain verified ``.dfy`` programs, each
    with its ``<stem>.spec.json`` for ``spec``), or rows (``id``, ``program``, optional
    ``hints_removed``, ``description`` and ``spec_cases``).

    A file or row whose program cannot be made a task (it does not lex, has nothing to open,
    is not UTF-8) costs only its own task: it is kept with ``metadata["invalid"]`` saying
    why, its submissions are graded ``IE`` and ``codegym validate`` reports it."""
    if kind not in KINDS:
        raise ValueError(f"task_kind must be one of {KINDS}, got {kind!r}")
    if isinstance(source, TaskSet):
        return source
    if isinstance(source, str) and source == BUNDLED:
        return TaskSet(_from_folder(DATA / BUNDLED, kind, prefix=BUNDLED), name=f"{BUNDLED}-{kind}")
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_dir():
            raise TaskFormatError(f"{path}: expected {BUNDLED!r}, a folder of .dfy files (DafnyBench's ground_truth/ "
                                  "and hints_removed/, vericoding files, or verified programs) or rows")  # fmt: skip
        if (bench := dafnybench_root(path)) is not None:
            return TaskSet(load_dafnybench(bench, kind), name=_bench_name(bench))
        return TaskSet(_from_folder(path, kind, prefix=path.name), name=path.name)
    rows = as_rows(source)
    if rows is None:
        raise TaskFormatError(f"expected a task source (a name, a folder or rows), got {type(source).__name__}")
    return TaskSet(_reported("rows", [_from_row(row, kind, index) for index, row in enumerate(rows)]), name="rows")


def dafnybench_root(path: Path) -> Path | None:
    """The folder of DafnyBench's ``ground_truth`` and ``hints_removed`` under ``path``: ``path``
    itself, ``path/dataset`` (``path`` is the clone's ``DafnyBench`` folder) or
    ``path/DafnyBench/dataset`` (``path`` is the clone); None when there is none."""
    for root in (path, path / "dataset", path / "DafnyBench" / "dataset"):
        if (root / "ground_truth").is_dir():
            return root
    return None


def _bench_name(root: Path) -> str:
    """The prefix of a DafnyBench folder's task ids: ``DafnyBench`` for its ``dataset`` folder."""
    return root.parent.name if root.name == "dataset" and root.parent.name else root.name


def _reported(where: object, tasks: list[Task]) -> list[Task]:
    """``tasks``, after logging those that cannot be graded."""
    invalid = [f"{t.id}: {t.invalid}" for t in tasks if t.invalid]
    if invalid:
        logger.warning("%s: %d task(s) cannot be graded (IE):\n%s", where, len(invalid), "\n".join(invalid))
    return tasks


def _or_invalid(task_id: str, make: Callable[[], Task], *, kind: Kind, program: str = "") -> Task:
    """``make()``, or, when the program cannot be made a task, the task ``task_id`` kept
    with ``metadata["invalid"]`` saying why (one bad file costs only its own task)."""
    try:
        return make()
    except (TaskFormatError, LexError, OSError, ValueError) as e:
        reason = str(e).removeprefix(f"{task_id}: ")
    metadata = {"kind": kind, "trusted": program, "given": program, "open": (), "description": "", "hints": 0,
                "size": 0, "invalid": f"cannot be made a task: {reason}"}  # fmt: skip
    prompt = f"(task {task_id} cannot be graded: {reason})"
    return Task(id=task_id, family="Dafny", prompt=prompt, tests=(), language="dafny", reference=program or None,
                metadata=metadata)  # fmt: skip


def program_task(task_id: str, program: str, kind: Kind, *, description: str = "", given: str | None = None,
                 open_names: Iterable[str] | None = None, reference: bool = True,
                 spec: Mapping[str, Any] | None = None) -> Task:  # fmt: skip
    """A task from a verified ``program``: its open callables (``open_names``, or every method
    and lemma with a body), and what the agent sees (``given``, or the program with their
    hints removed, bodies emptied, or, for ``spec``, the target's requires and ensures
    removed; a ``spec`` task needs ``spec``, its `SpecCases` as JSON data). A comment that
    is never closed is cut from the end of ``program`` and ``given`` (Dafny reads it to the end
    of the file; the env appends to the program)."""
    try:
        program = _ended(program)
        parts = declarations(program)
    except LexError as e:
        raise TaskFormatError(f"{task_id}: the program does not lex: {e}") from None
    if (unclosed := _unclosed_bracket(program)) is not None:
        raise TaskFormatError(f"{task_id}: the {unclosed.text!r} at line {unclosed.line}, column {unclosed.column} is "
                              "never closed (is the file cut short?)")  # fmt: skip
    try:
        given = _ended(given) if given is not None else None
    except LexError as e:
        raise TaskFormatError(f"{task_id}: its hints-removed program does not lex: {e}") from None
    names = list(open_names) if open_names is not None else [
        d.name for d in parts if d.kind in OPENABLE and d.body is not None]  # fmt: skip
    if kind == "spec":
        if spec is None:
            raise _missing_spec(task_id)
        names = [SpecCases.from_json(spec, task_id).signature.method]
    if not names:
        raise TaskFormatError(f"{task_id}: no method or lemma with a body to open")
    if given is None:
        strip = {"hints": strip_hints, "impl": empty_bodies}.get(kind)
        given = strip(program, names) if strip is not None else strip_spec(program, names[0])
    hints = _hint_count(program) - _hint_count(given)
    clauses = _clause_count(program) - _clause_count(given)
    prompt = _prompt(kind, given, description, names)
    size = max(hints, len(program.splitlines()) // 10) if kind != "spec" else clauses
    metadata = {"kind": kind, "trusted": program, "given": given, "open": tuple(names), "description": description,
                "hints": hints, "size": size, **({"spec": dict(spec)} if kind == "spec" and spec else {})}  # fmt: skip
    difficulty = "easy" if size <= 3 else "medium" if size <= 6 else "hard"
    return Task(id=task_id, family="Dafny", prompt=prompt, tests=(), language="dafny", difficulty=difficulty,
                reference=program if reference else None, metadata=metadata)  # fmt: skip


def _unclosed_bracket(program: str) -> Token | None:
    """The first bracket of ``program`` that is never closed (None when all are)."""
    opened: list[Token] = []
    for token in tokens(program):
        if token.text in OPENING:
            opened.append(token)
        elif token.text in CLOSING and opened:
            opened.pop()
    return opened[0] if opened else None


def _ended(text: str) -> str:
    """``text`` without the comment that is never closed at its end, if any."""
    at = unclosed_comment(text)
    return text if at is None else text[:at].rstrip() + "\n"


def _missing_spec(task_id: str) -> TaskFormatError:
    make = "python -m codegym.envs.dafny.mutants <folder>"
    return TaskFormatError(f"{task_id}: a spec task needs its held inputs and mutants (<stem>.spec.json or a row's "
                           f"spec_cases): make them with `{make}`")  # fmt: skip


def _spec_of(path: Path, kind: Kind, task_id: str) -> Path | None:
    """The ``<stem>.spec.json`` beside program ``path`` for a ``spec`` task (raises when it is
    missing: a set made for spec tasks lacks it, not one file); None for other kinds."""
    if kind != "spec":
        return None
    cases = path.with_suffix(".spec.json")
    if not cases.is_file() and not _SECTION.search(_text_of(path)):
        raise _missing_spec(task_id)
    return cases


def _prompt(kind: Kind, given: str, description: str, names: list[str]) -> str:
    opened = ", ".join(f"`{n}`" for n in names)
    if kind == "hints":
        ask = (f"This Dafny program is correct, but its proof hints (loop invariants, assertions, `decreases` clauses) "
               f"were removed, so it does not verify. Add hints to {opened} so that it verifies. Signatures, "
               "requires/ensures/modifies/reads clauses and the functions and predicates the specification uses "
               "are fixed: the verifier checks the task's own copy of them.")  # fmt: skip
    elif kind == "spec":
        ask = (f"Write the `requires` and `ensures` clauses of {opened} (its body is fixed): the strongest "
               "specification its implementation meets. It scores only if the implementation verifies against it, "
               "then by the fraction of held mutants of the implementation that it rules out (a weak specification "
               "such as `ensures true` rules out none). You may add functions and predicates for it to use; every "
               "other declaration is fixed.")  # fmt: skip
    else:
        ask = (f"Write the bodies of {opened} so that this Dafny program verifies. You may add helper functions, "
               "predicates and lemmas. Signatures, requires/ensures/modifies/reads clauses and the functions and "
               "predicates the specification uses are fixed: the verifier checks the task's own copy.")  # fmt: skip
    about = f"{description.strip()}\n\n" if description.strip() else ""
    rules = "`assume`, `{:axiom}`, `{:verify false}`, bodiless lemmas and the like are refused."
    return f"{about}{ask}\n{VERSION_NOTE} {rules}\n\n```dafny\n{given.strip()}\n```\n\nAnswer with the whole program."


def _hint_count(program: str) -> int:
    return sum(t.kind == "name" and t.text in HINT_WORDS for t in tokens(program))


def _clause_count(program: str) -> int:
    return sum(t.kind == "name" and t.text in ("requires", "ensures") for t in tokens(program))


def _from_folder(folder: Path, kind: Kind, *, prefix: str) -> list[Task]:
    files = sorted(folder.glob("*.dfy"))
    if not files:
        raise TaskFormatError(f"{folder}: no .dfy files")
    specs = {path: _spec_of(path, kind, f"{prefix}/{path.stem}") for path in files}
    return _reported(folder, [_or_invalid(f"{prefix}/{p.stem}", lambda p=p: _from_file(p, kind, prefix, specs[p]),
                                          kind=kind, program=_text_of(p)) for p in files])  # fmt: skip


def _text_of(path: Path) -> str:
    """``path``'s text, or "" when it cannot be read as UTF-8 (its task says why)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError):
        return ""


def _read(path: Path) -> str:
    """``path``'s text, without a leading byte-order mark (Dafny skips it; in the text the env
    assembles it would be a stray character). Raises `TaskFormatError` when it is not
    readable UTF-8."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError) as e:
        raise TaskFormatError(f"{path.name} cannot be read as UTF-8 text ({e})") from e


def _from_file(path: Path, kind: Kind, prefix: str, cases: Path | None) -> Task:
    text = _read(path)
    if _SECTION.search(text):
        return vericoding_task(f"{prefix}/{path.stem}", text)
    spec = json.loads(_read(cases)) if cases is not None else None
    return program_task(f"{prefix}/{path.stem}", text, kind, description=_leading_comment(text), spec=spec)


def _leading_comment(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].strip())
    return " ".join(lines).strip()


def load_dafnybench(folder: str | Path, kind: Kind = "hints") -> list[Task]:
    """DafnyBench's layout (``DafnyBench/dataset`` in its repository): ``ground_truth/<stem>.dfy``
    (the verified program) and, for ``hints`` tasks, ``hints_removed/<stem>_no_hints.dfy``
    (DafnyBench's own hints-removed program: what the agent is shown; ``<stem>.dfy`` there is
    taken too). A stem without one gets its hints stripped here (`program.strip_hints`).
    A file that cannot be made a task costs only its own (``metadata["invalid"]``)."""
    root = Path(folder)
    truths = sorted((root / "ground_truth").glob("*.dfy"))
    if not truths:
        raise TaskFormatError(f"{root / 'ground_truth'}: no .dfy files")
    prefix = _bench_name(root)
    specs = {truth: _spec_of(truth, kind, f"{prefix}/{truth.stem}") for truth in truths}
    tasks = [_or_invalid(f"{prefix}/{t.stem}", lambda t=t: _bench_task(root, t, kind, prefix, specs[t]), kind=kind,
                         program=_text_of(t)) for t in truths]  # fmt: skip
    return _reported(root, tasks)


def hints_removed(root: Path, stem: str) -> Path | None:
    """DafnyBench's hints-removed file of ``stem``: ``hints_removed/<stem>_no_hints.dfy``, else
    ``hints_removed/<stem>.dfy``; None when there is neither."""
    found = (root / "hints_removed" / f"{name}.dfy" for name in (f"{stem}{NO_HINTS}", stem))
    return next((path for path in found if path.is_file()), None)


def _bench_task(root: Path, truth: Path, kind: Kind, prefix: str, cases: Path | None) -> Task:
    removed = hints_removed(root, truth.stem) if kind == "hints" else None
    given = _read(removed) if removed is not None else None
    spec = json.loads(_read(cases)) if cases is not None else None
    return program_task(f"{prefix}/{truth.stem}", _read(truth), kind, given=given, spec=spec)


def vericoding_task(task_id: str, text: str) -> Task:
    """An ``impl`` task from a vericoding benchmark file: its ``vc-preamble`` and ``vc-spec``
    sections are fixed; ``vc-helpers`` and ``vc-code`` are the agent's (the file's own code
    section is a placeholder, so there is no reference)."""
    sections = _sections(text, task_id)
    spec = sections.get("spec", "").rstrip()
    if not spec:
        raise TaskFormatError(f"{task_id}: no vc-spec section")
    program = f"{sections.get('preamble', '').rstrip()}\n\n{spec}\n{{\n}}\n"
    try:
        names = [d.name for d in declarations(spec) if d.kind in OPENABLE]
    except LexError as e:
        raise TaskFormatError(f"{task_id}: the spec does not lex: {e}") from None
    return program_task(task_id, program, "impl", description=sections.get("description", "").strip(" /\n"),
                        given=program, open_names=names, reference=False)  # fmt: skip


def _sections(text: str, task_id: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    opened: tuple[str, int] | None = None
    for match in _SECTION.finditer(text):
        closing, name = match.group(1) == "/", match.group(2)
        if not closing:
            opened = (name, match.end())
        elif opened is not None and opened[0] == name:
            sections[name] = text[opened[1] : match.start()].strip("\n")
            opened = None
        else:
            raise TaskFormatError(f"{task_id}: </vc-{name}> closes no open section")
    return sections


def _from_row(row: Mapping[str, Any], kind: Kind, index: int) -> Task:
    program = row.get("program")
    if not isinstance(program, str):
        raise TaskFormatError(f"row {index}: expected a 'program' (the verified Dafny program, a string)")
    task_id = str(row.get("id", f"row-{index}"))
    if kind == "spec" and row.get("spec_cases") is None:
        raise _missing_spec(task_id)
    return _or_invalid(task_id, lambda: _row_task(row, kind, task_id, program), kind=kind, program=program)


def _row_task(row: Mapping[str, Any], kind: Kind, task_id: str, program: str) -> Task:
    given = row.get("hints_removed") if kind == "hints" else None
    spec = row.get("spec_cases")
    if isinstance(spec, str):
        spec = json.loads(spec)
    return program_task(task_id, program, kind, description=str(row.get("description", "")),
                        given=given if isinstance(given, str) else None,
                        spec=spec if isinstance(spec, Mapping) else None)  # fmt: skip
