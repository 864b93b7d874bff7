"""What a model reads of a failing stdin test (issue 45 item 19): the test labelled ``input:``,
blocks of several lines fenced, and whitespace made visible where it is the only difference."""

from __future__ import annotations

from codegym.envs.stdio_program.env import StdioProgramEnv

from codegym.executor import Executor
from codegym.grade import Grade, Status, TestOutcome, visible_whitespace
from codegym.task import Task, TaskSet, TestCase

GRID = Task(
    id="stdio/grid-sum",
    family="StdioProgram",
    prompt="Read n, then n lines of two integers; print each line's sum, then the total, each on a line.",
    tests=(TestCase("test_00", "2\n1 2\n3 4\n", hidden=False, expected="3\n7\ntotal  10\n"),),
    reference=(
        "import sys\nlines = sys.stdin.read().split('\\n')\nsums = [sum(map(int, line.split())) for line in "
        "lines[1 : int(lines[0]) + 1]]\nprint(*sums, sep='\\n')\nprint('total ', sum(sums))\n"
    ),
    language="python",
    metadata={"checker": {"kind": "exact"}},
)


def feedback_of(executor: Executor, program: str) -> str:
    env = StdioProgramEnv(TaskSet([GRID]), executor=executor)
    grade, _ = env.evaluate(GRID, program)
    assert grade.status is Status.WA, grade.feedback()
    return grade.feedback()


def test_the_reference_passes(executor: Executor) -> None:
    env = StdioProgramEnv(TaskSet([GRID]), executor=executor)
    assert env.evaluate(GRID, GRID.reference or "")[0].status is Status.OK


def test_a_failing_test_shows_its_input_fenced_and_its_outputs(executor: Executor) -> None:
    text = feedback_of(executor, "print(3)\nprint(8)\nprint('total  11')\n")
    block = "  input:\n  ```\n  2\n  1 2\n  3 4\n  ```\n  expected:\n  ```\n  3\n  7\n  total  10\n  ```\n"
    assert block in text, text
    assert "  got:\n  ```\n  3\n  8\n  total  11\n  ```" in text and "call:" not in text


def test_outputs_that_differ_only_in_whitespace_show_it(executor: Executor) -> None:
    text = feedback_of(executor, "print(3)\nprint(7)\nprint('total 10')\n")
    assert "  expected:\n  ```\n  3\u23ce\n  7\u23ce\n  total\u00b7\u00b710\u23ce\n  ```" in text, text
    assert "  got:\n  ```\n  3\u23ce\n  7\u23ce\n  total\u00b710\u23ce\n  ```" in text
    assert "differ only in whitespace" in text


def test_whitespace_is_drawn_only_where_it_is_the_difference() -> None:
    assert visible_whitespace("a \tb\r\n") == "a\u00b7\u2192b\u240d\u23ce\n"
    same_words = TestOutcome("t", False, expected="1 2\n", got="1 2 \n")
    other_words = TestOutcome("u", False, expected="1 2\n", got="1 3 \n")
    text = Grade(Status.WA, (same_words, other_words)).feedback()
    assert "  expected: 1\u00b72\u23ce\n  got: 1\u00b72\u00b7\u23ce\n  (expected and got differ only" in text, text
    assert "  expected: 1 2\n  got: 1 3 \n" in text
