"""WhyML tasks: the bundled modules, a folder of such files, and rows in memory.

A task file (see `program`) holds ``Defs`` (optional), ``Spec`` and ``Impl``. A task's
``metadata``: ``defs`` and ``spec`` (fixed), ``given`` (the ``Impl`` shown: the reference
with its invariants and variants removed), ``functions`` (the names ``Spec`` declares),
``description`` (the file's leading comment) and ``hints`` (how many clauses were removed).
``Task.reference`` is the reference ``Impl``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codegym.envs.whyml.program import modules, spec_functions, strip_hints

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, files_or_rows

DATA = Path(__file__).with_name("data")
BUNDLED = "codegym-whyml"
VERSION_NOTE = (
    "The verifier is Why3 1.5 with Z3, on each verification condition after split_vc. Use Why3's standard "
    "library (`use int.Int`, `use ref.Ref`, `use array.Array`, ...) and the task's `Defs`. Every `while` loop "
    "needs a `variant` (without one, Why3 reports an incompatible termination status)."
)
_DESCRIPTION = re.compile(r"^\(\*(.*?)\*\)", re.DOTALL)
_HINTS = re.compile(r"\b(?:invariant|variant)\s*\{")


def load_tasks(source: str | Path | TaskSet | Iterable[Mapping[str, Any]]) -> TaskSet:
    """Tasks from ``"codegym-whyml"`` (bundled), a folder of ``.mlw`` task files, or rows
    (``id``, ``program``: the file's text, optional ``description``)."""
    return files_or_rows(source, bundled=BUNDLED, data=DATA, pattern="*.mlw", file_task=module_task,
                         row_task=_row_task)  # fmt: skip


def _row_task(index: int, row: Mapping[str, Any]) -> Task:
    text = row.get("program")
    if not isinstance(text, str):
        raise TaskFormatError(f"row {index}: expected a 'program' (a WhyML file with Spec and Impl, a string)")
    return module_task(str(row.get("id", f"row-{index}")), text, str(row.get("description", "")))


def module_task(task_id: str, text: str, description: str = "") -> Task:
    """A task from a WhyML file with ``Spec`` and ``Impl`` (and optionally ``Defs``)."""
    found = modules(text)
    missing = [name for name in ("Spec", "Impl") if name not in found]
    if missing:
        raise TaskFormatError(
            f"{task_id}: no module {' or '.join(missing)} (each from `module <Name>` to a line `end`)"
        )
    spec, reference = found["Spec"], found["Impl"]
    if not description and (leading := _DESCRIPTION.match(text.lstrip())):
        description = " ".join(leading.group(1).split())
    given = strip_hints(reference)
    functions = spec_functions(spec)
    if not functions:
        raise TaskFormatError(f"{task_id}: module Spec declares no function (`val name ...`)")
    hints = len(_HINTS.findall(reference)) - len(_HINTS.findall(given))
    metadata = {"defs": found.get("Defs"), "spec": spec, "given": given, "functions": tuple(functions),
                "description": description, "hints": hints}  # fmt: skip
    difficulty = "easy" if hints <= 1 else "medium" if hints <= 3 else "hard"
    return Task(id=task_id, family="WhyML", prompt=_prompt(found.get("Defs"), spec, given, description), tests=(),
                language="whyml", difficulty=difficulty, reference=reference, metadata=metadata)  # fmt: skip


def _prompt(defs: str | None, spec: str, given: str, description: str) -> str:
    fixed = "\n\n".join(part for part in (defs, spec) if part)
    about = f"{description}\n\n" if description else ""
    return (
        f"{about}Make this WhyML module verify. Its specification is fixed:\n\n```whyml\n{fixed}\n```\n\n"
        "Your module `Impl` must define each function of `Spec` with a contract that refines it (the verifier "
        "checks `clone Spec with val f = Impl.f`). Here it is with its loop invariants and variants removed:\n\n"
        f"```whyml\n{given.strip()}\n```\n\n{VERSION_NOTE} `axiom`, `assume`, `val`, `any`, `clone`, `diverges` "
        "and other modules are refused.\n\nAnswer with the whole module `Impl`."
    )
