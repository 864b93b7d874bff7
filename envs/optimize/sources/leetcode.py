"""LeetCode-style sets as function tasks: EffiBench (Huang et al. 2024), whose tests are
``assert solution.<method>(...) == ...`` lines, each a call with literal arguments; and Mercury
(Du et al. 2024), with accepted solutions and their runtimes, JSON test cases and a test case
generator, which becomes the task's."""

from __future__ import annotations

import ast
import json
import logging
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from codegym.envs.optimize.sources.rows import (
    CALLS_PER_TEST,
    Row,
    Rows,
    Scope,
    SkippedRow,
    difficulty,
    field,
    scoped,
    source_rows,
    task_set,
    unfenced,
)
from codegym.envs.optimize.tasks import call_lines, json_result

from codegym.error import TaskFormatError
from codegym.task import TaskSet, check_fields, shown

logger = logging.getLogger(__name__)

EFFIBENCH_EXPECTED = (
    "an EffiBench row: a JSON object with problem_idx, task_name, markdown_description (or description), "
    "canonical_solution, small_test_cases and test_case (assert solution.<method>(...) == ... lines), and "
    "optionally difficulty and completion (a program to speed up)"
)
MERCURY_EXPECTED = (
    "a Mercury row: a JSON object with slug_name, pretty_content (the description), entry_point, solutions "
    "([{solution, runtime}]), test_cases (a JSON list of {input: [arguments], expected}), and optionally "
    "generator_code (defining generate_test_case()), convert_offline, evaluate_offline, difficulty"
)
# EffiBench's harness: star imports, then the modules themselves (so `datetime` is the module).
_EFFIBENCH_STARS = ("typing", "bisect", "collections", "copy", "datetime", "heapq", "math", "re", "string",
                    "random", "itertools", "functools", "operator")  # fmt: skip
EFFIBENCH_SCOPE: Scope = (
    *((m, ("*",)) for m in _EFFIBENCH_STARS),
    *((m, None) for m in _EFFIBENCH_STARS if m != "typing"),
)
# Mercury's harness: modules, then named imports.
MERCURY_SCOPE: Scope = (
    *((m, None) for m in ("re", "itertools", "collections", "heapq", "bisect", "string", "sys", "functools", "math",
                          "copy")),
    ("math", ("floor", "ceil", "factorial", "sqrt", "inf")),
    ("sys", ("maxsize",)),
    ("bisect", ("bisect_left", "bisect_right", "insort")),
    ("itertools", ("chain", "combinations", "groupby", "pairwise", "product", "permutations", "zip_longest")),
    ("heapq", ("heappush", "heappushpop", "heappop", "heapify")),
    ("collections", ("Counter", "deque", "defaultdict", "OrderedDict")),
    ("typing", ("List", "Optional", "Tuple")),
    ("functools", ("lru_cache", "cache")),
)  # fmt: skip
GENERATOR_SCOPE: Scope = (*MERCURY_SCOPE, ("random", None))
# Wraps a Mercury generator (generate_test_case(): one call's arguments, drawn with the random
# module) as the Optimize family's generate(size, rng): ``size`` calls, seeded from ``rng``.
_GENERATE = """

def generate(size, rng):
    import random as _codegym_random
    _codegym_random.seed(rng.getrandbits(64))
    calls = []
    for _ in range(size):
        made = generate_test_case()
        calls.append([made] if ARITY == 1 else list(made))
    return calls
"""


# --- EffiBench ---------------------------------------------------------------------------------


