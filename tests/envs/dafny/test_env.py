"""The Dafny family on real verifier runs: bundled tasks, the cheats the gate and the canary stop,
the specification the answer cannot change, feedback, timeouts and the task loaders."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from codegym.envs.dafny import grader
from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.dafny.program import assemble
from codegym.envs.dafny.tasks import load_tasks

from codegym.batch import Scorer
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.verifier import GateReport, check
from codegym.verifier.dafny import AOT, LIMITS, Dafny, command

SUM = "codegym-dafny/sum-array"
SORT_WITH_BOGUS_LEMMA = """\
lemma Bogus()
  ensures false

method Sort(a: array<int>)
  modifies a
  ensures forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]
{
  Bogus();
}
"""


def test_bundled_references_verify_and_no_task_verifies_as_given(env: DafnyEnv) -> None:
    """Every sixth bundled program (the whole set: `codegym validate codegym/Dafny-v1`)."""
    assert len(env.tasks) >= 60
    tasks = list(env.tasks)[::6]
    with Scorer(env, dedupe=False) as scorer:
        references = scorer.score([(t.id, t.reference or "") for t in tasks])
        given = scorer.score([(t.id, str(t.metadata["given"])) for t in tasks])
    assert [g.status for g in references] == [Status.OK] * len(tasks), [
        (t.id, g.message) for t, g in zip(tasks, references, strict=True)
    ]
    assert all(g.status is Status.WA for g in given), [
        (t.id, g.status, g.message) for t, g in zip(tasks, given, strict=True)
    ]
    assert all(t.metadata["hints"] > 0 for t in tasks)


def test_the_bodiless_lemma_exploit_is_refused(env: DafnyEnv) -> None:
    task = env.tasks.get(SUM)
    grade, _ = env.evaluate(task, SORT_WITH_BOGUS_LEMMA)
    assert grade.status is Status.HACK and "lemma without a body" in grade.message and "line 1" in grade.message
    assert env.reward_of(grade) == 0.0


def test_a_bodiless_lemma_the_gate_let_through_is_still_caught(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor)
    task = env.tasks.get(SUM)
    given = str(task.metadata["given"])
    smuggled = "lemma Bogus()\n  ensures false\n\n" + given.replace("  s := 0;", "  Bogus();\n  s := 0;")
    assembly = assemble(str(task.metadata["trusted"]), given, smuggled, task.metadata["open"])
    report = check(env.verifier, {grader.PROGRAM: assembly.text}, executor, LIMITS)
    assert report.outcome_of("Sum") == "verified"  # (the smuggled axiom proves anything...)
    verdict = grader.grade(GateReport(), assembly, report)  # (...as if the gate had missed it)
    assert verdict.status is Status.HACK and verdict.message.startswith("Bogus: a method or lemma whose body")


def test_a_spec_edited_in_the_answer_is_not_the_one_verified(env: DafnyEnv) -> None:
    task = env.tasks.get(SUM)
    weakened = str(task.metadata["given"]).replace("ensures s == SumTo(a, a.Length)", "ensures true")
    grade, _ = env.evaluate(task, weakened)
    assert grade.status is Status.WA and "Sum" in grade.message


def test_a_redefined_preamble_function_is_not_the_one_verified(env: DafnyEnv) -> None:
    task = env.tasks.get(SUM)
    given = str(task.metadata["given"])
    cheat = given.replace("if n == 0 then 0 else SumTo(a, n - 1) + a[n - 1]", "0").replace(
        "  s := 0;\n  var i := 0;", "  s := 0;\n  return;\n  var i := 0;")  # fmt: skip
    grade, _ = env.evaluate(task, cheat)
    assert grade.status is Status.WA
    assert any("kept the task's own definitions of SumTo" in d.message for d in grade.diagnostics)


def test_feedback_points_at_the_answers_own_lines(env: DafnyEnv) -> None:
    task = env.tasks.get(SUM)
    answer = "// my attempt\n\n" + str(task.metadata["given"])
    grade, _ = env.evaluate(task, answer)
    assert grade.status is Status.WA and grade.metrics["verified_fraction"] == 0.5
    loop = next(i for i, line in enumerate(answer.splitlines(), 1) if line.strip().startswith("while"))
    errors = [d for d in grade.diagnostics if d.file == "answer" and d.severity == "error"]
    assert errors and errors[0].line == loop and "while i < a.Length" in errors[0].message
    assert any(d.file == "spec" and "ensures s == SumTo(a, a.Length)" in d.message for d in grade.diagnostics)
    assert [(t.name, t.passed) for t in grade.tests] == [("SumTo", True), ("Sum", False)]


def test_partial_credit_is_half_the_verified_fraction_at_most(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor, partial_credit=True)
    task = env.tasks.get(SUM)
    grade, _ = env.evaluate(task, str(task.metadata["given"]))
    assert grade.status is Status.WA and env.reward_of(grade) == pytest.approx(0.25)
    ok, _ = env.evaluate(task, task.reference or "")
    assert env.reward_of(ok) == 1.0


def test_a_verifier_stopped_by_its_limits_is_a_timeout_not_a_pass(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor, limits=replace(LIMITS, wall_s=0.1, cpu_s=0.1))
    task = env.tasks.get(SUM)
    grade, _ = env.evaluate(task, task.reference or "")
    assert grade.status is Status.TLE and env.reward_of(grade) == 0.0


def test_impl_tasks_show_empty_bodies_and_take_new_ones(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor, task_kind="impl")
    task = env.tasks.get("codegym-dafny/max-array")
    assert "m := a[0]" not in task.prompt and "ensures forall k" in task.prompt
    grade, _ = env.evaluate(task, task.reference or "")
    given, _ = env.evaluate(task, str(task.metadata["given"]))
    assert (grade.status, given.status) == (Status.OK, Status.WA)


def test_refine_mode_ends_when_the_program_verifies(executor: LocalExecutor) -> None:
    env = DafnyEnv(executor=executor, mode="refine")
    env.reset(options={"task_id": SUM})
    _, reward, terminated, _, info = env.step(str(env.task.metadata["given"]) if env.task else "")
    assert (reward, terminated, info["grade"].status) == (0.0, False, Status.WA)
    _, reward, terminated, _, _ = env.step(f"```dafny\n{env.task.reference if env.task else ''}\n```")
    assert (reward, terminated) == (1.0, True)


def test_loaders_read_dafnybench_vericoding_and_rows(tmp_path: Path) -> None:
    program = (Path(__file__).parents[3] / "envs/dafny/data/codegym-dafny/max-array.dfy").read_text()
    bench = tmp_path / "DafnyBench"
    (bench / "ground_truth").mkdir(parents=True)
    (bench / "hints_removed").mkdir()
    (bench / "ground_truth" / "max.dfy").write_text(program)
    (bench / "hints_removed" / "max.dfy").write_text(program.replace("    invariant 1 <= i <= a.Length\n", ""))
    (task,) = load_tasks(bench)
    assert (
        task.id == "DafnyBench/max" and "invariant forall k" in task.metadata["given"] and task.metadata["hints"] == 1
    )
    vericoding = tmp_path / "vericoding"
    vericoding.mkdir()
    (vericoding / "abs.dfy").write_text(
        "// <vc-preamble>\nfunction Abs(x: int): int { if x < 0 then -x else x }\n// </vc-preamble>\n"
        "// <vc-helpers>\n// </vc-helpers>\n// <vc-spec>\nmethod AbsOf(x: int) returns (y: int)\n  ensures y == Abs(x)\n"
        "// </vc-spec>\n// <vc-code>\n{\n  assume {:axiom} false;\n}\n// </vc-code>\n"
    )
    (impl,) = load_tasks(vericoding)
    assert impl.reference is None and impl.metadata["kind"] == "impl" and impl.metadata["open"] == ("AbsOf",)
    assert "assume false" not in impl.prompt and "{:axiom} false" not in impl.prompt
    (row,) = load_tasks([{"id": "r", "program": program, "description": "max"}])
    assert row.id == "r" and "invariant" not in row.metadata["given"]


def test_a_sandbox_run_needs_no_more_than_the_limits_of_a_step(executor: LocalExecutor) -> None:
    limits = Limits(cpu_s=30.0, wall_s=30.0, memory_bytes=1 << 30, processes=64)
    env = DafnyEnv(executor=executor, limits=limits)
    task = env.tasks.get("codegym-dafny/gcd")
    grade, _ = env.evaluate(task, task.reference or "")
    assert grade.status is Status.OK


def test_a_bodiless_lemma_hidden_in_a_class_is_caught_by_gate_and_trace(env: DafnyEnv, executor: LocalExecutor) -> None:
    task = env.tasks.get(SUM)
    given = str(task.metadata["given"])
    cheat = "class C {\n  static lemma Bogus()\n    ensures false\n}\n\n" + given.replace(
        "  s := 0;", "  C.Bogus();\n  s := 0;"
    )
    grade, _ = env.evaluate(task, cheat)
    assert grade.status is Status.HACK and "line 2" in grade.message
    assembly = assemble(str(task.metadata["trusted"]), given, cheat, task.metadata["open"])
    report = check(env.verifier, {grader.PROGRAM: assembly.text}, executor, LIMITS)
    assert report.outcome_of("Sum") == "verified"  # (Dafny 2.3 takes the class's lemma as an axiom...)
    verdict = grader.grade(GateReport(), assembly, report)  # (...and the trace shows it was never verified)
    assert verdict.status is Status.HACK and verdict.message.startswith("Bogus: a method or lemma")


@pytest.mark.skipif(not (AOT / "Dafny.exe.so").is_file(), reason="Dafny was not compiled ahead of time (setup.sh)")
def test_the_ahead_of_time_copy_gives_debians_verdicts(env: DafnyEnv, executor: LocalExecutor, tmp_path: Path) -> None:
    """The env starts the AOT copy where there is one; it reports what Debian's dafny does,
    on a program that verifies and on one that does not."""
    task = env.tasks.get(SUM)
    assert command()[-1] == "dafny" and "mono --aot-path" in command()[2]
    broken = str(task.reference).replace("    invariant s == SumTo(a, i)\n", "")
    for program in (str(task.reference), broken):
        files = {"program.dfy": program}
        aot, plain = (check(Dafny(aot=place), files, executor, LIMITS) for place in (AOT, tmp_path / "none"))
        assert aot.ended == plain.ended == "complete"
        assert [(p.name, p.check, p.outcome) for p in aot.procedures] == [
            (p.name, p.check, p.outcome) for p in plain.procedures
        ]
        assert [(m.line, m.text) for m in aot.messages] == [(m.line, m.text) for m in plain.messages]
    assert any(p.outcome == "failed" for p in plain.procedures)


def test_a_parse_error_says_how_many_where_and_the_first_error(executor: LocalExecutor) -> None:
    program = "method AddOne(x: int) returns (y: int)\n  ensures y == x + 1\n{\n  y := x + 1;\n}\n"
    env = DafnyEnv([{"id": "u", "program": program}], task_kind="impl", executor=executor)
    broken = program.replace("  y := x + 1;\n", "  y := x + 1\n  y := y;\n")
    grade, _ = env.evaluate(env.tasks.get("u"), broken)
    assert grade.status is Status.CE
    assert grade.message == "1 parse error detected in program.dfy: semi expected: `y := y;` (line 5)"


def test_a_method_with_nothing_to_prove_is_not_taken_for_a_bodiless_one(executor: LocalExecutor) -> None:
    """Dafny checks no implementation without proof obligations, so its trace does not name
    ``Noop``; the trace check took it for a body-less method (``HACK``), as it did DafnyBench's
    ``method Main() {}``. A body-less method is still caught there, ensures or not."""
    program = "method Noop(x: int)\n  requires x > 0\n{\n}\n\nmethod Main()\n{\n  Noop(1);\n}\n"
    env = DafnyEnv([{"id": "noop", "program": program}], task_kind="impl", executor=executor)
    task = env.tasks.get("noop")
    grade, _ = env.evaluate(task, program)
    assert grade.status is Status.OK, grade.message
    bodiless = program.replace("  requires x > 0\n{\n}\n", "  requires x > 0\n")  # (as if the gate had missed it)
    assembly = assemble(bodiless, bodiless, bodiless, ["Main"])
    report = check(env.verifier, {grader.PROGRAM: assembly.text}, executor, LIMITS)
    verdict = grader.grade(GateReport(), assembly, report)
    assert verdict.status is Status.HACK and verdict.message.startswith("Noop: a method or lemma whose body")
