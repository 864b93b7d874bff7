"""WhyML-v0 on real Why3 runs: bundled modules, cheats the gate, the refinement check and the
canary stop, feedback, timeouts, loaders and agent mode."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium as gym
from codegym.envs.whyml import grader
from codegym.envs.whyml.env import WhyMLEnv
from codegym.envs.whyml.program import PROGRAM, assemble
from codegym.envs.whyml.tasks import DATA, load_tasks

from codegym.batch import Scorer
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.verifier import GateReport, check
from codegym.verifier.why3 import LIMITS

SUM = "codegym-whyml/sum-to"


def test_bundled_references_verify_and_no_module_verifies_as_given(env: WhyMLEnv) -> None:
    """Every third bundled module (the whole set: `codegym validate codegym/WhyML-v0`)."""
    assert len(env.tasks) >= 30
    tasks = list(env.tasks)[::3]
    with Scorer(env, dedupe=False) as scorer:
        references = scorer.score([(t.id, t.reference or "") for t in tasks])
        given = scorer.score([(t.id, str(t.metadata["given"])) for t in tasks])
    assert all(g.status is Status.OK for g in references), [
        (t.id, g.message) for t, g in zip(tasks, references, strict=True)
    ]
    assert not any(g.status is Status.OK for g in given), [(t.id, g.message) for t, g in zip(tasks, given, strict=True)]
    assert all(t.metadata["hints"] > 0 for t in tasks)


def test_an_axiom_is_refused_and_one_smuggled_past_the_gate_trips_the_canary(
    env: WhyMLEnv, executor: LocalExecutor
) -> None:
    task = env.tasks.get(SUM)
    smuggled = (task.reference or "").replace("  use ref.Ref", "  use ref.Ref\n  axiom bad: false")
    grade, _ = env.evaluate(task, smuggled)
    assert grade.status is Status.HACK and "axiom" in grade.message and "line 4" in grade.message
    assembly = assemble(None, str(task.metadata["spec"]), smuggled)  # (as if the gate had missed it)
    report = check(env.verifier, {PROGRAM: assembly.text}, executor, LIMITS)
    assert report.outcome_of("canary") == "verified"
    verdict = grader.grade(GateReport(), assembly, report)
    assert verdict.status is Status.HACK and "canary" in verdict.message


def test_a_weakened_contract_does_not_refine_the_specification(env: WhyMLEnv) -> None:
    task = env.tasks.get(SUM)
    weak = (task.reference or "").replace("ensures { 2 * result = n * (n + 1) }", "ensures { result >= 0 }")
    weak = weak.replace("invariant { 2 * !s = (i - 1) * i }", "invariant { !s >= 0 }")
    grade, _ = env.evaluate(task, weak)
    assert grade.status is Status.WA and "sum_to'refn'vc" in grade.message
    assert any(d.file == "spec" and "ensures { 2 * result = n * (n + 1) }" in d.message for d in grade.diagnostics)


def test_feedback_points_at_the_answers_own_lines(env: WhyMLEnv) -> None:
    task = env.tasks.get(SUM)
    grade, _ = env.evaluate(task, str(task.metadata["given"]))
    assert grade.status in (Status.WA, Status.TLE) and env.reward_of(grade) == 0.0
    errors = [d for d in grade.diagnostics if d.file == "answer"]
    assert errors and errors[0].line == 7 and "ensures { 2 * result = n * (n + 1) }" in errors[0].message
    broken, _ = env.evaluate(task, (task.reference or "").replace(":= !s + i", ":= !s +"))
    assert broken.status is Status.CE and broken.diagnostics[0].line == 12


def test_a_verifier_stopped_by_its_limits_is_a_timeout_not_a_pass(executor: LocalExecutor) -> None:
    env = WhyMLEnv(executor=executor, limits=replace(LIMITS, wall_s=0.3, cpu_s=0.3))
    task = env.tasks.get(SUM)
    grade, _ = env.evaluate(task, task.reference or "")
    assert grade.status is not Status.OK and env.reward_of(grade) == 0.0


def test_rows_and_folders_load(tmp_path: Path) -> None:
    text = (DATA / "codegym-whyml" / "power.mlw").read_text()
    (row,) = load_tasks([{"id": "p", "program": text}])
    assert (
        row.metadata["defs"]
        and row.metadata["functions"] == ("compute_power",)
        and "variant" not in row.metadata["given"]
    )
    (tmp_path / "mine.mlw").write_text(text)
    (task,) = load_tasks(tmp_path)
    assert task.id == f"{tmp_path.name}/mine" and task.reference and "Raise x to the power n" in task.prompt


def test_agent_mode_verifies_the_workspace_file_and_submit_grades_it() -> None:
    env = gym.make("codegym/WhyML-v0", mode="agent")
    try:
        env.reset(options={"task_id": SUM})
        task: Any = env.unwrapped.task  # type: ignore[attr-defined]
        observation, reward, terminated, _, info = env.step({"name": "verify", "arguments": {}})
        assert (reward, terminated, info["tool_results"][0]["exit_code"]) == (0.0, False, 1)
        edit = {"name": "str_replace_editor", "arguments": {"command": "create", "path": "program.mlw",
                                                               "file_text": task.reference}}  # fmt: skip
        observation, _, _, _, _ = env.step([edit, {"name": "verify", "arguments": {}}])
        assert "Status: OK" in observation["feedback"]
        _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
        assert (reward, terminated, info["status"]) == (1.0, True, "OK")
    finally:
        env.close()
