"""Dafny spec tasks: the agent writes requires/ensures, scored by the held mutants they rule out.

The pure parts (the target's signature, the check methods, the assembly that keeps the body
the task's), then real verifier runs: the bundled specifications kill every held mutant and
``ensures true`` none, the mutants tool keeps only the mutants a program's own specification
rules out, and the cheats a spec answer could try score nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.dafny import mutants
from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.dafny.program import assemble_spec, declarations, strip_spec
from codegym.envs.dafny.spec import Mutant, SpecCases, kill_checks, signature_of
from codegym.envs.dafny.tasks import load_tasks

from codegym.batch import Scorer
from codegym.error import TaskFormatError
from codegym.executor.local import LocalExecutor
from codegym.grade import Status

SUM = "codegym-dafny/sum-array"
REVERSE = "codegym-dafny/reverse-array"
SUM_SPEC = """\
method Sum(a: array<int>) returns (s: int)
  ensures s == SumTo(a, a.Length)
{
}
"""


@pytest.fixture(scope="module")
def spec_env(executor: LocalExecutor) -> DafnyEnv:
    return DafnyEnv(task_kind="spec", executor=executor)


def _answer(env: DafnyEnv, task_id: str, clauses: str, extra: str = "") -> str:
    """The task's program as given, with ``clauses`` under the target's signature."""
    task = env.tasks.get(task_id)
    given = str(task.metadata["given"])
    target = next(d for d in declarations(given) if d.name == task.metadata["open"][0])
    return (
        f"{given[: target.start]}{target.signature}\n{clauses}\n{given[target.start + len(target.signature) :]}{extra}"
    )


# --- pure -----------------------------------------------------------------------------------------


def test_the_signature_names_what_an_outcome_holds() -> None:
    program = "method M(a: array<int>, ghost k: nat, s: seq<int>) returns (r: bool, n: int)\n  modifies a\n{\n}\n"
    signature = signature_of(declarations(program)[0])
    assert [(p.name, p.type) for p in signature.parameters] == [("a", "array<int>"), ("k", "nat"), ("s", "seq<int>")]
    assert [p.name for p in signature.observed] == ["r", "n", "a"]
    with pytest.raises(TaskFormatError, match="map<int,int>"):
        signature_of(declarations("method M(m: map<int,int>) returns (r: int)\n{\n}\n")[0])


def test_a_check_proves_the_mutant_outcome_impossible_at_a_concrete_input() -> None:
    program = "method Swap(a: array<int>) returns (n: nat)\n  modifies a\n{\n  n := 0;\n}\n"
    signature = signature_of(declarations(program)[0])
    cases = SpecCases(signature, (((3, 1),), ((),)), ((0, (3, 1)), (0, ())),
                      (Mutant("m0", ((1, (3, 1)), (0, ()))), Mutant("m1", ((1, (3, 1)), (2, ())))))  # fmt: skip
    text, checks = kill_checks(cases, ["F"], "tag")
    assert [(c.name, c.mutants) for c in checks] == [("CodegymKilltagx0", (0, 1)), ("CodegymKilltagx1", (1,))]
    assert "method {:fuel F,5} CodegymKilltagx0()" in text
    assert (
        "  var a := new int[2];\n  a[0], a[1] := 3, 1;\n  ghost var codegymBefore0 := [a[0], a[1]];\n"
        "  var n := Swap(a);\n  ghost var codegymAfter0 := [a[0], a[1]];\n  assert !(n == 1 && a[..] == [3, 1]);"
    ) in text
    assert SpecCases.from_json(json.loads(json.dumps(cases.to_json()))) == cases
    with pytest.raises(TaskFormatError, match="one reference outcome per input"):
        SpecCases.from_json({**cases.to_json(), "reference": []})


def test_the_answer_gives_only_requires_and_ensures() -> None:
    trusted = "method M(x: int) returns (y: int)\n  requires x > 0\n  ensures y == x\n  decreases x\n{\n  y := x;\n}\n"
    assert strip_spec(trusted, "M") == "method M(x: int) returns (y: int)\n  decreases x\n{\n  y := x;\n}\n"
    answer = "method M(x: int) returns (y: int)\n  ensures y >= 0\n  modifies {}\n{\n  y := 0;\n}\n"
    assembly = assemble_spec(trusted, answer, "M")
    header, body = assembly.text.split("{", 1)
    assert "ensures y >= 0" in header and "requires" not in header and "modifies" not in header
    assert "decreases x" in header and body.startswith("\n  y := x;")  # (the body is the task's)
    assert assembly.agent_line(2) == 2


# --- real runs -------------------------------------------------------------------------------------


def test_bundled_specifications_rule_out_every_mutant_and_ensures_true_none(spec_env: DafnyEnv) -> None:
    """Every tenth bundled program (the whole set: `codegym validate codegym/Dafny-v1
    --option task_kind=spec`, whose check is `DafnyEnv.check_solutions`)."""
    tasks = list(spec_env.tasks)[::10]
    assert len(spec_env.tasks) >= 60 and all(t.metadata["kind"] == "spec" for t in tasks)
    with Scorer(spec_env, dedupe=False) as scorer:
        references = scorer.score([(t.id, t.reference or "") for t in tasks])
        vacuous = scorer.score(
            [(t.id, strip_spec(str(t.reference), t.metadata["open"][0], ["ensures"])) for t in tasks]
        )
    for task, grade in zip(tasks, references, strict=True):
        assert grade.status is Status.OK and grade.metrics["kill_rate"] == 1.0, (task.id, grade.message)
        assert grade.solved is True, (task.id, grade.message)
        assert spec_env.reward_of(grade) == grade.metrics["kill_rate"]
    for task, grade in zip(tasks, vacuous, strict=True):  # (the task's requires, and ensures true)
        assert grade.metrics.get("killed", 0.0) == 0 and spec_env.reward_of(grade) == 0.0, (task.id, grade.message)


def test_a_weaker_spec_scores_less_and_ensures_true_nothing(spec_env: DafnyEnv) -> None:
    full, _ = spec_env.evaluate(spec_env.tasks.get(SUM), _answer(spec_env, SUM, "  ensures s == SumTo(a, a.Length)"))
    weak, _ = spec_env.evaluate(spec_env.tasks.get(SUM), _answer(spec_env, SUM, "  ensures a.Length == 0 ==> s == 0"))
    none, _ = spec_env.evaluate(spec_env.tasks.get(SUM), _answer(spec_env, SUM, "  ensures true"))
    assert full.status is weak.status is none.status is Status.OK
    assert full.metrics["kill_rate"] == 1.0 > weak.metrics["kill_rate"] > none.metrics["kill_rate"] == 0.0
    assert "rules out" in full.message and "held mutants" in full.message


@pytest.mark.parametrize(
    ("clauses", "extra", "status"),
    [
        ("  requires false\n  ensures s == 7", "", Status.OK),  # excludes every input: kills nothing
        ("  ensures s == 7", "", Status.WA),  # false of the implementation: it does not verify
        ("  ensures Seven(s)", "\npredicate Seven(x: int)\n  ensures Seven(x)\n", Status.HACK),  # a promise
        ("  ensures s == 7", "\nlemma {:axiom} Seven(s: int)\n  ensures s == 7\n{\n}\n", Status.HACK),
        ("  requires Never()\n  ensures s == 7", "\npredicate Never() { false }\n", Status.OK),
    ],
)
def test_spec_cheats_score_nothing(spec_env: DafnyEnv, clauses: str, extra: str, status: Status) -> None:
    grade, _ = spec_env.evaluate(spec_env.tasks.get(SUM), _answer(spec_env, SUM, clauses, extra))
    assert grade.status is status, grade.message
    assert spec_env.reward_of(grade) == 0.0, grade.message


def test_a_body_changed_in_the_answer_is_not_the_one_verified(spec_env: DafnyEnv) -> None:
    answer = SUM_SPEC.replace("  ensures s == SumTo(a, a.Length)", "  ensures s == 0").replace(
        "{\n}", "{\n  s := 0;\n}"
    )
    given = str(spec_env.tasks.get(SUM).metadata["given"])
    grade, _ = spec_env.evaluate(spec_env.tasks.get(SUM), given.split("method Sum", maxsplit=1)[0] + answer)
    assert grade.status is Status.WA and spec_env.reward_of(grade) == 0.0


def test_an_in_place_method_is_judged_by_the_array_after_the_call(spec_env: DafnyEnv) -> None:
    task = spec_env.tasks.get(REVERSE)
    assert task.metadata["spec"]["modified"] == ["a"]
    grade, _ = spec_env.evaluate(task, _answer(spec_env, REVERSE, "  ensures a.Length == old(a.Length)"))
    assert grade.status is Status.OK and grade.metrics["killed"] == 0
    grade, _ = spec_env.evaluate(task, task.reference or "")
    assert grade.metrics["kill_rate"] == 1.0


def test_mutants_are_made_by_running_them(executor: LocalExecutor) -> None:
    program = (
        "method Double(n: nat) returns (d: nat)\n  ensures d == 2 * n\n{\n  d := 0;\n  var i := 0;\n"
        "  while i < n\n    invariant 0 <= i <= n && d == 2 * i\n  {\n    d := d + 2;\n    i := i + 1;\n  }\n}\n"
    )
    cases = mutants.build(program, executor=executor)
    assert cases.signature.method == "Double" and len(cases.inputs) == mutants.INPUTS
    assert all(row == (2 * values[0],) for values, row in zip(cases.inputs, cases.reference, strict=True))
    edits = [m.edit for m in cases.mutants]
    assert "line 9: `+` -> `-`" not in edits  # (a negative nat: its type rules it out)
    assert "line 4: `0` -> `1`" in edits and all(m.outcomes != cases.reference for m in cases.mutants)
    assert cases.not_ruled_out == 0 and cases.to_json()["not_ruled_out"] == 0  # (its ensures pins d down)
    env = DafnyEnv([{"id": "double", "program": program, "spec_cases": cases.to_json()}], task_kind="spec",
                   executor=executor)  # fmt: skip
    grade, _ = env.evaluate(env.tasks.get("double"), program)
    assert grade.status is Status.OK and grade.metrics["kill_rate"] == 1.0


# A weak specification: it bounds the result only, so of `+` -> `-` (0) and `+` -> `*` (n * n) it rules
# out the first alone (n * n >= n holds for every nat).
WEAK = "method Twice(n: nat) returns (d: int)\n  ensures d >= n\n{\n  d := n + n;\n}\n"


def test_the_mutants_tool_keeps_only_the_mutants_the_programs_own_specification_rules_out(
    executor: LocalExecutor, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference of a program whose own specification is weak scores kill rate 1 and is
    solved: the mutants it does not rule out (right by that specification) are not held. A
    program whose specification rules out none is named and skipped."""
    (tmp_path / "twice.dfy").write_text(WEAK, encoding="utf-8")
    (tmp_path / "loose.dfy").write_text(WEAK.replace("d >= n", "d >= 0"), encoding="utf-8")  # (all mutants meet it)
    assert mutants.main([str(tmp_path)]) == 1
    assert "loose.dfy: skipped: Twice: its specification rules out none" in capsys.readouterr().err
    assert not (tmp_path / "loose.spec.json").exists()
    data = json.loads((tmp_path / "twice.spec.json").read_text(encoding="utf-8"))
    edits = [m["edit"] for m in data["mutants"]]
    assert edits and "line 4: `+` -> `*`" not in edits  # (`+` -> `-` or deleting `d := n + n;`: 0)
    inputs = data["inputs"]
    assert all(any(o[0] < i[0] for o, i in zip(m["outcomes"], inputs, strict=True)) for m in data["mutants"])
    assert data["not_ruled_out"] >= 1
    env = DafnyEnv([{"id": "twice", "program": WEAK, "spec_cases": data}], task_kind="spec", executor=executor)
    task = env.tasks.get("twice")
    grade, _ = env.evaluate_task(task, task.reference or "")
    assert (grade.status, grade.metrics["kill_rate"], grade.solved) == (Status.OK, 1.0, True), grade.message
    assert env.check_solutions(task) is None


