"""What PyContracts' feedback shows (issue 45 items 7 and 19): never the hidden contract's text
(on about a fifth of the bundled tasks one postcondition is the whole answer), counts that
agree, each diagnostic once, and a misnamed function said as such."""

from __future__ import annotations

import re

import pytest
from codegym.envs.pycontracts import grader, report
from codegym.envs.pycontracts.assembly import Budget
from codegym.envs.pycontracts.env import PyContractsEnv

from codegym.batch import Scorer
from codegym.executor import StepResult
from codegym.grade import Grade, Status
from codegym.task import Task

from .test_env import CLAMP, POWER, SIGNATURE, SUBTLE, contract


def everything_shown(grade: Grade) -> str:
    """Every text of a grade an agent may read: the feedback, and each test's and diagnostic's fields."""
    parts = [grade.message, grade.feedback(max_tests=100, max_chars=10**6)]
    for test in grade.tests:
        parts += [test.call or "", test.expected or "", test.got or "", test.trace or ""]
    return "\n".join([*parts, *(d.message for d in grade.diagnostics)])


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)  # (so that no rewrapping hides a clause)


def leaked(task: Task, text: str) -> list[str]:
    """The hidden contract's clauses in ``text``: every postcondition, and the preconditions the
    description does not state in words of its own (``size >= 1``, some do)."""
    stated = flat(task.prompt)
    hidden = [*(c for c in task.metadata["pre"] if flat(c) not in stated), *task.metadata["post"]]
    return [clause for clause in hidden if flat(clause) in flat(text)]


def test_a_counterexample_shows_the_input_and_both_outputs_never_the_postcondition(env: PyContractsEnv) -> None:
    task = env.tasks.get(POWER)
    grade, _ = env.evaluate(task, SUBTLE)
    assert grade.status is Status.WA
    broken = contract(grade, "post 3")  # (`__return__ == (n >= 1 and n & (n - 1) == 0)`: the whole answer)
    assert broken.call.startswith("is_power_of_two(-")
    assert broken.expected == "False (what the reference returns)"
    assert broken.got == "True, which breaks hidden postcondition 3"
    assert leaked(task, everything_shown(grade)) == [], everything_shown(grade)
    assert "n & (n - 1)" not in everything_shown(grade) and "__return__" not in everything_shown(grade)


def test_the_counts_agree_with_the_message(env: PyContractsEnv) -> None:
    task = env.tasks.get(CLAMP)
    grade, _ = env.evaluate(task, task.reference or "")
    units = len(task.metadata["post"]) + 2
    assert grade.status is Status.OK
    assert grade.message.startswith(f"all {len(task.tests)} tests and {units} contract checks passed")
    examples, hidden = len(task.public_tests), len(task.hidden_tests)
    text = grade.feedback()
    assert f"Public tests: {examples}/{examples} passed\nHidden tests: {hidden}/{hidden} passed\n" in text
    assert f"Contract checks: {units}/{units} passed" in text
    wrong, _ = env.evaluate(env.tasks.get(POWER), SUBTLE)
    failed = [t for t in wrong.tests if t.name.startswith("contract") and not t.passed]
    assert wrong.message.startswith(f"{len(failed)} of 5 contract checks failed on a counterexample")
    assert f"Contract checks: {5 - len(failed)}/5 passed" in wrong.feedback()
    assert "Public tests: 2/2 passed" in wrong.feedback()  # (the examples, not the contract checks)


def test_an_exception_the_tests_and_crosshair_both_find_is_one_diagnostic(env: PyContractsEnv) -> None:
    answer = SIGNATURE + "    if x > hi:\n        raise ValueError('boom')\n    return max(lo, x)\n"
    grade, _ = env.evaluate(env.tasks.get(CLAMP), answer)
    assert grade.status is Status.WA and not contract(grade, "no exception").passed
    assert [d.line for d in grade.diagnostics] == [3], grade.diagnostics


def test_a_misnamed_function_is_said_as_such(env: PyContractsEnv) -> None:
    answer = SUBTLE.replace("def is_power_of_two", "def power_of_two")
    grade, _ = env.evaluate(env.tasks.get(POWER), answer)
    assert grade.status is Status.CE
    assert grade.message.startswith("expected a function named `is_power_of_two`, found `power_of_two`")
    assert grade.feedback().count("power_of_two`") == 2 and not grade.diagnostics  # (said once)
    none, _ = env.evaluate(env.tasks.get(POWER), "x = 1\n")
    assert "found no function at the top level" in none.message
    broken, _ = env.evaluate(env.tasks.get(POWER), "def is_power_of_two(n:\n")
    assert broken.status is Status.CE and broken.message.startswith("the answer is not Python: line 1")


@pytest.mark.parametrize(
    ("state", "message", "detail"),
    [
        ("post_fail", "false when calling f(1) (which returns 2)", "a hidden postcondition was false"),
        ("post_err", "NameError: name 'total_of' is not defined when calling f(1)", "a hidden postcondition raised NameError"),
        ("post_err", 'Argument "xs" is not marked as mutable, but changed from [] to [1]', "a hidden postcondition failed"),
        ("exec_err", "ValueError: boom when calling f(1)", "ValueError: boom when calling f(1)"),
    ],
)  # fmt: skip
def test_crosshairs_claims_are_read_without_the_conditions_words(
    env: PyContractsEnv, state: str, message: str, detail: str
) -> None:
    """A claim's own text may quote a postcondition's names; what the agent reads of it does not."""
    task = env.tasks.get(CLAMP)
    assembly = env._assemble(task)
    line = {"conditions": [{"search": 0, "state": state, "message": message, "paths": 1, "checked": 0, "cut": False}]}
    stdout = f"{report.MARK} {assembly.tag} {__import__('json').dumps(line)}\n".encode()
    read = report.read(StepResult(argv=("python",), exit_code=0, stdout=stdout), assembly.tag, assembly, ["x"])
    assert [f.detail for f in read.findings] == [detail]


def test_no_bundled_task_shows_its_contract(env: PyContractsEnv) -> None:
    """Every bundled task, answered by its signature returning None (which breaks most
    postconditions on the boundary probes), with a small search: neither the prompt, the
    agent's workspace nor any text of the grade holds a clause of the hidden contract."""
    quick = PyContractsEnv(budget=Budget(2, 5.0, 0.5), diff_budget=None)
    tasks = list(quick.tasks)
    answers = [str(t.metadata["given"]).replace("raise NotImplementedError", "return None") for t in tasks]
    with Scorer(quick, dedupe=False) as scorer:
        grades = scorer.score([(t.id, a) for t, a in zip(tasks, answers, strict=True)])
    broken = 0
    for task, grade in zip(tasks, grades, strict=True):
        files = quick.agent_setup(task).files
        shown = "\n".join([task.prompt, *(b.decode() for b in files.values()), everything_shown(grade)])
        assert leaked(task, shown) == [], (task.id, leaked(task, shown))
        broken += sum(t.name.startswith("contract: post") and not t.passed for t in grade.tests)
    assert broken >= len(tasks)  # (the feedback did show failing postconditions: what it shows was checked)
    assert grader.CONTRACT_CHECKS == "Contract checks"
