"""A submission that does not compile (issue 45 item 19): the feedback quotes the offending line
with a caret under the column (a run of them under the span Python names), in each of the
ways a submission runs: the proxy, a BigCodeBench-style suite, an answer appended to a prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.python_function.env import PythonFunctionEnv
from codegym.envs.python_function.grader import quoted

import codegym
from codegym.executor.local import LocalExecutor
from codegym.grade import Grade, Status

from .test_formats import BIGCODEBENCH, HUMANEVAL

ENV = "codegym/PythonFunction-v0"
VOWELS = "codegym-py/001-count-vowel-runs"


def syntax_error(grade: Grade) -> str:
    assert grade.status is Status.CE, grade.feedback()
    (diagnostic,) = grade.diagnostics
    return diagnostic.message


@pytest.fixture(scope="module")
def env(executor: LocalExecutor) -> PythonFunctionEnv:
    return PythonFunctionEnv(executor=executor)


def test_the_line_is_quoted_with_a_caret_under_the_column(env: PythonFunctionEnv) -> None:
    grade, _ = env.evaluate(env.tasks.get(VOWELS), "def count_vowel_runs(s):\n    return len(s) +* 2\n")
    message = syntax_error(grade)
    assert message == "SyntaxError: invalid syntax\n        return len(s) +* 2\n                       ^"
    assert grade.message == "SyntaxError on line 2: invalid syntax" and grade.diagnostics[0].line == 2
    text = grade.feedback()
    assert "solution:2:20: error: SyntaxError: invalid syntax\n        return len(s) +* 2\n" in text
    assert "not run: the submission does not compile" in text and text.count("invalid syntax") == 2


def test_a_span_gets_a_run_of_carets_and_tabs_keep_them_aligned(env: PythonFunctionEnv) -> None:
    code = "def count_vowel_runs(s):\n\treturn sum(c for c in s, 1)\n"
    message = syntax_error(env.evaluate(env.tasks.get(VOWELS), code)[0])
    line, carets = message.splitlines()[1:]
    assert line == "            return sum(c for c in s, 1)"
    assert carets == " " * line.index("c for") + "^" * len("c for c in s")


def test_a_unittest_suite_quotes_the_line_too(tmp_path: Path, executor: LocalExecutor) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(BIGCODEBENCH) + "\n")
    code = "import random\ndef task_func(word, times, noise=False):\n    return word * times +\n"
    (grade,) = codegym.score(ENV, [("BigCodeBench/9000", code)], tasks=path, executor=executor)
    assert syntax_error(grade).endswith("\n        return word * times +\n                             ^")


def test_an_answer_appended_to_its_prompt_is_quoted_at_its_own_line(tmp_path: Path, executor: LocalExecutor) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(HUMANEVAL) + "\n")
    (grade,) = codegym.score(
        ENV, [("Homemade/0", "    total = a +\n    return total\n")], tasks=path, executor=executor
    )
    assert syntax_error(grade).endswith("\n        total = a +\n                   ^")
    assert grade.diagnostics[0].line == 1 and grade.message == "SyntaxError on line 1: invalid syntax"


def test_a_report_without_the_line_quotes_nothing() -> None:
    assert quoted({"text": "", "column": 3}) == ""
    assert quoted({"text": "x = (", "column": None}) == "\n    x = ("
    assert quoted({"text": "a = (1,", "column": 5, "end_column": 0}) == "\n    a = (1,\n        ^"
