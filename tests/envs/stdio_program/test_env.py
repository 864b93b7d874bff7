"""StdioProgram-v0: bundled problems, loaders, checkers, build cache and hostile builds."""

from __future__ import annotations

import json
import time
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.stdio_program.grader import check
from codegym.envs.stdio_program.tasks import load_tasks

import codegym
from codegym.error import TaskFormatError
from codegym.executor import Limits
from codegym.grade import Status
from codegym.task import TaskSet

ENV = "codegym/StdioProgram-v0"


def test_bundled_problems_are_complete_and_references_pass(executor) -> None:
    tasks = load_tasks("codegym-stdio")
    assert len(tasks) >= 40
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    for task in tasks:
        assert task.reference and task.public_tests and len(task.hidden_tests) >= 10
        assert {t.tier for t in task.hidden_tests} == {"basic", "intermediate", "complex", "edge"}
    grades = codegym.score(ENV, [(t.id, t.reference or "") for t in tasks], executor=executor)
    assert [(t.id, g.status) for t, g in zip(tasks, grades, strict=True) if not g.passed] == []


def test_public_tests_show_excerpts_hidden_only_counts(executor) -> None:
    env = gym.make(ENV, executor=executor)
    obs, info = env.reset(seed=0)
    assert "Write the program in python" in obs["prompt"]
    obs, reward, *_, info = env.step("print(42)\n")
    grade = info["grade"]
    assert reward == 0.0 and grade.status is Status.WA
    public = next(t for t in grade.tests if not t.hidden)
    assert public.call is not None and public.expected is not None and "FAILED test_00" in obs["feedback"]
    assert "Hidden tests: 0/" in obs["feedback"]
    for test in grade.tests:
        if test.hidden:
            assert test.call not in obs["feedback"]


@pytest.mark.parametrize(
    ("checker", "expected", "got", "verdict"),
    [
        ({"kind": "tokens"}, "1 2\n3\n", "1\n2 3", True),
        ({"kind": "tokens"}, "1 2 3", "1 2", False),
        ({"kind": "exact"}, "a b\nc\n", "a b  \nc\n\n", True),
        ({"kind": "exact"}, "a b\nc\n", "a  b\nc\n", False),
        ({"kind": "float", "abs": 1e-6, "rel": 1e-6}, "0.333333333 x", "0.3333333 x", True),
        ({"kind": "float", "abs": 1e-9, "rel": 1e-9}, "0.5", "0.5001", False),
        ({"kind": "float", "abs": 1e-6, "rel": 1e-6}, "1.0", "nan", False),
    ],
)
def test_checkers(checker, expected: str, got: str, verdict: bool) -> None:
    assert check(expected, got, checker) is verdict


def test_builds_are_cached_by_source(executor) -> None:
    env = gym.make(ENV, language="c", executor=executor).unwrapped
    task = env.tasks.get(env.tasks.ids[0])
    code = '#include <stdio.h>\nint main(void) { puts("0"); return 0; }\n'
    first = env.build_job(task, code)
    assert first.steps[0].argv[0] == "gcc" and "main" in first.collect
    env.grade(task, code, env.executor.run(first))
    second = env.build_job(task, code)
    assert len(second.steps) == len(task.tests) and "main" in second.files and second.executables == ("main",)
    assert env.grade(task, code, env.executor.run(second)).status is Status.WA


MACRO_BOMB = "#define A(x) x x x x x x x x x x\n" + "int main() { " + "A(" * 9 + "1;" + ")" * 9 + " }\n"
HUGE_STATIC = "int a[1 << 28] = {1};\nint main(void) { return a[0]; }\n"  # a 1 GiB initialised array


@pytest.mark.parametrize(("language", "bomb"), [("cpp", MACRO_BOMB), ("c", HUGE_STATIC)], ids=["macro", "static-array"])
def test_compiler_bomb_is_ce_within_its_limit(executor, language: str, bomb: str) -> None:
    limits = Limits(
        cpu_s=2, wall_s=3, memory_bytes=256 << 20, processes=16, disk_bytes=64 << 20, file_size_bytes=32 << 20
    )
    env = gym.make(ENV, language=language, executor=executor, compile_limits=limits)
    env.reset(seed=0)
    started = time.monotonic()
    _, reward, *_, info = env.step(bomb)
    assert (reward, info["status"]) == (0.0, "CE") and time.monotonic() - started < limits.wall_s + 1.0
    assert "exceeded its limits" in info["grade"].message or info["grade"].diagnostics


