"""Issue 45: the canary lemma appended to the program changes what Z3 does on a fragile proof,
so a program that bare Dafny verifies failed beside it (two DafnyBench ground truths were
``WA`` and ``TLE``). A failing first run is verified again without the canary; the canary's
protection stands."""

from __future__ import annotations

from dataclasses import replace

from codegym.envs.dafny import grader
from codegym.envs.dafny.env import DafnyEnv, Runs
from codegym.envs.dafny.program import canary_lemma

from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.verifier import GateReport
from codegym.verifier.dafny import LIMITS

# Bare Dafny 2.3 verifies it in about a second; with the canary appended, Z3 spins on
# Triangle's loop (past any /timeLimit of 5 s, and past 12 s without one).
FRAGILE = """\
method Triangle(n: int) returns (total: int)
  requires n >= 0
  ensures total == n * (n + 1) / 2
{
  total := 0;
  var k := 0;
  while k < n
    invariant total == k * (k + 1) / 2
    invariant k <= n
  {
    k := k + 1;
    total := total + k;
  }
}

method Squares(n: nat) returns (total: nat)
  ensures total == n * n
{
  total := 0;
  var k := 0;
  while k < n
    invariant total == k * k
    invariant k <= n
  {
    total := total + 2 * k + 1;
    k := k + 1;
  }
}
"""


def make_env(executor: LocalExecutor, **settings: object) -> DafnyEnv:
    return DafnyEnv([{"id": "fragile", "program": FRAGILE}], task_kind="impl", executor=executor, **settings)  # type: ignore[arg-type]


def run(env: DafnyEnv, answer: str) -> Runs:
    runs = env.launch(env.tasks.get("fragile"), answer).result()
    assert isinstance(runs, Runs)
    return runs


def test_a_proof_the_canary_makes_time_out_is_verified_again_without_it(executor: LocalExecutor) -> None:
    env = make_env(executor, time_limit_s=5)
    task = env.tasks.get("fragile")
    runs = run(env, FRAGILE)
    assembly = env.assembly(task, FRAGILE)
    assert assembly is not None and runs.again is not None
    first, again = env.verifier.read(runs.first), env.verifier.read(runs.again)
    assert first.ended == "complete" and first.outcome_of("Triangle") == "timeout"  # (beside the canary)
    assert first.outcome_of(assembly.canary) == "failed"
    assert grader.grade(GateReport(), assembly, first).status is Status.TLE  # (the verdict of one run)
    assert again.ended == "complete" and {p.outcome for p in again.procedures} == {"verified"}
    assert again.outcome_of(assembly.canary) is None and len(runs.again.steps) == 1  # (the first run's canary stands)
    grade = env.grade(task, FRAGILE, runs)
    assert grade.status is Status.OK and grade.metrics["verified_fraction"] == 1.0, grade.message
    assert env.evaluate(task, FRAGILE)[0].status is Status.OK  # (it was TLE)


def test_a_run_stopped_before_the_canary_checks_it_alone_the_second_time(executor: LocalExecutor) -> None:
    limits = replace(LIMITS, cpu_s=8.0, wall_s=8.0)
    env = make_env(executor, limits=limits)
    task = env.tasks.get("fragile")
    runs = run(env, FRAGILE)
    assembly = env.assembly(task, FRAGILE)
    assert assembly is not None and runs.again is not None and len(runs.again.steps) == 2
    first, again = env.verifier.read(runs.first), env.verifier.read(runs.again)
    assert first.ended == "timeout" and first.outcome_of(assembly.canary) is None
    assert again.ended == "complete" and again.outcome_of(assembly.canary) == "failed"
    assert env.grade(task, FRAGILE, runs).status is Status.OK
    # The canary checked alone still catches an inconsistent program: here one whose
    # canary holds (as if its declarations proved `false`).
    lemma = canary_lemma(assembly.canary)
    provable = assembly.text.replace(lemma, lemma.replace("ensures false", "ensures true"))
    files = {grader.PROGRAM: assembly.program, grader.CANARY: provable}  # (as `rerun_job` makes them)
    rerun = executor.run(env.verifier.job(files, limits, only=(grader.CANARY, assembly.canary)))
    verdict = grader.grade(GateReport(), assembly, first, env.verifier.read(rerun))
    assert verdict.status is Status.HACK and "canary verified" in verdict.message


def test_an_answer_wrong_without_the_canary_too_stays_wrong(executor: LocalExecutor) -> None:
    answer = FRAGILE.replace("total + 2 * k + 1", "total + 2 * k")
    env = make_env(executor, time_limit_s=5)
    runs = run(env, answer)
    assert runs.again is not None
    grade = env.grade(env.tasks.get("fragile"), answer, runs)
    assert grade.status is Status.WA and "Squares" in grade.message and "Triangle" not in grade.message, grade.message


def test_an_answer_that_verifies_beside_the_canary_runs_once(executor: LocalExecutor) -> None:
    program = "method Inc(x: int) returns (y: int)\n  ensures y == x + 1\n{\n  y := x + 1;\n}\n"
    env = DafnyEnv([{"id": "inc", "program": program}], task_kind="impl", executor=executor)
    runs = env.launch(env.tasks.get("inc"), program).result()
    assert isinstance(runs, Runs) and runs.again is None
    assert env.grade(env.tasks.get("inc"), program, runs).status is Status.OK
    assert env.grade(env.tasks.get("inc"), program, runs.first).status is Status.OK  # (one run's result alone)