def test_spec_data_with_a_mutant_its_own_specification_allows_is_invalid_with_the_count(
    executor: LocalExecutor,
) -> None:
    """Spec data made elsewhere, holding a mutant the program's own specification does not rule
    out: its reference is not solved, and `check_solutions` (``codegym validate``) says how
    many it rules out and how to remake the data (`mutants.ruled_out` keeps the right ones)."""
    held = (Mutant("`+` -> `-`", ((0,), (0,))), Mutant("`+` -> `*`", ((0,), (9,))))
    cases = SpecCases(signature_of(declarations(WEAK)[0]), ((0,), (3,)), ((0,), (6,)), held)
    env = DafnyEnv([{"id": "twice", "program": WEAK, "spec_cases": cases.to_json()}], task_kind="spec",
                   executor=executor)  # fmt: skip
    task = env.tasks.get("twice")
    grade, _ = env.evaluate_task(task, WEAK)
    assert (grade.status, grade.metrics["killed"], grade.metrics["mutants"], grade.solved) == (Status.OK, 1, 2, False)
    problem = env.check_solutions(task) or ""
    assert "rules out 1 of its 2 held mutants" in problem and "python -m codegym.envs.dafny.mutants" in problem
    kept = mutants.ruled_out(WEAK, cases, executor=executor)
    assert [m.edit for m in kept.mutants] == ["`+` -> `-`"] and kept.not_ruled_out == 1


def test_a_spec_task_without_its_mutants_says_how_to_make_them() -> None:
    with pytest.raises(TaskFormatError, match=r"python -m codegym\.envs\.dafny\.mutants"):
        load_tasks([{"id": "x", "program": "method M() returns (r: int)\n{\n  r := 1;\n}\n"}], "spec")
