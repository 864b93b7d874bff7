"""PyContracts-v1 on real CrossHair runs: right answers score 1; a bug the hidden tests miss is
caught with its counterexample; the cheats (directives, imports, introspection, special
cases, spinning, silencing CrossHair, forged reports) fail as they should; budgets and
limits are TLE, never a pass; agent and refine modes; the bundled references."""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.pycontracts import grader, report
from codegym.envs.pycontracts.assembly import Assembly, Budget, assemble
from codegym.envs.pycontracts.env import PyContractsEnv
from codegym.envs.pycontracts.probes import PROBES, probes

import codegym
from codegym.batch import Scorer
from codegym.executor import Limits
from codegym.grade import Grade, Status
from codegym.task import Task
from codegym.verifier import GateReport

CLAMP = "codegym-contracts/clamp"
POWER = "codegym-contracts/power_of_two"
VOWELS = "codegym-contracts/count_vowels"
SIGNATURE = "def clamp(x: int, lo: int, hi: int) -> int:\n"
SUBTLE = "def is_power_of_two(n: int) -> bool:\n    return bin(n).count('1') == 1\n"


def contract(grade: Grade, name: str) -> Any:
    return next(t for t in grade.tests if t.name == f"contract: {name}")


def test_the_reference_and_another_right_answer_score_one(env: PyContractsEnv) -> None:
    task = env.tasks.get(CLAMP)
    other = SIGNATURE + "    if x < lo:\n        return lo\n    return hi if x > hi else x\n"
    other += '\n\nif __name__ == "__main__":\n    print(clamp(5, 0, 10))\n'  # (as a model may write it)
    for answer in (task.reference or "", other):
        grade, problem = env.evaluate(task, answer)
        assert (grade.status, env.reward_of(grade), problem) == (Status.OK, 1.0, {}), grade.feedback()
    assert "it did not prove" in grade.message and grade.metrics["crosshair_paths"] > 0


def test_a_bug_every_hidden_test_misses_is_caught_with_its_counterexample(env: PyContractsEnv) -> None:
    """``bin(-1)`` is ``'-0b1'``: right on every test, wrong on every negative power of two."""
    grade, _ = env.evaluate(env.tasks.get(POWER), SUBTLE)
    assert all(t.passed for t in grade.tests if not t.name.startswith("contract"))  # the tests cannot tell
    assert grade.status is Status.WA and env.reward_of(grade) == 0.0
    broken = contract(grade, "post 1")
    assert not broken.passed and broken.call.startswith("is_power_of_two(-")
    assert broken.expected == "False (what the reference returns)" and broken.got.startswith("True, which breaks")
    assert not contract(grade, "same as the reference").passed and contract(grade, "no exception").passed
    assert "is_power_of_two(-" in grade.feedback()  # (and never the postcondition: see test_feedback)
    partial = PyContractsEnv(partial_credit=True)
    assert 0.0 < partial.reward_of(grade) < 0.5


def test_an_exception_on_an_input_the_tests_miss_is_caught_on_the_answers_line(env: PyContractsEnv) -> None:
    answer = SIGNATURE + "    if x == hi + 17:\n        raise ValueError('boom')\n    return max(lo, min(x, hi))\n"
    grade, _ = env.evaluate(env.tasks.get(CLAMP), answer)
    assert grade.status is Status.WA and grade.pass_rate < 1.0
    raised = contract(grade, "no exception")
    assert not raised.passed and raised.got == "ValueError: boom"
    assert any(d.line == 3 and "boom" in d.message for d in grade.diagnostics)


HIDDEN_BEHIND = {
    "KeyboardInterrupt": "    if n < 0:\n        raise KeyboardInterrupt\n",
    "SystemExit": "    if n < 0:\n        raise SystemExit(0)\n",
    "recursion": "    if n < 0:\n        return is_power_of_two(n)\n",
    "a wrong branch": "    if n < 0:\n        return True\n",
}