def test_build_side_effects_leave_nothing_behind(executor) -> None:
    env = gym.make(ENV, language="python", executor=executor)
    env.reset(seed=0)
    env.step("import os\nopen('/tmp/left-behind', 'w').write('x')\nopen('/sandbox/left-behind', 'w').write('x')\n")
    env.reset(seed=0)
    _, _, _, _, info = env.step(
        "import os\nprint(int(os.path.exists('/tmp/left-behind') or os.path.exists('/sandbox/left-behind')))\n"
    )
    outputs = {t.got.strip() for t in info["grade"].tests if t.got is not None}
    assert outputs == {"0"}


def test_public_formats_load(tmp_path: Path) -> None:
    apps = {
        "problem_id": 7,
        "question": "Sum.",
        "input_output": json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}),
    }
    lcb = {
        "question_id": "abc1",
        "question_content": "Echo.",
        "public_test_cases": json.dumps([{"input": "a\n", "output": "a\n", "testtype": "stdin"}]),
        "private_test_cases": json.dumps([{"input": "b\n", "output": "b\n", "testtype": "stdin"}]),
    }
    plain = {
        "task_id": "p1",
        "prompt": "Twice.",
        "tests": [{"input": "2\n", "output": "4\n"}],
        "checker": {"kind": "exact"},
    }
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (apps, lcb, plain)) + "\n")
    tasks = load_tasks(path)
    assert tasks.ids == ("7", "abc1", "p1")
    assert [t.hidden for t in tasks.get("abc1").tests] == [False, True]
    assert tasks.get("p1").metadata["checker"] == {"kind": "exact"}
    bad = tmp_path / "call.json"
    bad.write_text(
        json.dumps([{"problem_id": 1, "question": "q", "input_output": {"fn_name": "f", "inputs": [], "outputs": []}}])
    )
    with pytest.raises(TaskFormatError, match="call-based"):
        load_tasks(bad)


def test_unknown_language_names_the_configured_ones(executor) -> None:
    with pytest.raises(ValueError, match=r"unknown language 'cobol'.*python"):
        gym.make(ENV, language="cobol", executor=executor)
    assert isinstance(load_tasks("codegym-stdio"), TaskSet)


def test_program_checker_runs_apart_and_decides(executor) -> None:
    checker = "import sys\nn = int(open(sys.argv[1]).read())\ngot = open(sys.argv[3]).read().split()\nsys.exit(0 if len(got) == 2 and int(got[0]) + int(got[1]) == n else 1)\n"
    record = {"task_id": "split", "prompt": "Print two integers summing to n.", "checker": {"kind": "program", "source": checker},
              "tests": [{"input": "5\n", "output": "2 3\n"}, {"input": "10\n", "output": "5 5\n"}]}  # fmt: skip
    from codegym.envs.stdio_program.tasks import task_from

    tasks = TaskSet([task_from(record)])
    env = gym.make(ENV, tasks=tasks, executor=executor)
    env.reset(seed=0)
    _, reward, _, _, info = env.step("n = int(input())\nprint(n - 1, 1)\n")  # any valid split passes
    assert reward == 1.0 and [t.status for t in info["grade"].tests] == ["OK", "OK"]
    env.reset(seed=0)
    _, reward, _, _, info = env.step("n = int(input())\nprint(n, 1)\n")
    assert reward == 0.0 and info["status"] == "WA"
    with pytest.raises(TaskFormatError, match="needs its Python 'source'"):
        task_from({**record, "checker": {"kind": "program"}})


def test_per_test_status_and_memory(executor) -> None:
    env = gym.make(ENV, executor=executor)
    env.reset(seed=0)
    info = env.step("import sys\nsys.exit(3)\n")[4]
    first = info["grade"].tests[0]
    assert first.status == "RE" and first.memory_bytes is not None
