"""TestGeneration-v1: tests scored by the mutants they kill, judged in the sandbox."""

from __future__ import annotations

import dataclasses
import json

import gymnasium as gym
import pytest
from codegym.envs.python_function.tasks import load_tasks
from codegym.envs.test_generation.env import TestGenerationEnv
from codegym.envs.test_generation.matrix import pass_fail_matrix
from codegym.envs.test_generation.tasks import own_tests

import codegym
from codegym.grade import Status

VOWELS = "codegym-py/001-count-vowel-runs"
HUMANEVAL = ["HumanEval/0", "HumanEval/2", "HumanEval/12", "HumanEval/13", "HumanEval/35", "HumanEval/52",
             "HumanEval/55", "HumanEval/60", "HumanEval/101", "HumanEval/120"]  # fmt: skip


@pytest.fixture(scope="module")
def env() -> TestGenerationEnv:
    functions = load_tasks("codegym-py")
    made = TestGenerationEnv([functions.get(VOWELS)], show_reference=True)
    yield made
    made.close()


def grade_of(env: TestGenerationEnv, code: str, task_id: str = VOWELS):
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(code)
    return reward, info["grade"]


def test_the_tasks_own_tests_are_valid_and_kill_every_mutant(env: TestGenerationEnv) -> None:
    reward, grade = grade_of(env, env.tasks.get(VOWELS).reference or "")
    assert grade.status is Status.OK and grade.metrics["valid"] == 1.0
    assert len(env.pool(VOWELS)) >= 10
    assert reward == grade.metrics["kill_rate"] == 1.0


def test_assert_true_is_valid_and_kills_none(env: TestGenerationEnv) -> None:
    reward, grade = grade_of(env, "assert True\n")
    assert (grade.status, grade.metrics["valid"], grade.metrics["kill_rate"], reward) == (Status.OK, 1.0, 0.0, 0.0)


def test_a_test_asserting_a_wrong_value_is_invalid(env: TestGenerationEnv) -> None:
    reward, grade = grade_of(env, "assert count_vowel_runs('beautiful') == 3\nassert count_vowel_runs('aa') == 2\n")
    assert grade.status is Status.WA and grade.metrics["valid"] == 0.0 and reward == 0.0
    assert [t.passed for t in grade.tests] == [True, False]
    assert "line 2" in (grade.tests[1].trace or "")


def test_pytest_style_tests_run(env: TestGenerationEnv) -> None:
    code = """
import pytest

@pytest.mark.parametrize("text, runs", [("", 0), ("ab", 1), ("aeb", 1), ("abe", 2)])
def test_runs(text, runs):
    assert candidate(text) == runs

class TestCase:
    def test_upper(self):
        assert count_vowel_runs("AbE") == 2

def test_type():
    with pytest.raises(AttributeError):
        count_vowel_runs(None)
"""
    reward, grade = grade_of(env, code)
    names = [t.name for t in grade.tests]
    assert names == ["test_runs[0]", "test_runs[1]", "test_runs[2]", "test_runs[3]", "TestCase.test_upper", "test_type"]
    assert grade.status is Status.OK and 0.0 < reward <= 1.0


@pytest.mark.parametrize(
    "probe",
    [
        "'for ' in inspect.getsource(count_vowel_runs)",
        "count_vowel_runs.__code__.co_filename == 'program.py'",
        "count_vowel_runs.__module__ == 'solution'",
        "'vowel' in repr(count_vowel_runs.__code__.co_consts)",
        "any('for ch in' in open(p).read() for p in os.listdir('.'))",
        "id(count_vowel_runs) % 2 == 0",
        "SOURCE in scan_processes()",
        "SOURCE in scan_own_memory()",
        "not os.path.exists('/tmp/seen') and open('/tmp/seen', 'w').close() is None",
    ],
)
def test_a_test_that_inspects_the_function_kills_nothing_it_could_not_kill_honestly(
    env: TestGenerationEnv, probe: str
) -> None:
    source = str(env.tasks.get(VOWELS).metadata["program"])
    code = f"""
import gc, inspect, os
SOURCE = {source!r}

def scan_processes():
    found = ""
    for pid in os.listdir("/proc"):
        for part in ("mem", "cmdline", "environ", "maps"):
            try:
                with open(f"/proc/{{pid}}/{{part}}", "rb") as handle:
                    found += handle.read(1 << 20).decode("latin-1")
            except Exception:
                pass
    return found

def scan_own_memory():
    return "".join(o for o in gc.get_objects() if isinstance(o, str) and o != SOURCE)

def test_probe():
    try:
        seen = {probe}
    except Exception:
        seen = False
    assert seen
"""
    reward, grade = grade_of(env, code)
    assert reward == 0.0, grade.feedback()
    assert grade.metrics["kill_rate"] == 0.0


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n", Status.RE),
        ("import sys\nsys.exit(0)\n", Status.WA),
        ("import os\nos._exit(0)\n", Status.RE),
        ("def test_spin():\n    while True:\n        pass\n", Status.TLE),
        ("print('x' * (1 << 25))\nassert True\n", Status.OLE),
        # the tests cannot start processes (nothing of one run lives on into the next)
        ("import os\nif os.fork() == 0:\n    import time\n    time.sleep(60)\nassert True\n", Status.WA),
    ],
)
def test_hostile_tests_are_judged_by_what_they_do(env: TestGenerationEnv, code: str, status: Status) -> None:
    reward, grade = grade_of(env, code)
    assert grade.status is status, grade.feedback()
    assert reward == 0.0


