"""Triton kernel tasks: KernelBench problem files (the bundled set, or any folder of them).

A problem file defines ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``
at module level, KernelBench's layout. Problems written for codegym add ``cpu_shapes``, a
dict of module globals (sizes) that replace the task's own on the CPU, where kernels run in
Triton's interpreter; a problem without them (KernelBench's own, sized for a GPU) has its
size constants shrunk there instead (see `codegym.envs.triton_kernel.shrink`). A bundled
problem ``data/problems/NAME.py`` has its reference Triton solution in
``data/solutions/NAME.py``.
"""

from __future__ import annotations

import ast
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from codegym.error import TaskFormatError
from codegym.task import Difficulty, Task, TaskSet, TestCase, as_rows, check_fields, read_rows, row_errors

FAMILY = "TritonKernel"
DATA = Path(__file__).with_name("data")
BUILTIN_SETS = ("codegym-triton",)
REQUIRED = ("Model", "get_inputs", "get_init_inputs")
ROW_FILES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
ROW = "a KernelBench row: code (the problem file) and name; level, problem_id and reference optional"

PROMPT = """You are given a PyTorch model. Write a class ModelNew, with the same constructor arguments \
and forward signature, whose forward computes the same outputs with custom Triton kernels.

```python
{source}
```

Rules: ModelNew's forward must launch Triton kernels (@triton.jit) that do the arithmetic; outside \
a kernel PyTorch may only allocate, reshape, view and copy tensors. Return outputs of the same shape, \
dtype and memory layout as the model's, in fresh tensors: never return or write into an input, \
and never return a tensor an earlier call returned. Imports: torch, torch.nn, triton, \
triton.language, math, typing, functools, itertools, dataclasses; no reflection, no dunder \
attributes or methods other than __init__. \
Parameters are created after seeding the RNG exactly as Model creates them, so build the same \
layers in the same order. Outputs are compared with atol = rtol = 1e-4 (float32) or 1e-2 \
(float16, bfloat16) on several seeded inputs. Answer with the complete Python file.
"""


def load_tasks(
    source: str | Path | TaskSet | Iterable[Task] | Iterable[Mapping[str, Any]], *, trials: int = 3
) -> TaskSet:
    """A task set from ``"codegym-triton"`` (bundled), a folder of KernelBench problem files,
    KernelBench's rows in a JSON or JSONL file or in memory (a list of dicts or a
    ``datasets.Dataset`` with ``code`` and ``name``; ``level`` and ``problem_id`` name the task
    when present; an optional ``reference``), a `TaskSet` or an iterable of `Task`.

    Args:
        source: Where the problems are.
        trials: Seeded trials (fresh inputs each) per evaluation.

    Raises:
        TaskFormatError: A missing file or folder, a folder without problem files, or a row
            that cannot be read (the message names its file, line and field).
    """
    if isinstance(source, TaskSet):
        return source
    rows = as_rows(source)
    if rows is not None:
        made = (_row_task(f"row {number}", row, trials) for number, row in enumerate(rows))
        return TaskSet(made, name="kernelbench-rows")
    if isinstance(source, str) and source in BUILTIN_SETS:
        return TaskSet(bundled(trials=trials), name=source)
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_file() and path.name.endswith(ROW_FILES):
            made = (_row_task(where, row, trials) for where, row in read_rows(path, expected=ROW))
            return TaskSet(made, name=path.name.split(".")[0])
        if not path.is_dir():
            found = "a file, but not " + "/".join(ROW_FILES) if path.is_file() else "no such file or folder"
            raise TaskFormatError(
                f"Triton tasks come from {BUILTIN_SETS}, a folder of KernelBench problem files or a JSON/JSONL file "
                f"of KernelBench rows (code, name); {path} is neither ({found})"
            )
        return TaskSet(load_folder(path, trials=trials), name=path.name)
    return TaskSet(source, name="tasks")


def _row_task(where: str, row: Mapping[str, Any], trials: int) -> Task:
    """A KernelBench row (``code``: the problem file; ``name``; ``level``, ``problem_id``)."""
    if not row.get("code") or not row.get("name"):
        missing = [field for field in ("code", "name") if not row.get(field)]
        raise TaskFormatError(
            f"{where}: a KernelBench row needs 'code' (the problem file) and 'name'; missing {missing}, "
            f"found {sorted(row)}"
        )
    check_fields(row, where, kind="KernelBench", required={"code": str, "name": (str, int)},
                 optional={"level": (int, str), "problem_id": (int, str), "reference": str})  # fmt: skip
    name = str(row["name"]).removesuffix(".py")
    level = f"level{row['level']}/" if row.get("level") is not None else ""
    with row_errors(where, ROW):
        return make_task(f"kernelbench/{level}{name}", str(row["code"]), trials=trials, reference=row.get("reference"))


def bundled(*, trials: int = 3) -> list[Task]:
    """The original problems of this project, each with its reference Triton solution."""
    tasks = []
    for path in sorted((DATA / "problems").glob("*.py")):
        solution = DATA / "solutions" / path.name
        if not solution.exists():
            raise TaskFormatError(f"bundled problem {path.name} has no reference solution in data/solutions")
        tasks.append(
            make_task(f"codegym-triton/{path.stem}", path.read_text(), trials=trials, reference=solution.read_text())
        )
    return tasks


def load_folder(folder: Path, *, trials: int = 3) -> list[Task]:
    """Every KernelBench problem file directly in ``folder`` (others are skipped); an
    optional ``solutions/NAME.py`` beside them is the reference of ``NAME.py``."""
    tasks = []
    for path in sorted(folder.glob("*.py")):
        source = path.read_text()
        if not is_problem(source):
            continue
        solution = folder / "solutions" / path.name
        reference = solution.read_text() if solution.exists() else None
        tasks.append(make_task(f"{folder.name}/{path.stem}", source, trials=trials, reference=reference))
    if not tasks:
        raise TaskFormatError(f"{folder} holds no KernelBench problem file (defining {', '.join(REQUIRED)})")
    return tasks


def is_problem(source: str) -> bool:
    """Whether ``source`` defines Model, get_inputs and get_init_inputs at module level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    return all(name in names for name in REQUIRED)


def make_task(task_id: str, source: str, *, trials: int = 3, reference: str | None = None) -> Task:
    """A task from a problem file's source; trial seeds are fixed by the task id."""
    if not is_problem(source):
        raise TaskFormatError(f"{task_id}: a problem file must define {', '.join(REQUIRED)} at module level")
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    base = zlib.crc32(task_id.encode()) % 1_000_000
    tests = tuple(TestCase(name=f"trial_{i}", code=str(base + 7919 * i), hidden=False) for i in range(trials))
    return Task(
        id=task_id,
        family=FAMILY,
        prompt=PROMPT.format(source=source.strip()),
        tests=tests,
        difficulty=_difficulty(source),
        tags=_tags(source),
        reference=reference,
        metadata={"problem": source, "init_seed": base + 1},
    )


def _difficulty(source: str) -> Difficulty | None:
    for line in source.splitlines():
        if line.startswith("# difficulty:"):
            value = line.split(":", 1)[1].strip()
            if value in ("easy", "medium", "hard"):
                return cast(Difficulty, value)
    return None


def _tags(source: str) -> tuple[str, ...]:
    for line in source.splitlines():
        if line.startswith("# tags:"):
            return tuple(t.strip() for t in line.split(":", 1)[1].split(",") if t.strip())
    return ()
