"""Verilog task sets: the bundled ``codegym-verilog`` problems and VerilogEval v2 folders.

A bundled problem (``data/problems.json``, built by ``data/build_problems.py``) is a spec, a
reference ``RefModule``, its ports, a stimulus description (`Stimulus`) and a difficulty; its
testbench is generated here (`testbench.build`) with the problem's own seed, so it is the same
on every load.

A VerilogEval v2 folder holds, per problem, ``ProbNNN_name_prompt.txt`` (the spec),
``ProbNNN_name_ref.sv`` (module ``RefModule``) and ``ProbNNN_name_test.sv`` (module ``tb``
instantiating ``RefModule`` and ``TopModule`` and printing ``Mismatches: N in M samples``).
The loader keeps that testbench but tags every line its ``tb`` prints with the run's nonce
(`testbench.tag_external`), adds ``\\`undef`` lines so none of its macros reaches the design,
and records the modules it declares so the design may not redefine them; the sample count a
complete run must report is measured once per task from the reference (see `VerilogEnv`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codegym.envs.verilog import testbench
from codegym.envs.verilog.gate import Port, declared_modules, module_ports

from codegym.error import TaskFormatError
from codegym.task import Task, TaskSet, TestCase, as_rows, check_fields, read_rows, row_errors

logger = logging.getLogger(__name__)

FAMILY = "Verilog"
DATA = Path(__file__).with_name("data")
BUNDLED = "codegym-verilog"
_PROMPT_SUFFIX = "_prompt.txt"


RECORD_FIELDS = ("id", "spec", "reference", "ports", "stimulus")
RECORD_TYPES: dict[str, type | tuple[type, ...]] = {"id": (str, int), "spec": str, "reference": str, "ports": list,
                                                    "stimulus": Mapping}  # fmt: skip
RECORD_FILES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
RECORD = f"a Verilog record: {', '.join(RECORD_FIELDS)} (the bundled set's format, envs/verilog/data/problems.json)"


def load_tasks(source: str | Path | TaskSet | Iterable[Task] | Iterable[Mapping[str, Any]]) -> TaskSet:
    """``"codegym-verilog"``, a VerilogEval v2 folder, a JSON or JSONL file of records in the
    bundled set's format, such records in memory (a list of dicts or a ``datasets.Dataset``), a
    `TaskSet`, or tasks.

    Raises:
        TaskFormatError: A missing file or folder, a folder not in the VerilogEval layout, or a
            record that cannot be read (the message names its file, line and field).
    """
    if isinstance(source, TaskSet):
        return source
    rows = as_rows(source)
    if rows is not None:
        return TaskSet((_record_task(f"row {number}", row) for number, row in enumerate(rows)), name="verilog-rows")
    if source == BUNDLED:
        records = json.loads((DATA / "problems.json").read_text(encoding="utf-8"))
        return TaskSet((bundled_task(r) for r in records), name=BUNDLED)
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_file() and path.name.endswith(RECORD_FILES):
            records = read_rows(path, expected=RECORD)
            return TaskSet((_record_task(where, row) for where, row in records), name=path.name.split(".")[0])
        if not path.is_dir():
            found = "a file, but not " + "/".join(RECORD_FILES) if path.is_file() else "no such file or folder"
            raise TaskFormatError(
                f"tasks={str(source)!r} is neither {BUNDLED!r} nor a VerilogEval folder ({found}); expected "
                f"{BUNDLED!r}, a folder in the VerilogEval v2 layout, or a JSON/JSONL file of records "
                f"({', '.join(RECORD_FIELDS)})"
            )
        return TaskSet(verilog_eval_tasks(path), name=path.name)
    return TaskSet(source)  # type: ignore[arg-type]


def _record_task(where: str, record: Mapping[str, Any]) -> Task:
    missing = [name for name in RECORD_FIELDS if name not in record]
    if missing:
        raise TaskFormatError(
            f"{where}: a Verilog record needs {list(RECORD_FIELDS)} (the bundled set's format, "
            f"envs/verilog/data/problems.json); missing {missing}, found {sorted(record)}"
        )
    check_fields(record, where, kind="Verilog record", required=RECORD_TYPES,
                 optional={"difficulty": str, "tags": list, "title": str})  # fmt: skip
    for i, port in enumerate(record["ports"]):
        if not isinstance(port, Mapping) or not {"name", "direction", "width"} <= set(port):
            raise TaskFormatError(
                f"{where}: field 'ports': item {i} must be an object with name, direction and width; got {port!r:.80}"
            )
    with row_errors(where, RECORD):
        return bundled_task(record)


def interface_block(ports: Iterable[Port]) -> str:
    """The ``TopModule`` header a design must implement."""
    body = ",\n".join(f"  {p.render()}" for p in ports)
    return f"module TopModule (\n{body}\n);"


def _prompt(spec: str, ports: tuple[Port, ...]) -> str:
    return (
        f"{spec.rstrip()}\n\nImplement it in Verilog or SystemVerilog as a module with exactly this "
        f"interface (declare the ports as wire, reg or logic as you need):\n\n{interface_block(ports)}\n\n"
        "Write synthesizable RTL: system tasks that end the simulation or touch files, hierarchical "
        "references and `include are rejected.\n"
    )


def as_top(reference: str) -> str:
    """A reference ``RefModule`` renamed ``TopModule``: a known-correct submission."""
    return re.sub(r"\bmodule\s+RefModule\b", "module TopModule", reference)


def ports_from(records: Iterable[Mapping[str, Any]]) -> tuple[Port, ...]:
    return tuple(Port(str(r["name"]), str(r["direction"]), int(r["width"])) for r in records)


def bundled_task(record: Mapping[str, Any]) -> Task:
    """One bundled problem with its generated testbench."""
    ports = ports_from(record["ports"])
    stimulus = testbench.Stimulus.from_dict(record["stimulus"])
    bench = testbench.build(record["reference"], ports, stimulus)
    tests = tuple(TestCase(phase, "", hidden=False, tier=phase) for phase in testbench.PHASES if bench.expected[phase])
    return Task(
        id=str(record["id"]),
        family=FAMILY,
        prompt=_prompt(record["spec"], ports),
        tests=tests,
        language="verilog",
        difficulty=record.get("difficulty"),
        tags=tuple(record.get("tags", ())),
        reference=as_top(record["reference"]),
        metadata={
            "title": record.get("title", record["id"]),
            "ports": ports,
            "bench": bench,
            "harness": bench.source,
            "harness_names": frozenset({"tb", "RefModule"}),
            "expected": dict(bench.expected),
        },
    )


def verilog_eval_tasks(folder: Path) -> list[Task]:
    """Every problem of a VerilogEval v2 folder, in file-name order."""
    prompts = sorted(folder.glob(f"*{_PROMPT_SUFFIX}"))
    if not prompts:
        raise TaskFormatError(f"{folder} has no *{_PROMPT_SUFFIX} files (VerilogEval v2 layout)")
    tasks = [verilog_eval_task(path) for path in prompts]
    invalid = [f"{t.id}: {t.invalid}" for t in tasks if t.invalid]
    if invalid:
        logger.warning("%s: %d problem(s) cannot be graded (IE):\n%s", folder, len(invalid), "\n".join(invalid))
    return tasks


def verilog_eval_task(prompt_path: Path) -> Task:
    stem = prompt_path.name[: -len(_PROMPT_SUFFIX)]
    ref_path, test_path = prompt_path.with_name(f"{stem}_ref.sv"), prompt_path.with_name(f"{stem}_test.sv")
    for path in (ref_path, test_path):
        if not path.is_file():
            raise TaskFormatError(f"problem {stem}: {path.name} is missing")
    reference, test = ref_path.read_text(encoding="utf-8"), test_path.read_text(encoding="utf-8")
    spec = prompt_path.read_text(encoding="utf-8")
    try:
        ports = module_ports(reference, "RefModule")
        tagged = testbench.tag_external(test)
    except ValueError as e:  # kept, to be reported: one unusable problem must not cost the folder
        tests = (TestCase("all", "", hidden=False, tier="all"),)
        return Task(id=f"verilog-eval/{stem}", family=FAMILY, prompt=spec, tests=tests, language="verilog",
                    reference=as_top(reference), metadata={"title": stem, "invalid": str(e)})  # fmt: skip
    harness_ref = _private_helpers(reference)
    harness = f"{tagged}\n{harness_ref}\n{testbench.undefine_macros(test + reference)}"
    prompt = spec if "TopModule" in spec else _prompt(spec, ports)
    return Task(
        id=f"verilog-eval/{stem}",
        family=FAMILY,
        prompt=prompt,
        tests=(TestCase("all", "", hidden=False, tier="all"),),
        language="verilog",
        reference=as_top(reference),
        metadata={
            "title": stem,
            "ports": ports,
            "bench": None,
            "harness": harness,
            "harness_names": declared_modules(test) | declared_modules(harness_ref) | {"tb", "RefModule"},
            "expected": None,  # measured from the reference
        },
    )


def _private_helpers(reference: str) -> str:
    """The reference with its helper modules renamed ``RefModule__<name>``, so a design may
    use the same helper names without clashing."""
    for name in sorted(declared_modules(reference) - {"RefModule"}):
        reference = re.sub(rf"\b{re.escape(name)}\b", f"RefModule__{name}", reference)
    return reference