def test_the_pass_fail_matrix_matches_each_pair_run_alone(env: TestGenerationEnv) -> None:
    task = env.tasks.get(VOWELS)
    suites = [task.reference or "", "assert True\n", "assert candidate('aa') == 1\nassert candidate('') == 0\n",
              "assert candidate('x') == 5\n", "def broken(:\n"]  # fmt: skip
    programs = [str(task.metadata["program"]), *(m.program for m in env.pool(VOWELS)[:5])]
    matrix = env.matrix(VOWELS, suites, programs)
    alone = [[pass_fail_matrix([s], [p], "count_vowel_runs").passed[0, 0] for p in programs] for s in suites]
    assert matrix.shape == (5, 6)
    assert matrix.passed.tolist() == alone
    assert matrix.passed[1].all() and not matrix.passed[3].any() and not matrix.passed[4].any()
    assert matrix.runs[4][0].status is Status.CE


def test_a_hostile_program_never_reads_the_tests() -> None:
    program = """
import gc, os

def leak():
    text = ""
    for root in (".", "/tmp"):
        for name in os.listdir(root):
            try:
                text += open(os.path.join(root, name)).read()
            except Exception:
                pass
    for pid in os.listdir("/proc"):
        for part in ("mem", "cmdline", "environ"):
            try:
                text += open(f"/proc/{pid}/{part}", "rb").read(1 << 20).decode("latin-1")
            except Exception:
                pass
    text += "".join(o for o in gc.get_objects() if isinstance(o, str))
    return "TOKEN" + "-4242" in text
"""
    matrix = pass_fail_matrix(["assert leak() is False  # TOKEN-4242\n"], [program], "leak")
    assert matrix.passed.tolist() == [[True]], matrix.runs[0][0]


def test_humaneval_own_tests_kill_at_least_90_percent_and_assert_true_none() -> None:
    functions = load_tasks("humaneval")
    env = TestGenerationEnv([functions.get(i) for i in HUMANEVAL])
    scorer = codegym.Scorer(env)
    own = scorer.score([(i, env.tasks.get(i).reference or "") for i in HUMANEVAL])
    trivial = scorer.score([(i, "assert True\n") for i in HUMANEVAL])
    assert all(g.metrics["valid"] == 1.0 for g in own), [g.message for g in own]
    assert sum(g.metrics["kill_rate"] for g in own) / len(own) >= 0.9
    assert all(g.metrics["valid"] == 1.0 and g.metrics["kill_rate"] == 0.0 for g in trivial)
    assert sum(len(env.pool(i)) >= 10 for i in HUMANEVAL) >= 7  # (HumanEval/2 is one line: it allows one)
    env.close()


def test_refine_ends_when_every_mutant_is_killed(env: TestGenerationEnv) -> None:
    refine = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], mode="refine")
    refine.reset()
    _, _, terminated, _, _ = refine.step("assert True\n")
    assert not terminated
    _, reward, terminated, _, _ = refine.step(refine.tasks.get(VOWELS).reference or "")
    assert terminated and reward == 1.0
    refine.close()


def test_coverage_and_reward_weights() -> None:
    functions = [load_tasks("codegym-py").get(VOWELS)]
    with pytest.raises(ValueError, match="coverage=True"):
        TestGenerationEnv(functions, reward_weights={"coverage": 1.0})
    env = TestGenerationEnv(functions, coverage=True, reward_weights={"kill_rate": 0.5, "coverage": 0.5})
    low = grade_of(env, "assert count_vowel_runs('') == 0\n")
    full = grade_of(env, env.tasks.get(VOWELS).reference or "")
    assert 0.0 < low[1].metrics["coverage"] < full[1].metrics["coverage"] == 1.0
    assert full[0] == 1.0 and 0.0 < low[0] < 1.0
    assert set(low[1].reward_components) == {"kill_rate", "coverage"}
    env.close()