def load_effibench(source: Rows, *, slow_field: str = "completion", bench_inputs: int = 2) -> TaskSet:
    """EffiBench's problems as Optimize function tasks.

    Reads, per row: ``problem_idx`` (the id, ``effibench/<problem_idx>``), ``task_name`` and
    ``markdown_description`` (else ``description``), the prompt; ``canonical_solution``;
    ``small_test_cases`` (shown) and ``test_case`` (hidden), EffiBench's test code;
    ``difficulty``; and ``slow_field`` (EffiBench's result files add a model's ``completion``
    to each row; a code fence around it is dropped). With a program in
    ``slow_field``, it is the reference to speed up and the canonical solution is ``fast``;
    without, the canonical solution (the leaderboard's best) is the reference, and no faster
    program is known.

    Each test statement ``assert solution.m(a, b) == r`` (also ``Solution().m(...)``,
    ``r == ...``) whose arguments and result are literals that JSON keeps as they are becomes
    a call of ``m`` with ``[a, b]``, expecting ``r``; ``m``, the method most tests call, is the
    entry point. Left out: other statements (``solution = Solution()`` aside), asserts of
    other methods or other comparisons, keyword or starred arguments, and values JSON would
    change (tuples, sets, dicts with non-string keys, linked lists and trees built by calls).
    A row with no hidden call left is left out with a warning. Hidden calls run
    `CALLS_PER_TEST` to a test; the ``bench_inputs`` largest tests are the benchmark.

    Results are compared as JSON text, stricter than Python's ``==`` (``2 == 2.0``): a
    reference whose result differs that way fails its test, and ``codegym validate`` says so.

    Args:
        source: The rows: a JSON/JSONL file (``.gz`` too), or rows in memory.
        slow_field: The field holding a program to speed up, where rows have one.
        bench_inputs: How many hidden tests (the largest) the cost is counted on.

    Raises:
        TaskFormatError: A row lacks a field or has one of the wrong type, or no row can be a
            task.
    """

    def convert(where: str, row: Row) -> dict[str, Any]:
        return _effibench_row(where, row, slow_field=slow_field, bench_inputs=bench_inputs)

    return task_set(source_rows(source, EFFIBENCH_EXPECTED, "source"), convert, name="effibench",
                     expected=EFFIBENCH_EXPECTED)  # fmt: skip


def _effibench_row(where: str, row: Row, *, slow_field: str, bench_inputs: int) -> dict[str, Any]:
    check_fields(row, where, kind="EffiBench",
                 required={"problem_idx": (int, str), "canonical_solution": str, "test_case": (str, list)},
                 optional={"task_name": str, "difficulty": str, "description": str,
                           "markdown_description": str, "small_test_cases": (str, list), slow_field: str})  # fmt: skip
    description = field(row, where, ("markdown_description", "description"), "the problem", EFFIBENCH_EXPECTED)
    public = _asserted_calls(row.get("small_test_cases") or "", f"{where}: small_test_cases")
    hidden = _asserted_calls(row["test_case"], f"{where}: test_case")
    entry = Counter(call.method for call in [*public, *hidden]).most_common(1)
    if not entry:
        raise SkippedRow(f"{where}: no test is an assert of a solution method's call on literal values")
    method = entry[0][0]
    public, hidden = [c for c in public if c.method == method], [c for c in hidden if c.method == method]
    if not hidden:
        raise SkippedRow(f"{where}: no test_case assert calls {method} with literal values")
    canonical = scoped(unfenced(row["canonical_solution"]), EFFIBENCH_SCOPE, f"{where}: canonical_solution")
    slow = unfenced(row.get(slow_field) or "")
    slow = scoped(slow, EFFIBENCH_SCOPE, f"{where}: {slow_field}") if slow.strip() else None
    title = str(row.get("task_name") or "")
    return {
        "id": f"effibench/{row['problem_idx']}",
        "language": "python",
        "entry_point": method,
        "prompt": f"{title}\n\n{description}".strip(),
        "reference": slow or canonical,
        **({"fast": canonical} if slow else {}),
        "tests": _call_tests(public or hidden[:1], hidden),
        "bench_inputs": bench_inputs,
        "difficulty": difficulty(row.get("difficulty")),
        "tags": ["effibench", "leetcode"],
    }


@dataclass(frozen=True)
class _Call:
    """One call of a function task: its method, arguments and expected result."""

    method: str
    args: list[Any]
    expected: Any


