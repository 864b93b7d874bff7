"""Public data sets as researchers have them: a small file (or rows in memory) per format,
with the public field names and content of our own, each graded right and wrong through
``gym.make`` and ``codegym.score``."""

from __future__ import annotations

import base64
import builtins
import json
import logging
import pickle
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.python_function.harness import matches
from codegym.envs.python_function.tasks import detect_format, load_tasks

import codegym
from codegym.error import TaskFormatError
from codegym.executor.local import LocalExecutor
from codegym.grade import Status

ENV = "codegym/PythonFunction-v0"

# --- rows, one or more per format ---------------------------------------------------------

HUMANEVAL = {
    "task_id": "Homemade/0",
    "prompt": 'def add(a: int, b: int) -> int:\n    """Return a + b.\n    >>> add(1, 2)\n    3\n    """\n',
    "canonical_solution": "    return a + b\n",
    "test": "METADATA = {'author': 'us'}\n\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n"
    "    x = 10\n    assert candidate(x, -4) == 6\n    assert candidate(0, 0) == 0\n",
    "entry_point": "add",
}
# A check that is no list of asserts: graded whole, as one test.
HUMANEVAL_WHOLE = {
    "task_id": "Homemade/1",
    "prompt": 'def double(n: int) -> int:\n    """Twice n."""\n',
    "canonical_solution": "    return 2 * n\n",
    "test": "def check(candidate):\n    for n in range(-3, 4):\n        if candidate(n) != n + n:\n"
    "            raise AssertionError(f'double({n})')\n",
    "entry_point": "double",
}
# HumanEval-X: no entry_point, and a check(...) call of its own at the end.
HUMANEVAL_X = {
    "task_id": "Python/7",
    "prompt": 'def last(xs):\n    """The last item of xs."""\n',
    "declaration": "def last(xs):\n",
    "canonical_solution": "    return xs[-1]\n",
    "test": "def check(candidate):\n    assert candidate([1, 2]) == 2\n    assert candidate('ab') == 'b'\n\ncheck(last)\n",
    "example_test": "",
}
# HumanEval+ as published on the Hub: EvalPlus's numpy-based loop over inputs and results.
EVALPLUS_LOOP_TEST = """\
import numpy as np

def is_floats(x) -> bool:
    return isinstance(x, float)

def assertion(out, exp, atol):
    exact_match = out == exp
    if atol == 0 and is_floats(exp):
        atol = 1e-6
    if not exact_match and atol != 0:
        assert np.allclose(out, exp, rtol=1e-07, atol=atol)
    else:
        assert exact_match

def check(candidate):
    inputs = [[[1.0, 2.0]], [[0.1, 0.2, 0.3]], [[5.0]]]
    results = [1.5, 0.2, 5.0]
    for i, (inp, exp) in enumerate(zip(inputs, results)):
        assertion(candidate(*inp), exp, 0)
"""
HUMANEVAL_PLUS = {
    "task_id": "HomemadePlus/0",
    "prompt": 'def mean(xs: list) -> float:\n    """The mean of xs."""\n',
    "canonical_solution": "    return sum(xs) / len(xs)\n",
    "test": EVALPLUS_LOOP_TEST,
    "entry_point": "mean",
}
# A HumanEval+ check that is not the plain loop: graded whole, numpy's assertion swapped for ours.
HUMANEVAL_PLUS_WHOLE = {
    **HUMANEVAL_PLUS,
    "task_id": "HomemadePlus/1",
    "test": EVALPLUS_LOOP_TEST.replace("results = [1.5, 0.2, 5.0]", "results = None").replace(
        "zip(inputs, results)", "zip(inputs, [sum(*i) / len(*i) for i in inputs])"
    ),
}
MULTIPL_E = {
    "name": "HumanEval_3_negate",
    "language": "py",
    "prompt": 'def negate(n: int) -> int:\n    """-n."""\n',
    "doctests": "keep",
    "original": "x",
    "prompt_terminology": "reworded",
    "tests": "def check(candidate):\n    assert candidate(3) == -3\n    assert candidate(-2) == 2\n\n"
    "def test_check():\n    check(negate)\n\ntest_check()\n",
    "stop_tokens": ["\ndef"],
}
EVALPLUS = {
    "task_id": "Mine/1",
    "prompt": 'def scale(xs: list, k: float) -> list:\n    """Each of xs times k."""\n',
    "entry_point": "scale",
    "canonical_solution": "    import builtins\n    builtins.__dict__.setdefault('_codegym_reference_ran_here', True)\n"
    "    return [x * k for x in xs]\n",
    "base_input": [[[1, 2], 3], [[0.1, 0.2], 3.0]],
    "plus_input": [[[], 2], [[1e9, -1e9], 0.5]],
    "atol": 0,
    "contract": "",
}
MBPP = {
    "task_id": 7,
    "text": "Write a function to find the area of a circle of radius r.",
    "code": "import math\ndef circle_area(r):\n    return math.pi * r * r",
    "test_list": ["assert isclose(circle_area(1), 3.14159, abs_tol=1e-4)", "assert circle_area(0) == 0"],
    "test_setup_code": "from math import isclose",
    "challenge_test_list": ["assert isclose(circle_area(-2), 12.56637, abs_tol=1e-4)"],
}
MBPP_SANITIZED = {
    "source_file": "ours.py",
    "task_id": 8,
    "prompt": "Write a function that counts the even numbers of a list.",
    "code": "def count_even(xs):\n    return sum(1 for x in xs if x % 2 == 0)",
    "test_imports": ["import collections"],
    "test_list": ["assert count_even([1, 2, 4]) == 2", "assert count_even([]) == 0"],
}
STARTER = "class Solution:\n    def bestPair(self, nums: List[int], k: int) -> int:\n        "