@pytest.mark.parametrize("hiding", list(HIDDEN_BEHIND))
def test_a_wrong_branch_crosshair_does_not_reach_is_caught_by_the_boundary_probes(env: PyContractsEnv,
                                                                                  hiding: str) -> None:  # fmt: skip
    """With its other paths (``bin(n)`` of a symbolic int) CrossHair spends its budget before
    it tries ``n < 0`` (measured: none of these is found by the search alone); the probes run
    every answer on -1, 0, 1, ... concretely."""
    answer = f"def is_power_of_two(n: int) -> bool:\n{HIDDEN_BEHIND[hiding]}    return bin(n).count('1') == 1\n"
    grade, _ = env.evaluate(env.tasks.get(POWER), answer)
    assert grade.status is Status.WA and env.reward_of(grade) == 0.0, grade.message
    assert "is_power_of_two(-" in grade.message


def test_probes_are_the_same_for_a_task_and_cover_each_types_boundaries() -> None:
    first = probes("t", ["int", "List[int]"])
    assert first == probes("t", ["int", "list[int]"]) and len(first) == PROBES
    assert (-1, [-1]) in first and (0, []) in first and any(p[0] == 100 for p in first)
    assert probes("t", ["Callable[[int], int]"]) == []


def test_special_cases_of_the_examples_fail(env: PyContractsEnv) -> None:
    answer = SIGNATURE + "    return {(5, 0, 10): 5, (-3, 0, 10): 0}.get((x, lo, hi), 0)\n"
    grade, _ = env.evaluate(env.tasks.get(CLAMP), answer)
    assert grade.status is Status.WA and env.reward_of(grade) == 0.0
    assert all(t.passed for t in grade.tests if not t.hidden and t.name.startswith("example"))
    assert not all(t.passed for t in grade.tests if t.hidden)


CHEATS = {
    "a directive": ("# crosshair: off\n" + SIGNATURE + "    return x\n", "CrossHair directive", 1),
    "importing crosshair": ("import crosshair\n\n\n" + SIGNATURE + "    return x\n", "import of crosshair", 1),
    "importing sys": ("import sys\n\n\n" + SIGNATURE + "    return x\n", "import of sys", 1),
    "importing builtins": ("from builtins import max\n\n\n" + SIGNATURE + "    return x\n", "builtins", 1),
    "patching through dunders": (
        SIGNATURE + "    ().__class__.__base__.__subclasses__()\n    return x\n",
        "dunder",
        2,
    ),
}


@pytest.mark.parametrize("name", CHEATS)
def test_a_way_to_reach_crosshair_is_refused_before_anything_runs(env: PyContractsEnv, name: str) -> None:
    code, construct, line = CHEATS[name]
    grade, _ = env.evaluate(env.tasks.get(CLAMP), code)
    assert grade.status is Status.HACK and construct in grade.message and f"(line {line})" in grade.message
    assert env.reward_of(grade) == 0.0 and not grade.tests


def test_an_answer_that_spins_is_a_timeout() -> None:
    quick = PyContractsEnv(limits=Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=512 << 20, processes=16))
    grade, _ = quick.evaluate(quick.tasks.get(CLAMP), SIGNATURE + "    while True:\n        pass\n")
    assert grade.status is Status.TLE and quick.reward_of(grade) == 0.0


def test_an_answer_that_spins_only_under_crosshair_is_a_timeout_not_a_pass() -> None:
    """Right on every test; past them it spins, where only CrossHair goes: its step is
    killed by the sandbox, and that is never a pass."""
    quick = PyContractsEnv(crosshair_limits=Limits(cpu_s=3.0, wall_s=6.0, memory_bytes=1 << 30, processes=16))
    answer = SUBTLE.replace("    return", "    while n > 2**41:\n        pass\n    return n >= 1 and")
    grade, _ = quick.evaluate(quick.tasks.get(POWER), answer)
    assert all(t.passed for t in grade.tests if t.hidden)
    assert grade.status is Status.TLE and "CrossHair" in grade.message


def test_a_search_cut_by_its_time_before_spending_its_budget_is_a_timeout() -> None:
    starved = PyContractsEnv(budget=Budget(max_iterations=10_000, per_condition_timeout=0.05, per_path_timeout=0.5))
    task = starved.tasks.get(VOWELS)
    grade, _ = starved.evaluate(task, task.reference or "")
    assert grade.status is Status.TLE and "ran out of time before spending its budget on post 1" in grade.message