def _asserted_calls(code: str | list[Any], where: str) -> list[_Call]:
    """The calls that ``code``'s ``assert <call> == <literal>`` statements make (see
    `load_effibench` for what is left out)."""
    text = "\n".join(map(str, code)) if isinstance(code, list) else code
    try:
        statements = ast.parse(text).body
    except SyntaxError as e:
        raise SkippedRow(f"{where}: not Python ({e.msg}, line {e.lineno})") from e
    calls = [call for s in statements if (call := _assert_call(s)) is not None]
    dropped = sum(not _is_setup(s) for s in statements) - len(calls)
    if dropped:
        logger.debug("%s: %d statement(s) are not asserts of literal calls and were left out", where, dropped)
    return calls


def _assert_call(statement: ast.stmt) -> _Call | None:
    if not isinstance(statement, ast.Assert) or not isinstance(statement.test, ast.Compare):
        return None
    compare = statement.test
    if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq):
        return None
    for call, other in ((compare.left, compare.comparators[0]), (compare.comparators[0], compare.left)):
        method = _called_method(call)
        if method is None or not isinstance(call, ast.Call) or call.keywords:
            continue
        values = [_json_literal(arg) for arg in call.args]
        expected = _json_literal(other)
        if all(v is not _NOT_JSON for v in values) and expected is not _NOT_JSON:
            return _Call(method, values, expected)
    return None


def _called_method(node: ast.expr) -> str | None:
    """``m`` of ``solution.m(...)``, ``Solution().m(...)`` or ``m(...)``; else None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and (
        isinstance(func.value, ast.Name)
        or (isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) and not func.value.args)
    ):
        return func.attr
    return None


def _is_setup(statement: ast.stmt) -> bool:
    """``solution = Solution()``, imports and ``pass``: statements a test file may have that test nothing."""
    if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    return isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and not statement.value.args


_NOT_JSON = object()


def _json_literal(node: ast.expr) -> Any:
    """``node``'s value when it is a literal that JSON keeps as it is; else `_NOT_JSON`."""
    if isinstance(node, ast.Starred):
        return _NOT_JSON
    try:
        value = ast.literal_eval(node)
        kept = json.loads(json.dumps(value))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_JSON
    return value if kept == value and _same_types(kept, value) else _NOT_JSON


