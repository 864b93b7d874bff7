"""Tasks judged by calling the function with arguments and comparing what it returns.

Each test is a call test: ``Task.metadata["calls"]`` maps its name to ``{"args": [...],
"expected": value}``; ``metadata["compare"]`` names the data set's rule (see
`codegym.envs.python_function.harness.matches`) and ``metadata["callable"]`` what is called
(``Solution.method`` for a LeetCode class: a fresh ``Solution()`` per call). The calls and
the comparison happen in the grader process; the submission only answers them.

- EvalPlus (HumanEval+, MBPP+ as released: ``base_input``, ``plus_input``, ``atol``): the
  expected outputs are the reference's. The env computes them once per task, running the
  reference through its executor in a sandbox like any submission (never in this process),
  the first time the task is checked or graded (``metadata["expected_from_reference"]``).
- LiveCodeBench functional rows: ``public_test_cases`` / ``private_test_cases`` (JSON, or
  LiveCodeBench's compressed form) of ``testtype: "functional"``, one JSON value per line of
  ``input`` for each argument; ``metadata`` names ``func_name``.
- APPS / TACO call-based rows: ``input_output`` with ``fn_name``, ``inputs`` (argument lists)
  and ``outputs``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from codegym.envs.python_function.tasks import FAMILY, Options, OtherFamily

from codegym.error import TaskFormatError
from codegym.task import Difficulty, Task, TestCase, inflate_test_cases

# Names a LeetCode-style judge has in scope before the solution's code (typing's List, ...).
LEETCODE_HEADER = """\
from typing import *
import bisect, collections, functools, heapq, itertools, math, re, string
from collections import Counter, defaultdict, deque
from functools import cache, lru_cache, reduce
from heapq import heapify, heappop, heappush
from math import gcd, inf, sqrt
"""
_DIFFICULTY: dict[str, Difficulty] = {
    "easy": "easy", "introductory": "easy",
    "medium": "medium", "interview": "medium",
    "hard": "hard", "competition": "hard", "medium_hard": "hard", "very_hard": "hard",
}  # fmt: skip


def evalplus_task(record: Mapping[str, Any], options: Options) -> Task:
    """An EvalPlus row: its inputs, with outputs its reference will give."""
    entry, prompt = str(record["entry_point"]), str(record["prompt"])
    canonical = str(record.get("canonical_solution") or "")
    inputs = [("base", args) for args in _json_list(record["base_input"], "base_input")]
    if options.evalplus_inputs == "plus":
        inputs += [("plus", args) for args in _json_list(record.get("plus_input") or [], "plus_input")]
    tests, calls = [], {}
    for index, (kind, args) in enumerate(inputs):
        if not isinstance(args, list):
            raise TaskFormatError(f"{kind}_input holds {type(args).__name__}s, not argument lists")
        name = f"{kind}_{index:03d}"
        tests.append(TestCase(name=name, code=f"{entry}({show_args(args)})", hidden=index >= options.public))
        calls[name] = {"args": args}
    metadata: dict[str, Any] = {
        "format": "evalplus",
        "entry_point": entry,
        "prefix": prompt,
        "test_prelude": "",
        "completion": canonical,
        "calls": calls,
        "compare": "close",
        "atol": float(record.get("atol") or 0.0),
        "expected_from_reference": True,
    }
    if not canonical:
        metadata["invalid"] = "an EvalPlus row needs its canonical_solution: its outputs are the expected ones"
    return Task(id=str(record["task_id"]), family=FAMILY, prompt=prompt, tests=tuple(tests),
                reference=prompt + canonical if canonical else None, metadata=metadata)  # fmt: skip


def livecodebench_task(record: Mapping[str, Any], options: Options) -> Task:
    """A LiveCodeBench functional (LeetCode) row: its public test cases shown, its private
    ones hidden (``public=`` does not apply: the row says which are public)."""
    task_id = f"lcb/{record.get('question_id') or record.get('question_title')}"
    shown = _lcb_cases(record["public_test_cases"])
    kept = _lcb_cases(record.get("private_test_cases") or "[]")
    if any(case.get("testtype") != "functional" for case in (*shown, *kept)):
        raise OtherFamily("stdin/stdout")
    details = record.get("metadata") or {}
    details = json.loads(details) if isinstance(details, str) else details
    function = details.get("func_name") if isinstance(details, Mapping) else None
    if not function:
        raise TaskFormatError("its metadata names no func_name: the function the tests call")
    starter = str(record.get("starter_code") or "")
    cases = [(case, False) for case in shown] + [(case, True) for case in kept]
    examples = [(_lcb_args(str(case["input"])), json.loads(str(case["output"])), hidden) for case, hidden in cases]
    question = str(record.get("question_content") or record.get("prompt") or "")
    return _call_task(task_id, question, starter, str(function), examples, compare="exact",
                      difficulty=_DIFFICULTY.get(str(record.get("difficulty")).lower()), reference=None,
                      format_name="livecodebench")  # fmt: skip


def apps_task(record: Mapping[str, Any], options: Options, *, index: int) -> Task:
    """An APPS or TACO call-based row (``fn_name`` in ``input_output``)."""
    io_ = record.get("input_output") or {}
    io_ = json.loads(io_) if isinstance(io_, str) else io_
    if not isinstance(io_, Mapping) or not io_.get("fn_name"):
        raise OtherFamily("stdin/stdout")
    inputs, outputs = list(io_.get("inputs") or []), list(io_.get("outputs") or [])
    if len(inputs) != len(outputs) or not inputs:
        raise TaskFormatError(f"input_output has {len(inputs)} inputs and {len(outputs)} outputs")
    examples = []
    for number, (given, returned) in enumerate(zip(inputs, outputs, strict=True)):
        args, expected = _apps_keys(given, returned)
        examples.append((args, expected, number >= options.public))
    task_id = f"apps/{record['problem_id']}" if record.get("problem_id") is not None else f"taco/{index}"
    solutions = record.get("solutions") or []
    solutions = json.loads(solutions) if isinstance(solutions, str) and solutions.strip() else solutions
    reference = str(solutions[0]) if isinstance(solutions, list) and solutions else None
    difficulty = _DIFFICULTY.get(str(record.get("difficulty")).lower())
    return _call_task(task_id, str(record.get("question") or ""), str(record.get("starter_code") or ""),
                      str(io_["fn_name"]), examples, compare="apps", difficulty=difficulty, reference=reference,
                      format_name="apps")  # fmt: skip


def _call_task(
    task_id: str,
    question: str,
    starter: str,
    function: str,
    examples: Sequence[tuple[list[Any], Any, bool]],
    *,
    compare: str,
    difficulty: Difficulty | None,
    reference: str | None,
    format_name: str,
) -> Task:
    method = "class Solution" in starter
    callable_ = f"Solution.{function}" if method else function
    call = f"Solution().{function}" if method else function
    tests, calls = [], {}
    for number, (args, expected, hidden) in enumerate(examples):
        name = f"test_{number:03d}"
        shown = f"{call}({show_args(args)})"
        wanted = f"== {expected!r}"
        if compare == "apps" and _listed(expected):  # (APPS takes the list's one item too)
            wanted = f"in ({expected!r}, {expected[0]!r})"
        tests.append(TestCase(name=name, code=f"assert {shown} {wanted}", hidden=hidden))
        calls[name] = {"args": args, "expected": expected}
    prompt = (
        question.rstrip()
        + "\n\n"
        + (
            f"Complete this starter code (in Python):\n```python\n{starter.rstrip()}\n```\n"
            if starter.strip()
            else f"Write a Python function `{function}`.\n"
        )
    )
    metadata = {
        "format": format_name,
        "entry_point": "Solution" if method else function,
        "callable": callable_,
        "prefix": LEETCODE_HEADER,
        "test_prelude": "",
        "stub": LEETCODE_HEADER + "\n" + starter,  # (an agent runs its public tests on it as it is)
        "calls": calls,
        "compare": compare,
    }
    return Task(id=task_id, family=FAMILY, prompt=prompt, tests=tuple(tests), difficulty=difficulty,
                reference=reference, metadata=metadata)  # fmt: skip


def show_args(args: Sequence[Any]) -> str:
    """The arguments as Python source (``float('inf')`` for what ``repr`` leaves as a name)."""
    return ", ".join(_source(value) for value in args)


def _source(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, (list, tuple)) and any(isinstance(v, float) and not math.isfinite(v) for v in value):
        items = ", ".join(map(_source, value))
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' * (len(value) == 1)})"
    return repr(value)


def _listed(value: Any) -> bool:
    return type(value) is list and bool(value)


def _json_list(value: Any, key: str) -> list[Any]:
    value = json.loads(value) if isinstance(value, str) else value
    if not isinstance(value, list):
        raise TaskFormatError(f"{key} must be a list of argument lists, got {type(value).__name__}")
    return value


def _lcb_args(text: str) -> list[Any]:
    """LiveCodeBench's functional input: one JSON value per line, one line per argument."""
    return [json.loads(line) for line in text.strip("\n").split("\n") if line.strip()]


