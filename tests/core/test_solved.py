"""What "solved" means and where it is counted: every route to a grade records the family's
verdict (`Grade.solved`), and pass@k, ``codegym score``'s results and ``codegym validate``
count it rather than status ``OK``; the score command prints only the pass@k it can compute,
writes per-test outcomes with ``--details`` and a summary by difficulty; a short `Grade` repr;
``hidden_pass_rate`` only where some test is hidden; an unbounded refine episode is warned of.

The families' own definitions are tested in their folders (``tests/envs/*/test_solved.py``)."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation.env import TestGenerationEnv

import codegym
from codegym import core
from codegym.cli import main
from codegym.grade import Grade, Status, TestOutcome, pass_metrics
from codegym.serve.wire import grade_from_dict, grade_to_dict
from codegym.task import TaskSet

VOWELS = "codegym-py/001-count-vowel-runs"


def write_lines(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


# --- the grade --------------------------------------------------------------------------------


def test_hidden_pass_rate_is_there_only_when_some_test_is_hidden() -> None:
    public = [TestOutcome("a", True), TestOutcome("b", False)]
    assert "hidden_pass_rate" not in pass_metrics(public)
    assert pass_metrics(public)["public_pass_rate"] == 0.5
    assert pass_metrics([*public, TestOutcome("h", True, hidden=True)])["hidden_pass_rate"] == 1.0


def test_a_python_task_without_hidden_tests_reports_no_hidden_rate() -> None:
    task = load_tasks("codegym-py").get(VOWELS)
    public_only = dataclasses.replace(task, tests=tuple(t for t in task.tests if not t.hidden))
    env = gym.make("codegym/PythonFunction-v0", tasks=[public_only])
    try:
        observation, _ = env.reset()
        observation, reward, *_, info = env.step(task.reference or "")
        grade = info["grade"]
        assert reward == 1.0 and grade.solved and "hidden_pass_rate" not in grade.metrics
        assert grade.metrics["public_pass_rate"] == 1.0 and observation["pass_rate"][0] == 1.0
        assert "Hidden tests" not in observation["feedback"]
    finally:
        env.close()


def test_the_repr_is_one_short_line_not_every_test() -> None:
    tests = tuple(TestOutcome(f"test_{i:03}", i % 2 == 0, expected="x" * 100, got="y" * 100) for i in range(200))
    grade = Grade(Status.WA, tests=tests, metrics=pass_metrics(tests), message="100 of 200 tests failed", solved=False)
    text = repr(grade)
    assert text.startswith("Grade(WA, '100 of 200 tests failed', solved=False, tests=100/200 passed")
    assert "'pass_rate': 0.5" in text and "test_001" not in text and "\n" not in text and len(text) < 400
    long = Grade(Status.CE, message="e" * 1000, metrics={f"m{i}": float(i) for i in range(20)})
    assert len(repr(long)) < 400 and repr(long).count("...") == 2  # (the message cut, the metrics cut)


def test_the_wire_carries_the_verdict() -> None:
    for solved in (True, False, None):
        grade = Grade(Status.OK, metrics={"similarity": 0.5}, solved=solved)
        assert grade_from_dict(json.loads(json.dumps(grade_to_dict(grade)))).solved is solved


# --- every route records it -------------------------------------------------------------------


def test_step_scorer_and_agent_record_the_verdict() -> None:
    reference = load_tasks("codegym-py").get(VOWELS).reference or ""
    env = gym.make("codegym/PythonFunction-v0")
    try:
        env.reset(options={"task_id": VOWELS})
        *_, info = env.step(reference)
        assert info["grade"].solved is True
        env.reset(options={"task_id": VOWELS})
        *_, info = env.step("def count_vowel_runs(s):\n    return 0\n")
        assert info["grade"].status is Status.WA and info["grade"].solved is False
    finally:
        env.close()
    right, wrong = codegym.score("codegym/PythonFunction-v0", [(VOWELS, reference), (VOWELS, "def f(:\n")])
    assert (right.solved, wrong.solved) == (True, False)


# --- codegym validate ----------------------------------------------------------------------------


def test_validate_calls_a_task_invalid_when_its_reference_is_ok_but_not_solved() -> None:
    """A test-generation task whose own tests kill no mutant (``assert True``) is ``OK`` and
    not solved: its reference cannot show the task can be solved."""
    env = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)])
    try:
        task = env.tasks.get(VOWELS)
        assert codegym.validate(env, runs=1).checks[0].verdict == "valid"
        env.tasks = TaskSet([dataclasses.replace(task, reference="assert True\n")])
        (check,) = codegym.validate(env, runs=1).checks
        assert check.verdict == "invalid" and check.statuses == (Status.OK,)
        assert "not solved by its family's measure (OK)" in check.reason
    finally:
        env.close()


# --- codegym score -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def references() -> dict[str, str]:
    return {t.id: t.reference or "" for t in load_tasks("codegym-py")}


def test_score_prints_only_the_pass_at_k_it_can_compute(tmp_path: Path, references, capsys) -> None:
    samples = write_lines(tmp_path / "s.jsonl", *[{"task_id": VOWELS, "completion": references[VOWELS]}] * 2,
                          {"task_id": "codegym-py/002-rle-encode", "completion": "def rle_encode(s):\n    return 0\n"},
                          {"task_id": "codegym-py/002-rle-encode", "completion": references["codegym-py/002-rle-encode"]})  # fmt: skip
    assert main(["score", str(samples), "--tasks", "codegym-py"]) == 0
    out = capsys.readouterr().out
    assert "pass@1: 0.7500" in out and "pass@2: " not in out
    assert "pass@10" not in out and "pass@100" not in out and "not computed" not in out
    assert "solved: 3 of 4 samples" in out
    assert main(["score", str(samples), "--tasks", "codegym-py", "-k", "1,2,5", "--force"]) == 0
    out = capsys.readouterr().out
    assert "pass@1: 0.7500" in out and "pass@2: 1.0000" in out
    assert "pass@5: not computed: each needs k samples of every task; the fewest a task has is 2" in out


def test_score_details_write_each_tests_expected_and_got(tmp_path: Path, capsys) -> None:
    wrong = "def count_vowel_runs(s):\n    return 0\n"
    samples = write_lines(tmp_path / "s.jsonl", {"task_id": VOWELS, "completion": wrong})
    assert main(["score", str(samples), "--tasks", "codegym-py", "--details"]) == 0
    row = json.loads((tmp_path / "s_results.jsonl").read_text())
    assert row["solved"] is False and row["passed"] is False
    failing = [t for t in row["tests"] if not t["passed"]]
    assert len(row["tests"]) == row["metrics"]["tests_total"] and failing
    assert failing[0]["got"] == "0" and failing[0]["expected"] and failing[0]["name"]
    assert main(["score", str(samples), "--tasks", "codegym-py", "--force"]) == 0
    assert "tests" not in json.loads((tmp_path / "s_results.jsonl").read_text())  # (only with --details)


def test_score_summarises_by_difficulty(tmp_path: Path, references, capsys) -> None:
    tasks = load_tasks("codegym-py")
    easy = [t.id for t in tasks if t.difficulty == "easy"][:2]
    hard = [t.id for t in tasks if t.difficulty == "hard"][:1]
    samples = write_lines(tmp_path / "s.jsonl", *[{"task_id": i, "completion": references[i]} for i in easy],
                          *[{"task_id": i, "completion": "def f(:\n"} for i in hard])  # fmt: skip
    assert main(["score", str(samples), "--tasks", "codegym-py"]) == 0
    out = capsys.readouterr().out
    assert "by difficulty:" in out
    assert "  easy     2 tasks, 2 samples, solved 1.0000, pass@1 1.0000" in out
    assert "  hard     1 tasks, 1 samples, solved 0.0000, pass@1 0.0000" in out
    assert out.index("  easy") < out.index("  hard")


# --- refine mode without a bound ----------------------------------------------------------------


def test_an_unbounded_refine_episode_is_warned_of_once(monkeypatch) -> None:
    monkeypatch.setattr(core, "_warned_unbounded", set())
    env = gym.make("codegym/OutputPrediction-v1", mode="refine")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):  # (a second unbounded episode: no second warning)
                env.reset(seed=0)
                for _ in range(core.UNBOUNDED_REFINE_ATTEMPTS + 1):
                    env.step("'certainly not the output'")
        unbounded = [w for w in caught if "refine" in str(w.message)]
        assert len(unbounded) == 1
        message = str(unbounded[0].message)
        assert "codegym/OutputPrediction-v1" in message and "max_episode_steps=N" in message
    finally:
        env.close()


def test_a_bounded_refine_episode_is_not_warned_of(monkeypatch) -> None:
    monkeypatch.setattr(core, "_warned_unbounded", set())
    env = gym.make("codegym/OutputPrediction-v1", mode="refine", max_episode_steps=3)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                env.reset(seed=0)
                truncated = False
                while not truncated:
                    *_, truncated, _ = env.step("'certainly not the output'")
        assert not [w for w in caught if "refine" in str(w.message)]
    finally:
        env.close()