def _same_types(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` (equal) have the same types all the way down (``1 == 1.0 == True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return all(_same_types(a[k], b[k]) for k in a)
    return True


def _call_tests(public: list[_Call], hidden: list[_Call]) -> list[dict[str, Any]]:
    """Public calls one a test (as ``args``); hidden ones `CALLS_PER_TEST` a test (as text)."""
    tests = [{"name": f"example_{i}", "args": c.args, "expected": c.expected, "hidden": False}
             for i, c in enumerate(public)]  # fmt: skip
    for start in range(0, len(hidden), CALLS_PER_TEST):
        chunk = hidden[start : start + CALLS_PER_TEST]
        tests.append({
            "name": f"hidden_{start // CALLS_PER_TEST}",
            "input": call_lines(c.args for c in chunk),
            "expected": "".join(json_result(c.expected) for c in chunk),
            "hidden": True,
        })  # fmt: skip
    return tests


# --- Mercury -----------------------------------------------------------------------------------


def load_mercury(source: Rows, *, public: int = 1, bench_size: int = 10, bench_inputs: int = 2) -> TaskSet:
    """Mercury's problems as Optimize function tasks.

    Reads, per row: ``slug_name`` (the id, ``mercury/<slug_name>``), ``pretty_content`` (the
    description: its first string), ``difficulty``, ``entry_point`` (the ``Solution`` method),
    ``solutions`` (``[{solution, runtime}]``, runtimes as ``"52ms"`` or numbers),
    ``test_cases`` (JSON text or a list of ``{input: [arguments], expected}``),
    ``generator_code``, ``convert_offline`` and ``evaluate_offline``. Ignored: ``prompt``
    (the starter code), ``convert_online``, ``id``, ``meta_info``.

    The reference is the slowest solution by its runtime, ``fast`` the fastest (without a
    runtime for every solution: the first is the reference, and no faster one is known).
    Solutions that do not parse, lack the entry point or call ``print`` (Mercury's harness
    silences it; here it would corrupt the output) are not used. The first ``public`` test
    cases are shown; the rest are hidden, `CALLS_PER_TEST` calls a test. A generator
    defining ``generate_test_case()`` (one call's arguments, drawn with ``random``) becomes
    the task's: ``bench_size`` calls a benchmark input, seeded per input; without one, the
    ``bench_inputs`` largest hidden tests are the benchmark.

    Left out with a warning: rows whose ``convert_offline`` changes the arguments (linked
    lists, trees: not JSON), whose ``evaluate_offline`` judges results other than by
    ``outputs == expected`` (any order, in-place results), with no usable solution, or with
    no hidden test and no generator.

    Args:
        source: The rows: a JSON/JSONL file (``.gz`` too), or rows in memory (the Hub's
            ``Elfsong/Mercury`` as a ``datasets.Dataset``).
        public: How many test cases the agent sees.
        bench_size: Calls per benchmark input, for rows with a generator.
        bench_inputs: How many benchmark inputs the cost is counted on.

    Raises:
        TaskFormatError: A row lacks a field or has one of the wrong type, its test cases are
            not JSON, or no row can be a task.
    """

    def convert(where: str, row: Row) -> dict[str, Any]:
        return _mercury_row(where, row, public=public, bench_size=bench_size, bench_inputs=bench_inputs)

    return task_set(source_rows(source, MERCURY_EXPECTED, "source"), convert, name="mercury", expected=MERCURY_EXPECTED)


def _mercury_row(where: str, row: Row, *, public: int, bench_size: int, bench_inputs: int) -> dict[str, Any]:
    check_fields(row, where, kind="Mercury",
                 required={"slug_name": str, "entry_point": str, "solutions": list, "test_cases": (str, list)},
                 optional={"pretty_content": (list, str), "difficulty": str, "generator_code": str,
                           "convert_offline": str, "evaluate_offline": str})  # fmt: skip
    entry = row["entry_point"]
    if not _passes_through(row.get("convert_offline") or ""):
        raise SkippedRow(f"{where}: its convert_offline changes the arguments (linked lists, trees), which JSON "
                         "cannot hold")  # fmt: skip
    if not _equality(row.get("evaluate_offline") or ""):
        raise SkippedRow(f"{where}: its evaluate_offline judges results other than by outputs == expected")
    slowest, fastest = _mercury_solutions(row["solutions"], entry, where)
    cases = _mercury_cases(row["test_cases"], f"{where}: test_cases")
    generator = _mercury_generator(row.get("generator_code") or "", _arity(slowest, entry))
    if len(cases) <= public and generator is None:
        raise SkippedRow(f"{where}: {len(cases)} test case(s) and no generator: nothing hidden to benchmark on")
    content = row.get("pretty_content") or ""
    return {
        "id": f"mercury/{row['slug_name']}",
        "language": "python",
        "entry_point": entry,
        "prompt": str(content[0] if isinstance(content, list) and content else content or entry),
        "reference": slowest,
        **({"fast": fastest} if fastest else {}),
        "tests": _call_tests(cases[:public], cases[public:]),
        **({"generator": generator, "bench_size": bench_size} if generator else {}),
        "bench_inputs": bench_inputs,
        "difficulty": difficulty(row.get("difficulty")),
        "tags": ["mercury", "leetcode"],
    }


def _mercury_solutions(solutions: list[Any], entry: str, where: str) -> tuple[str, str | None]:
    """The slowest usable solution (with its imports) and the fastest, when known to be faster."""
    usable: list[tuple[float | None, str]] = []  # (runtime, code)
    for i, solution in enumerate(solutions):
        if not isinstance(solution, Mapping) or not isinstance(solution.get("solution"), str):
            raise TaskFormatError(f"{where}: solutions[{i}] must be an object with solution (its code) and runtime, "
                                  f"got {shown(solution)}")  # fmt: skip
        code = solution["solution"]
        if _usable(code, entry):
            usable.append((_runtime(solution.get("runtime")), code))
    if not usable:
        raise SkippedRow(f"{where}: no solution parses, defines {entry} and prints nothing")
    if any(runtime is None for runtime, _ in usable):
        return scoped(usable[0][1], MERCURY_SCOPE, where), None
    ranked = sorted(usable, key=lambda s: -(s[0] or 0.0))  # (stable: the first of equal runtimes leads)
    (slow_time, slowest), (fast_time, fastest) = ranked[0], ranked[-1]
    faster = fast_time is not None and slow_time is not None and fast_time < slow_time
    return scoped(slowest, MERCURY_SCOPE, where), (scoped(fastest, MERCURY_SCOPE, where) if faster else None)


def _usable(code: str, entry: str) -> bool:
    try:
        module = ast.parse(code)
    except SyntaxError:
        return False
    prints = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
                 for n in ast.walk(module))  # fmt: skip
    return not prints and _entry_def(module, entry) is not None


def _runtime(value: Any) -> float | None:
    """A runtime as Mercury gives it (``"52ms"``, or a number); None when unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ms)?\s*", str(value or ""))
    return float(match[1]) if match else None


def _mercury_cases(value: str | list[Any], where: str) -> list[_Call]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: not JSON ({e.msg} at column {e.colno}); expected a JSON list of "
                                  "{input: [arguments], expected}") from e  # fmt: skip
    if not isinstance(value, list):
        raise TaskFormatError(f"{where}: expected a list of {{input: [arguments], expected}}, got {shown(value)}")
    cases = []
    for i, case in enumerate(value):
        if not isinstance(case, Mapping) or not isinstance(case.get("input"), list) or "expected" not in case:
            raise TaskFormatError(f"{where}[{i}]: expected {{input: [arguments], expected}}, got {shown(case)}")
        cases.append(_Call("", list(case["input"]), case["expected"]))
    return cases


def _mercury_generator(code: str, arity: int) -> str | None:
    """Mercury's ``generate_test_case()`` as ``generate(size, rng)``; None without one."""
    try:
        module = ast.parse(code)
    except SyntaxError:
        return None
    if not any(isinstance(n, ast.FunctionDef) and n.name == "generate_test_case" for n in module.body):
        return None
    return scoped(code, GENERATOR_SCOPE, "generator_code") + _GENERATE.replace("ARITY", str(arity))


def _arity(source: str, entry: str) -> int:
    """How many arguments ``entry`` takes (``self`` aside)."""
    found = _entry_def(ast.parse(source), entry)
    assert found is not None  # (a usable solution defines it)
    function, method = found
    return len(function.args.posonlyargs) + len(function.args.args) - int(method)


def _entry_def(module: ast.Module, entry: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    """``entry``'s definition in ``module`` (a method of ``Solution``, or a function), and
    whether it is a method."""
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == "Solution":
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == entry:
                    return item, True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry:
            return node, False
    return None


def _passes_through(code: str) -> bool:
    """Whether ``code`` (Mercury's ``convert_offline``) is empty or returns its argument as is."""
    function = _only_function(code)
    if function is None:
        return not code.strip()
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    params = [a.arg for a in function.args.args]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and isinstance(body[0].value, ast.Name)
        and params[:1] == [body[0].value.id]
    )


def _equality(code: str) -> bool:
    """Whether ``code`` (Mercury's ``evaluate_offline(inputs, outputs, expected)``) is empty
    or judges by ``outputs == expected`` alone: no calls, and no other comparison."""
    function = _only_function(code)
    if function is None:
        return not code.strip()
    params = [a.arg for a in function.args.args]
    if len(params) < 3 or any(isinstance(n, ast.Call) for n in ast.walk(function)):
        return False
    compares = [n for n in ast.walk(function) if isinstance(n, ast.Compare)]
    return bool(compares) and all(
        len(c.ops) == 1
        and isinstance(c.ops[0], ast.Eq)
        and {_name(c.left), _name(c.comparators[0])} == {params[1], params[2]}
        for c in compares
    )


def _only_function(code: str) -> ast.FunctionDef | None:
    try:
        functions = [n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return None
    return functions[0] if len(functions) == 1 else None


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None