def _compressed(cases: list[dict[str, str]]) -> str:
    """LiveCodeBench's compressed form: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


LIVECODEBENCH = {
    "question_title": "best pair",
    "question_content": "Return the largest sum of two elements of nums, plus k.",
    "platform": "leetcode",
    "question_id": "9001",
    "contest_id": "weekly-1",
    "contest_date": "2024-01-01T00:00:00",
    "starter_code": STARTER,
    "difficulty": "easy",
    "public_test_cases": json.dumps([{"input": "[1, 5, 3]\n2", "output": "10", "testtype": "functional"}]),
    "private_test_cases": _compressed(
        [
            {"input": "[7, 7]\n0", "output": "14", "testtype": "functional"},
            {"input": "[-1, -2, -3]\n1", "output": "-2", "testtype": "functional"},
        ]
    ),
    "metadata": json.dumps({"func_name": "bestPair"}),
}
LIVECODEBENCH_STDIN = {
    **LIVECODEBENCH,
    "question_id": "9002",
    "starter_code": "",
    "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
    "private_test_cases": "[]",
    "metadata": "{}",
}
APPS = {
    "problem_id": 4321,
    "question": "Count the vowels of a word.",
    "solutions": json.dumps(["def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n"]),
    "input_output": json.dumps(
        {"fn_name": "count_vowels", "inputs": [["hello"], ["sky"], ["aeiou"]], "outputs": [[2], [0], 5]}
    ),
    "difficulty": "introductory",
    "url": "https://example.invalid/4321",
    "starter_code": "def count_vowels(s):\n\t",
}
TACO = {  # TACO: no problem_id; a LeetCode class; outputs a JSON list where the solution returns a tuple
    "question": "Split n into its quotient and remainder by d.",
    "solutions": ["class Solution:\n    def split(self, n, d):\n        return divmod(n, d)\n"],
    "starter_code": "class Solution:\n    def split(self, n, d):\n        ",
    "input_output": {"fn_name": "split", "inputs": [[7, 2], [9, 3]], "outputs": [[[3, 1]], [[3, 0]]]},
    "difficulty": "EASY",
    "raw_tags": "[]",
    "name": None,
    "source": "ours",
    "tags": [],
    "skill_types": [],
    "url": "",
    "Expected Auxiliary Space": None,
    "time_limit": None,
    "date": None,
    "picture_num": None,
    "memory_limit": None,
    "Expected Time Complexity": None,
}
APPS_STDIN = {**APPS, "problem_id": 4322, "input_output": json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]})}
BIGCODEBENCH_TEST = """\
import random
import unittest
from unittest.mock import patch


