"""Dafny's "solved": a hints or impl answer when it verifies (``OK``); a spec answer when it
verifies and rules out every held mutant (kill rate 1). ``ensures true`` verifies and rules
out none: ``OK``, not solved, 0 in pass@k and in TRL's ``correct``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.dafny.program import declarations

from codegym.cli import main
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.integrations.trl import reward_function

SUM = "codegym-dafny/sum-array"


@pytest.fixture(scope="module")
def spec_env(executor: LocalExecutor) -> DafnyEnv:
    return DafnyEnv(task_kind="spec", executor=executor)


def with_clauses(env: DafnyEnv, clauses: str) -> str:
    """The task's program as given, with ``clauses`` under the target's signature."""
    task = env.tasks.get(SUM)
    given = str(task.metadata["given"])
    target = next(d for d in declarations(given) if d.name == task.metadata["open"][0])
    return f"{given[: target.start]}{target.signature}\n{clauses}\n{given[target.start + len(target.signature) :]}"


def test_a_spec_that_rules_out_no_mutant_is_ok_but_not_solved(spec_env: DafnyEnv) -> None:
    vacuous, _ = spec_env.evaluate_task(spec_env.tasks.get(SUM), with_clauses(spec_env, "  ensures true"))
    assert vacuous.status is Status.OK and vacuous.metrics["kill_rate"] == 0.0 and vacuous.solved is False
    weak, _ = spec_env.evaluate_task(
        spec_env.tasks.get(SUM), with_clauses(spec_env, "  ensures a.Length == 0 ==> s == 0")
    )
    assert weak.status is Status.OK and 0 < weak.metrics["kill_rate"] < 1 and weak.solved is False
    trusted, _ = spec_env.evaluate_task(spec_env.tasks.get(SUM), spec_env.tasks.get(SUM).reference or "")
    assert trusted.metrics["kill_rate"] == 1.0 and trusted.solved is True


def test_trl_correct_counts_only_a_solved_spec(spec_env: DafnyEnv) -> None:
    correct = reward_function(spec_env, "correct")
    answers = [with_clauses(spec_env, "  ensures true"), spec_env.tasks.get(SUM).reference or ""]
    assert correct(completions=answers, task_id=[SUM, SUM]) == [0.0, 1.0]


def test_score_counts_ensures_true_as_a_failure_in_pass_at_1(spec_env: DafnyEnv, tmp_path: Path, capsys) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": SUM, "completion": with_clauses(spec_env, "  ensures true")}) + "\n")
    assert main(["score", str(samples), "--env", "codegym/Dafny-v1", "--option", "task_kind=spec"]) == 0
    out = capsys.readouterr().out
    assert "status: {'OK': 1}" in out and "pass@1: 0.0000" in out and "mean reward: 0.0000" in out


def test_a_hints_answer_is_solved_when_it_verifies(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor)
    task = next(iter(env.tasks))
    verified, _ = env.evaluate_task(task, task.reference or "")
    given, _ = env.evaluate_task(task, str(task.metadata["given"]))
    assert (verified.status, verified.solved) == (Status.OK, True)
    assert given.status is not Status.OK and given.solved is False