def test_survivors_are_shown_as_diffs_or_hidden(env: TestGenerationEnv) -> None:
    _, grade = grade_of(env, "assert count_vowel_runs('') == 0\n")
    assert "survived" in grade.feedback() and "@@" in grade.feedback()
    hidden = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], show_survivors=False)
    _, grade = grade_of(hidden, "assert count_vowel_runs('') == 0\n")
    assert "survived" in grade.feedback() and "@@" not in grade.feedback()
    hidden.close()


def test_agent_runs_its_tests_against_the_shown_reference_then_submits() -> None:
    env = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], mode="agent", show_reference=True)
    env.reset()
    tests = "assert count_vowel_runs('aeb') == 1\nassert count_vowel_runs('') == 0\n"
    write = {"name": "bash", "arguments": {"command": f"cat > test_solution.py <<'EOF'\n{tests}EOF\n./run_tests"}}
    obs, _, _, _, info = env.step([write])
    assert "2 of 2 tests passed on solution.py" in obs["feedback"]
    _, reward, terminated, _, info = env.step([{"name": "submit", "arguments": {}}])
    assert terminated and info["grade"].metrics["valid"] == 1.0 and reward == info["grade"].metrics["kill_rate"] > 0
    env.close()
    blind = TestGenerationEnv([load_tasks("codegym-py").get(VOWELS)], mode="agent")
    blind.reset()
    obs, *_ = blind.step([{"name": "bash", "arguments": {"command": "ls"}}])
    assert "solution.py" not in obs["feedback"].replace("test_solution.py", "")
    blind.close()


def test_score_and_groups_through_the_registered_id() -> None:
    grades = codegym.score("codegym/TestGeneration-v1", [(VOWELS, "assert True"), (VOWELS, "x = (")])
    assert [g.status for g in grades] == [Status.OK, Status.CE]
    env = gym.make("codegym/TestGeneration-v1")
    assert {t.difficulty for t in env.unwrapped.tasks} <= {"easy", "medium", "hard"}
    env.close()


def test_the_command_line_scores_a_samples_file(tmp_path, capsys) -> None:
    from codegym.cli import main

    samples = tmp_path / "tests.jsonl"
    own = own_tests(load_tasks("codegym-py").get(VOWELS))
    rows = [{"task_id": VOWELS, "completion": own}, {"task_id": VOWELS, "completion": "assert True"}]
    samples.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    assert main(["score", str(samples), "--env", "codegym/TestGeneration-v1", "--tasks", "codegym-py", "-k", "1"]) == 0
    results = [json.loads(line) for line in (tmp_path / "tests_results.jsonl").read_text().splitlines()]
    assert [(r["status"], r["reward"], r["metrics"]["kill_rate"]) for r in results] == [
        ("OK", 1.0, 1.0),
        ("OK", 0.0, 0.0),
    ]
    assert "mean reward: 0.5000" in capsys.readouterr().out


def test_a_task_whose_reference_fails_its_tests_costs_only_its_own_submissions() -> None:
    good = load_tasks("codegym-py").get(VOWELS)
    broken = dataclasses.replace(good, id="broken/vowels", reference=good.reference.replace("runs += 1", "runs += 2"))
    env = TestGenerationEnv([good, broken])
    grades = codegym.Scorer(env).score([(VOWELS, "assert True"), ("broken/vowels", "assert True")] * 3)
    assert [g.status for g in grades] == [Status.OK, Status.IE] * 3
    assert "its reference fails its own tests" in grades[1].message
    assert env.invalid_tasks == {"broken/vowels": grades[1].message.split(": ", 1)[1]}
    env.close()


def test_a_difficulty_curriculum_reads_the_tasks_difficulty() -> None:
    from codegym.wrappers.curriculum import DifficultyCurriculum

    functions = load_tasks("codegym-py")
    chosen = [next(t for t in functions if t.difficulty == d and t.reference) for d in ("easy", "medium", "hard")]
    env = DifficultyCurriculum(gym.make("codegym/TestGeneration-v1", tasks=chosen), order="easy_to_hard",
                               episodes_per_stage=2)  # fmt: skip
    env.reset(seed=0)
    seen = []
    for _ in range(6):
        seen.append(env.reset()[1]["difficulty"])
        env.step("assert True")  # (a stage is episodes that ended)
    assert seen == ["easy"] * 2 + ["medium"] * 2 + ["hard"] * 2
    env.close()