class TestCases(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.word = "abc"

    def test_case_1(self):
        self.assertEqual(task_func(self.word, 2), "abcabc")

    def test_case_2(self):
        with patch("random.choice", return_value="z"):
            self.assertEqual(task_func("q", 1, noise=True), "qz")

    def test_case_3(self):
        with self.assertRaises(ValueError):
            task_func("x", -1)
"""
BIGCODEBENCH = {
    "task_id": "BigCodeBench/9000",
    "complete_prompt": "import random\n\ndef task_func(word, times, noise=False):\n"
    '    """Repeat word times times; with noise, add a random letter. Raise ValueError when times < 0.\n\n'
    '    Requirements:\n    - random\n    """\n',
    "instruct_prompt": "Repeat a word, maybe with noise. You should write self-contained code starting with:\n"
    "```\nimport random\ndef task_func(word, times, noise=False):\n```",
    "canonical_solution": "    if times < 0:\n        raise ValueError('times < 0')\n"
    "    return word * times + (random.choice('xyz') if noise else '')\n",
    "code_prompt": "import random\ndef task_func(word, times, noise=False):\n",
    "test": BIGCODEBENCH_TEST,
    "entry_point": "task_func",
    "doc_struct": "{}",
    "libs": "['random']",
}
BIGCODEBENCH_NUMPY = {
    **BIGCODEBENCH,
    "task_id": "BigCodeBench/9001",
    "complete_prompt": 'import numpy as np\n\ndef task_func(n):\n    """An array of n zeros."""\n',
    "canonical_solution": "    return np.zeros(n)\n",
    "code_prompt": "import numpy as np\ndef task_func(n):\n",
    "test": "import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_zeros(self):\n"
    "        self.assertEqual(len(task_func(3)), 3)\n",
    "libs": "['numpy']",
}

WRONG_ADD = "def add(a, b):\n    return a - b\n"
# format -> (rows, task id, a right answer, a wrong answer)
CASES: dict[str, tuple[list[dict[str, Any]], str, str, str]] = {
    "humaneval": ([HUMANEVAL], "Homemade/0", "    return a + b\n", WRONG_ADD),
    "humaneval-whole": ([HUMANEVAL_WHOLE], "Homemade/1", "def double(n):\n    return n * 2\n", "    return n * n\n"),
    "humaneval-x": ([HUMANEVAL_X], "Python/7", "    return xs[-1]\n", "    return xs[0]\n"),
    "humaneval-plus": ([HUMANEVAL_PLUS], "HomemadePlus/0", "    return sum(xs) / len(xs) + 1e-9\n",
                       "    return sum(xs) / len(xs) + 1e-3\n"),
    "humaneval-plus-whole": ([HUMANEVAL_PLUS_WHOLE], "HomemadePlus/1", "    return sum(xs) / len(xs) + 1e-9\n",
                             "    return sum(xs) / len(xs) + 1e-3\n"),
    "multipl-e": ([MULTIPL_E], "HumanEval_3_negate", "    return -n\n", "    return n\n"),
    "evalplus": ([EVALPLUS], "Mine/1", "def scale(xs, k):\n    return [k * x for x in xs]\n",
                 "def scale(xs, k):\n    return [round(x * k, 3) + 0.001 for x in xs]\n"),
    "mbpp": ([MBPP], "mbpp/7", "from math import pi\ndef circle_area(r):\n    return pi * r ** 2\n",
             "def circle_area(r):\n    return 3 * r * r\n"),
    "mbpp-sanitized": ([MBPP_SANITIZED], "mbpp/8", "def count_even(xs):\n    return len([x for x in xs if x % 2 == 0])\n",
                       "def count_even(xs):\n    return len(xs)\n"),
    "livecodebench": ([LIVECODEBENCH, LIVECODEBENCH_STDIN], "lcb/9001",
                      "```python\nclass Solution:\n    def bestPair(self, nums: List[int], k: int) -> int:\n"
                      "        a, b = heapq.nlargest(2, nums)\n        return a + b + k\n```",
                      "class Solution:\n    def bestPair(self, nums: List[int], k: int) -> int:\n"
                      "        return max(nums) * 2 + k\n"),
    "apps": ([APPS, APPS_STDIN], "apps/4321", "def count_vowels(s):\n    return len([c for c in s if c in 'aeiou'])\n",
             "def count_vowels(s):\n    return len(s)\n"),
    "taco": ([TACO], "taco/0", "class Solution:\n    def split(self, n, d):\n        return (n // d, n % d)\n",
             "class Solution:\n    def split(self, n, d):\n        return (n % d, n // d)\n"),
    "bigcodebench": ([BIGCODEBENCH], "BigCodeBench/9000",
                     "import random\ndef task_func(word, times, noise=False):\n    if times < 0:\n"
                     "        raise ValueError(times)\n    return word * times + (random.choice('ab') if noise else '')\n",
                     "import random\ndef task_func(word, times, noise=False):\n    return word * max(times, 0)\n"),
}  # fmt: skip