def test_a_search_that_ran_no_path_to_its_end_checked_nothing(env: PyContractsEnv) -> None:
    """Every path cut short by its own time, or running what CrossHair cannot run
    symbolically: the search's budget was spent, and nothing was checked (``RE``)."""
    task = env.tasks.get(CLAMP)
    _, runs = _check(env, task, task.reference or "")
    assert runs.report is not None and all(s.checked for s in runs.report.searches if s.name != "diff")
    assert grader.grade(task, runs).status is Status.OK
    searches = tuple(replace(s, checked=0) if s.name == "post 2" else s for s in runs.report.searches)
    grade = grader.grade(task, replace(runs, report=replace(runs.report, searches=searches)))
    assert grade.status is Status.RE and "ran no path of post 2 to its end" in grade.message


def _check(env: PyContractsEnv, task: Task, code: str) -> tuple[Assembly, grader.Runs]:
    """The check job run on ``code`` as if the gate had passed it, and what it reported."""
    assembly = assemble(task, nonce=secrets.randbelow(10**9) + 10**9, tag=secrets.token_hex(16))
    result = env.executor.run(env.check_job(task, code, assembly, env.limits))
    params = [name for name, _ in task.metadata["params"]]
    found = report.read(result.steps[1], assembly.tag, assembly, params)
    return assembly, grader.Runs(GateReport(), assembly, result, found)


SILENCED = """\
import sys

if "codegym_reference" in sys.modules:  # (only in CrossHair's step: the hidden tests pass)
    z3 = sys.modules["z3"]
    z3.Solver.check = lambda self, *assumptions: z3.unknown  # (every query: "unknown")
"""
GONE = """\
import os
import sys

if "codegym_reference" in sys.modules:
    os._exit(0)
"""


@pytest.mark.parametrize(("sabotage", "why"), [(SILENCED, "did not refute its canary"), (GONE, "missing or forged")])
def test_crosshair_silenced_from_the_answers_process_is_caught(env: PyContractsEnv, sabotage: str, why: str) -> None:
    """Past the gate (as if it had missed something), a wrong answer that switches CrossHair
    off in its own process: the canary is not refuted, or no report carries the nonce."""
    task = env.tasks.get(CLAMP)
    answer = sabotage + "\n\n" + SIGNATURE + "    return hi + 1 if x == 12345 else max(lo, min(x, hi))\n"
    assert env.evaluate(task, answer)[0].status is Status.HACK  # (the gate refuses it)
    _, runs = _check(env, task, answer)
    grade = grader.grade(task, runs)
    assert grade.status is Status.HACK and why in grade.message, grade.feedback()


def test_a_forged_or_spurious_counterexample_changes_nothing(env: PyContractsEnv) -> None:
    """Claims that do not reproduce when run (a right answer on its input, an input that
    breaks a precondition) are warnings: the grade stays OK."""
    task = env.tasks.get(CLAMP)
    reference = task.reference or ""
    assembly, runs = _check(env, task, reference)
    assert runs.report is not None and runs.report.canary
    claims = (report.Finding("post", 0, (5, 0, 10), "clamp(5, 0, 10)", "false when calling clamp(5, 0, 10)"),
              report.Finding("raises", 1, (0, 5, 1), "clamp(0, 5, 1)", "ValueError when calling clamp(0, 5, 1)"))  # fmt: skip
    forged = replace(runs.report, findings=claims)
    cases = tuple(f.args for f in claims if f.args is not None)
    replay = env.executor.run(env.replay_job(task, reference, cases))
    outputs = env.executor.run(env.reference_job(task, cases))
    grade = grader.grade(task, grader.Runs(runs.gate, assembly, runs.check, forged, cases, replay, outputs))
    assert grade.status is Status.OK, grade.feedback()
    warnings = [d.message for d in grade.diagnostics if d.severity == "warning"]
    assert any("meets the contract on it when run" in w for w in warnings)
    assert any("does not meet the preconditions" in w for w in warnings)