def _lcb_cases(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = json.loads(_inflate(value))
    if not isinstance(value, list) or not all(isinstance(case, Mapping) for case in value):
        raise TaskFormatError("test cases must be a list of {input, output, testtype} objects")
    return value


def _inflate(value: str) -> str:
    """LiveCodeBench's compressed test cases, as JSON text."""
    try:
        return inflate_test_cases(value)
    except TaskFormatError as e:
        raise TaskFormatError(f"test cases are {e}") from e


def _apps_keys(args: Any, expected: Any) -> tuple[list[Any], Any]:
    """APPS's own undoing of JSON's string keys: a dict argument or output is keyed by int
    where its keys allow, and an output dict is wrapped in a list as APPS compares it."""
    if not isinstance(args, list):
        raise TaskFormatError(f"an input of input_output is {type(args).__name__}, not an argument list")
    if args and isinstance(args[0], dict):
        args = [_int_keys(args[0]), *args[1:]]
    if isinstance(expected, dict):
        expected = [_int_keys(expected)]
    elif _listed(expected) and isinstance(expected[0], dict):
        expected = [_int_keys(expected[0])]
    return args, expected


def _int_keys(mapping: dict[str, Any]) -> dict[Any, Any]:
    try:
        return {int(key): value for key, value in mapping.items()}
    except ValueError:
        return mapping