def write(tmp_path: Path, rows: list[Mapping[str, Any]], name: str = "tasks.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_each_format_grades_a_right_and_a_wrong_solution(case: str, tmp_path: Path, executor: LocalExecutor) -> None:
    rows, task_id, right, wrong = CASES[case]
    path = write(tmp_path, rows)
    grades = codegym.score(ENV, [(task_id, right), (task_id, wrong)], tasks=path, executor=executor)
    assert [g.status for g in grades] == [Status.OK, Status.WA], [g.feedback() for g in grades]
    assert grades[0].pass_rate == 1.0 and len(grades[0].tests) >= 1
    env = gym.make(ENV, tasks=path, executor=executor)
    try:
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(right)
        assert (reward, terminated, info["status"]) == (1.0, True, "OK")
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(wrong)
        assert (reward, info["status"]) == (0.0, "WA")
    finally:
        env.close()


def test_formats_are_told_from_the_fields() -> None:
    expected = {
        "humaneval": HUMANEVAL, "multipl-e": MULTIPL_E, "evalplus": EVALPLUS, "mbpp": MBPP_SANITIZED,
        "livecodebench": LIVECODEBENCH, "apps": TACO, "bigcodebench": BIGCODEBENCH,
    }  # fmt: skip
    assert {name: detect_format(row) for name, row in expected.items()} == {name: name for name in expected}
    with pytest.raises(TaskFormatError, match=r"(?s)row 0: expected MBPP fields .*humaneval: task_id, prompt, test"):
        load_tasks([{"question": "?", "answer": 42}])
    with pytest.raises(TaskFormatError, match=r"found \['answer', 'question'\]"):
        load_tasks([{"question": "?", "answer": 42}])


def test_humaneval_rows_are_split_per_assert_where_they_can_be(tmp_path: Path) -> None:
    tasks = load_tasks(write(tmp_path, [HUMANEVAL, HUMANEVAL_WHOLE, HUMANEVAL_X, HUMANEVAL_PLUS, MULTIPL_E]))
    split = tasks.get("Homemade/0")
    assert [t.name for t in split.tests] == ["test_00", "test_01", "test_02"]
    assert split.tests[1].setup == "x = 10" and not split.tests[0].hidden and split.tests[2].hidden
    assert split.reference == HUMANEVAL["prompt"] + HUMANEVAL["canonical_solution"]
    assert [t.code for t in tasks.get("Homemade/1").tests] == ["check(candidate)"]
    humaneval_x = tasks.get("Python/7")
    assert humaneval_x.metadata["entry_point"] == "last" and "check(last)" not in humaneval_x.metadata["test_prelude"]
    plus = tasks.get("HomemadePlus/0")
    assert len(plus.tests) == 3 and plus.metadata["compare"] == "close"
    assert plus.metadata["calls"]["test_001"] == {"args": [[0.1, 0.2, 0.3]], "expected": 0.2}
    assert tasks.get("HumanEval_3_negate").metadata["entry_point"] == "negate"
    whole = load_tasks([HUMANEVAL_PLUS_WHOLE]).get("HomemadePlus/1")
    assert [t.code for t in whole.tests] == ["check(candidate)"]
    assert (
        "numpy" not in whole.metadata["test_prelude"] and "harness import assertion" in whole.metadata["test_prelude"]
    )


def test_evalplus_expected_outputs_come_from_the_reference_in_the_sandbox(
    tmp_path: Path, executor: LocalExecutor
) -> None:
    env = gym.make(ENV, tasks=write(tmp_path, [EVALPLUS]), executor=executor)
    try:
        core = env.unwrapped
        env.reset(options={"task_id": "Mine/1"})
        near = "def scale(xs, k):\n    return [x * k + (1e-9 if isinstance(k, float) else 0) for x in xs]\n"
        _, reward, _, _, info = env.step(near)  # (floats within EvalPlus's 1e-6; ints exact)
        assert reward == 1.0, info["grade"].feedback()
        assert core._outputs["Mine/1"] == {"base_000": [3, 6], "base_001": [0.1 * 3.0, 0.2 * 3.0],
                                           "plus_002": [], "plus_003": [5e8, -5e8]}  # fmt: skip
        assert not hasattr(builtins, "_codegym_reference_ran_here")  # (it ran in the sandbox, not here)
    finally:
        env.close()
    base = load_tasks(write(tmp_path, [EVALPLUS]), evalplus_inputs="base").get("Mine/1")
    assert [t.name for t in base.tests] == ["base_000", "base_001"]


def test_evalplus_reference_that_raises_makes_the_task_invalid(tmp_path: Path, executor: LocalExecutor) -> None:
    broken = {**EVALPLUS, "canonical_solution": "    return xs[0] * k\n"}
    (grade,) = codegym.score(ENV, [("Mine/1", "def scale(xs, k):\n    return xs\n")], tasks=write(tmp_path, [broken]),
                             executor=executor)  # fmt: skip
    assert grade.status is Status.IE and "its reference raised on the input of plus_002" in grade.message


def test_matches_follows_each_data_sets_rule() -> None:
    assert matches((1, 2), [1, 2], "exact") and not matches([1, 2], [2, 1], "exact")
    assert matches(5, [5], "apps") and matches([(1, 2)], [[[1, 2]]], "apps") and not matches(5, [6], "apps")
    assert matches(0.1 + 0.2, 0.3, "close") and not matches(0.31, 0.3, "close")
    assert matches([1.0, 2.0000001], (1.0, 2.0), "close", atol=1e-3) and not matches(1, 2, "close")
    assert not matches(True, [True, False], "close")


def test_mbpp_setup_code_runs_before_the_tests_and_challenge_tests_are_optional(
    tmp_path: Path, executor: LocalExecutor
) -> None:
    path = write(tmp_path, [MBPP])
    abs_area = "import math\ndef circle_area(r):\n    return math.pi * r * r if r >= 0 else 0\n"
    assert [t.name for t in load_tasks(path).get("mbpp/7").tests] == ["test_00", "test_01"]
    (without,) = codegym.score(ENV, [("mbpp/7", abs_area)], tasks=path, executor=executor)
    (with_challenge,) = codegym.score(ENV, [("mbpp/7", abs_area)], tasks=path, mbpp_challenge=True, executor=executor)
    assert without.status is Status.OK
    assert with_challenge.status is Status.WA and [t.name for t in with_challenge.tests if not t.passed] == [
        "challenge_00"
    ]
    assert all(t.hidden for t in with_challenge.tests if t.name.startswith("challenge"))


def test_mbpp_plus_rows_add_their_inputs_as_hidden_call_tests() -> None:
    test = EVALPLUS_LOOP_TEST.split("def check", maxsplit=1)[0] + (
        "inputs = [[[2, 4]], [[1]]]\nresults = [2, 0]\nfor i, (inp, exp) in enumerate(zip(inputs, results)):\n"
        "    assertion(count_even(*inp), exp, 0)\n"
    )
    (task,) = load_tasks([{**MBPP_SANITIZED, "test": test}])
    assert [(t.name, t.hidden) for t in task.tests] == [
        ("test_00", False), ("test_01", True), ("plus_000", True), ("plus_001", True)
    ]  # fmt: skip
    assert task.metadata["calls"]["plus_000"] == {"args": [[2, 4]], "expected": 2}


def test_stdin_rows_of_mixed_sets_are_left_out_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        tasks = load_tasks([APPS, APPS_STDIN, LIVECODEBENCH_STDIN])
    assert tasks.ids == ("apps/4321",)
    assert "left out 2 stdin/stdout problem(s)" in caplog.text
    with pytest.raises(TaskFormatError, match="every row is a stdin/stdout problem"):
        load_tasks([APPS_STDIN])


def test_leetcode_rows_call_a_fresh_solution_and_hide_private_cases(tmp_path: Path, executor: LocalExecutor) -> None:
    (task,) = load_tasks([LIVECODEBENCH])
    assert task.metadata["callable"] == "Solution.bestPair"
    assert [(t.name, t.hidden) for t in task.tests] == [("test_000", False), ("test_001", True), ("test_002", True)]
    stateful = (
        "class Solution:\n    calls = 0\n    def __init__(self):\n        self.seen = []\n"
        "    def bestPair(self, nums, k):\n        self.seen.append(1)\n"
        "        return sorted(nums)[-1] + sorted(nums)[-2] + k + len(self.seen) - 1\n"
    )
    (grade,) = codegym.score(ENV, [("lcb/9001", stateful)], tasks=[LIVECODEBENCH], executor=executor)
    assert grade.status is Status.OK
    public = next(t for t in grade.tests if not t.hidden)
    assert public.call == "Solution().bestPair([1, 5, 3], 2)" and public.expected == "10"


def test_bigcodebench_runs_its_unittest_suite_per_method(tmp_path: Path, executor: LocalExecutor) -> None:
    path = write(tmp_path, [BIGCODEBENCH])
    (task,) = load_tasks(path)
    assert [t.name for t in task.tests] == ["test_case_1", "test_case_2", "test_case_3"]
    assert task.prompt == BIGCODEBENCH["complete_prompt"] and task.metadata["needs"] == ()
    instruct = load_tasks(path, bigcodebench_split="instruct").get("BigCodeBench/9000")
    assert instruct.prompt == BIGCODEBENCH["instruct_prompt"]
    half = "import random\ndef task_func(word, times, noise=False):\n    return word * times\n"
    reference, wrong = codegym.score(ENV, [("BigCodeBench/9000", task.reference or ""), ("BigCodeBench/9000", half)],
                                     tasks=path, executor=executor)  # fmt: skip
    assert reference.status is Status.OK, reference.feedback()
    assert wrong.status is Status.WA
    assert [t.passed for t in wrong.tests] == [True, False, False]
    assert "AssertionError" in (wrong.tests[1].trace or "")


@pytest.mark.parametrize(
    ("attack", "status"),
    [
        ("import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n", Status.HACK),
        ("import os, struct, json\nm = json.dumps({'kind': 'ready'}).encode()\n"
         "os.write(4, struct.pack('!I', len(m)) + m)\n", Status.HACK),
        ("import os\ndef task_func(word, times, noise=False):\n    os._exit(0)\n", Status.HACK),
        ("import sys\ndef task_func(word, times, noise=False):\n    sys.exit(0)\n", Status.WA),
        ("import unittest\ndef task_func(word, times, noise=False):\n    raise unittest.SkipTest('no')\n", Status.HACK),
        # Reaching the runner's report (it holds the nonce) through the collector or the frames:
        ("import gc\ndef task_func(word, times, noise=False):\n"
         "    return [o for o in gc.get_objects() if type(o).__name__ == 'Report']\n", Status.HACK),
        ("import sys\ndef task_func(word, times, noise=False):\n    return sys._getframe(1).f_back.f_locals\n",
         Status.HACK),
        # An answer that agrees with whatever it is compared with:
        ("class Yes(str):\n    def __eq__(self, other):\n        return True\n"
         "def task_func(word, times, noise=False):\n    return Yes()\n", Status.HACK),
    ],
)  # fmt: skip
def test_bigcodebench_suite_resists_the_obvious_tricks(
    attack: str, status: Status, tmp_path: Path, executor: LocalExecutor
) -> None:
    solution = (
        attack if "def task_func" in attack else attack + "def task_func(word, times, noise=False):\n    return 1\n"
    )
    (grade,) = codegym.score(ENV, [("BigCodeBench/9000", solution)], tasks=write(tmp_path, [BIGCODEBENCH]),
                             executor=executor)  # fmt: skip
    assert grade.status is status, grade.message


def test_bigcodebench_task_whose_libraries_the_sandbox_lacks_is_invalid(
    tmp_path: Path, executor: LocalExecutor
) -> None:
    path = write(tmp_path, [BIGCODEBENCH, BIGCODEBENCH_NUMPY])
    (grade,) = codegym.score(ENV, [("BigCodeBench/9001", BIGCODEBENCH_NUMPY["canonical_solution"])], tasks=path,
                             executor=executor)  # fmt: skip
    assert grade.status is Status.IE and "cannot import: numpy" in grade.message
    report = codegym.validate(ENV, runs=1, tasks=path, executor=executor)
    assert report.valid_ids == ("BigCodeBench/9000",)
    assert "cannot import: numpy" in report.quarantined["BigCodeBench/9001"]


def test_rows_in_memory_are_tasks(executor: LocalExecutor) -> None:
    rows = [HUMANEVAL, APPS, BIGCODEBENCH]
    tasks = load_tasks(rows)
    assert tasks.ids == ("Homemade/0", "apps/4321", "BigCodeBench/9000") and tasks.name == "apps+bigcodebench+humaneval"
    grades = codegym.score(ENV, [("Homemade/0", "    return a + b\n"), ("apps/4321", "def count_vowels(s):\n    return 0\n")],
                           tasks=rows, executor=executor)  # fmt: skip
    assert [g.status for g in grades] == [Status.OK, Status.WA]


def test_a_datasets_dataset_is_rows(tmp_path: Path, executor: LocalExecutor) -> None:
    datasets = pytest.importorskip("datasets", reason="the datasets package is not installed")
    dataset = datasets.Dataset.from_list([MULTIPL_E, {**MULTIPL_E, "name": "HumanEval_4_negate"}])
    env = gym.make(ENV, tasks=dataset, executor=executor)
    try:
        env.reset(options={"task_id": "HumanEval_4_negate"})
        _, reward, _, _, info = env.step("    return -n\n")
        assert reward == 1.0, info["grade"].feedback()
    finally:
        env.close()
    parquet = tmp_path / "humaneval.parquet"
    datasets.Dataset.from_list([HUMANEVAL]).to_parquet(str(parquet))
    assert load_tasks(parquet).ids == ("Homemade/0",)
    streamed = datasets.Dataset.from_list([HUMANEVAL]).to_iterable_dataset()
    assert load_tasks(streamed).ids == ("Homemade/0",)


def test_json_array_files_and_malformed_rows(tmp_path: Path) -> None:
    array = tmp_path / "tasks.json"
    array.write_text(json.dumps([HUMANEVAL, MBPP]))
    assert load_tasks(array).ids == ("Homemade/0", "mbpp/7")
    no_check = {**HUMANEVAL, "test": "def helper():\n    pass\n"}
    with pytest.raises(TaskFormatError, match=r"tasks.jsonl:1: a humaneval row .*defines no check"):
        load_tasks(write(tmp_path, [no_check]))
    with pytest.raises(TaskFormatError, match=r"row 0: a livecodebench row .*func_name"):
        load_tasks([{**LIVECODEBENCH, "metadata": "{}"}])


def _call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


@pytest.mark.parametrize(
    ("rows", "task_id", "solution", "passed"),
    [
        ([BIGCODEBENCH], "BigCodeBench/9000", BIGCODEBENCH["complete_prompt"] + BIGCODEBENCH["canonical_solution"],
         "OK"),
        ([LIVECODEBENCH], "lcb/9001", None, "1 of 1 public tests passed"),
    ],
)  # fmt: skip
def test_agent_mode_runs_the_public_tests_and_never_holds_hidden_ones(
    rows: list[dict[str, Any]], task_id: str, solution: str | None, passed: str, executor: LocalExecutor
) -> None:
    env = gym.make(ENV, tasks=rows, mode="agent", executor=executor)
    try:
        env.reset(options={"task_id": task_id})
        task = env.unwrapped.task  # type: ignore[attr-defined]
        stub = env.unwrapped.agent_setup(task).files["solution.py"].decode()  # type: ignore[attr-defined]
        solution = solution or stub + "a, b = sorted(nums)[-2:]\n        return a + b + k\n"
        env.step(_call("str_replace_editor", command="create", path="solution.py", file_text=solution))
        _, _, _, _, info = env.step(_call("bash", command="./run_tests"))
        result = info["tool_results"][0]
        assert result["exit_code"] == 0 and passed in result["content"], result["content"]
        hidden = [t.name for t in task.hidden_tests] if task.metadata.get("suite") else ["[7, 7]", "[-1, -2, -3]"]
        _, _, _, _, info = env.step(_call("bash", command="cat tests/test_public.py"))
        assert not any(needle in info["tool_results"][0]["content"] for needle in hidden)
        _, reward, terminated, _, info = env.step(_call("submit"))
        assert (reward, terminated, info["status"]) == (1.0, True, "OK"), info["grade"].feedback()
    finally:
        env.close()


def test_bigcodebench_garbage_on_the_report_channel_is_the_submissions_fault(
    tmp_path: Path, executor: LocalExecutor
) -> None:
    deep = "import os, struct\nm = b'[' * 60000\nos.write(4, struct.pack('!I', len(m)) + m)\n"
    solution = deep + "def task_func(word, times, noise=False):\n    return word * times\n"
    path = write(tmp_path, [BIGCODEBENCH])
    grades = codegym.score(ENV, [("BigCodeBench/9000", solution), ("BigCodeBench/9000", CASES["bigcodebench"][2])],
                           tasks=path, executor=executor)  # fmt: skip
    assert [g.status for g in grades] == [Status.HACK, Status.OK], grades[0].message