def test_validation_checks_that_the_tests_meet_the_contract(env: PyContractsEnv) -> None:
    assert env.check_solutions(env.tasks.get(CLAMP)) is None
    row = {"id": "half", "description": "Half of an even `n`.", "reference": "def half(n: int) -> int:\n    return n // 2\n",
           "pre": ["n % 2 == 0"], "post": ["2 * __return__ == n"], "examples": ["assert half(4) == 2"],
           "tests": ["assert half(3) == 1"]}  # fmt: skip
    mismatched = PyContractsEnv([row])
    assert "breaks precondition 1" in (mismatched.check_solutions(mismatched.tasks.get("half")) or "")
    wrong = PyContractsEnv([{**row, "post": ["__return__ > n"], "tests": ["assert half(6) == 3"]}])
    assert "breaks its contract" in (wrong.check_solutions(wrong.tasks.get("half")) or "")


def test_a_sample_of_bundled_references_score_one_and_their_stubs_do_not(env: PyContractsEnv) -> None:
    """Every twelfth bundled task (the whole set: `codegym validate codegym/PyContracts-v1`)."""
    tasks = list(env.tasks)[::12]
    with Scorer(env, dedupe=False) as scorer:
        references = scorer.score([(t.id, t.reference or "") for t in tasks])
        stubs = scorer.score([(t.id, str(t.metadata["given"])) for t in tasks])
    assert all(g.status is Status.OK for g in references), [
        (t.id, g.message) for t, g in zip(tasks, references, strict=True)
    ]
    assert not any(g.status is Status.OK for g in stubs)


def test_score_grades_a_batch() -> None:
    task_reference = PyContractsEnv().tasks.get(POWER).reference or ""
    grades = codegym.score("codegym/PyContracts-v1", [(POWER, task_reference), (POWER, SUBTLE)])
    assert [g.status for g in grades] == [Status.OK, Status.WA]


def test_refine_mode_ends_when_the_contract_holds() -> None:
    env = gym.make("codegym/PyContracts-v1", mode="refine")
    try:
        env.reset(options={"task_id": POWER})
        _, reward, terminated, _, info = env.step(f"```python\n{SUBTLE}```")
        assert (reward, terminated, info["status"]) == (0.0, False, "WA")
        right = "def is_power_of_two(n: int) -> bool:\n    return n > 0 and n & (n - 1) == 0\n"
        obs, reward, terminated, _, info = env.step(right)
        assert (reward, terminated, info["status"], obs["attempt"]) == (1.0, True, "OK", 2)
    finally:
        env.close()


def test_agent_mode_verifies_the_workspace_file_and_submit_grades_it() -> None:
    env = gym.make("codegym/PyContracts-v1", mode="agent")
    try:
        _, info = env.reset(options={"task_id": POWER})
        assert "verify" in [tool["function"]["name"] for tool in info["tools"]]
        observation, reward, terminated, _, info = env.step({"name": "verify", "arguments": {}})
        assert (reward, terminated, info["tool_results"][0]["exit_code"]) == (0.0, False, 1)
        edit = {"name": "str_replace_editor", "arguments": {"command": "create", "path": "solution.py",
                                                               "file_text": SUBTLE}}  # fmt: skip
        observation, _, _, _, _ = env.step([edit, {"name": "verify", "arguments": {}}])
        assert "Status: WA" in observation["feedback"] and "is_power_of_two(-" in observation["feedback"]
        assert "__return__" not in observation["feedback"] and "n & (n - 1)" not in observation["feedback"]
        right = SUBTLE.replace("bin(n).count('1') == 1", "n > 0 and n & (n - 1) == 0")
        fix = {
            "name": "str_replace_editor",
            "arguments": {"command": "create", "path": "solution.py", "file_text": right},
        }
        run = {"name": "bash", "arguments": {"command": "python3 examples.py"}}
        observation, _, _, _, _ = env.step([fix, run])
        assert "the examples pass" in observation["feedback"]
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
        assert (reward, terminated, info["status"]) == (1.0, True, "OK")
    finally:
        env.close()
