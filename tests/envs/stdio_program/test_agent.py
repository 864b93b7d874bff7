"""Agent mode of the StdioProgram family: the workspace (statement, stub, public tests,
./run_tests), episodes from reference to reward in Python and C, the stub's zero, malformed
calls, every language's stub and runner, and what the workspace never holds."""

from __future__ import annotations

import base64
import json
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.stdio_program.env import StdioProgramEnv
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401
from codegym.executor import Executor, Limits
from codegym.task import Task, TaskSet, TestCase

from .programs import PROGRAMS

ENV = "codegym/StdioProgram-v0"
HEADLINE = "stdio/002-headline-case"  # an exact checker, one public test
FENCE = "stdio/012-fence-perimeter"  # a float checker, two public tests
PALINDROMES = "stdio/010-clean-palindromes"  # hidden inputs full of distinctive lines
A_PLUS_B = Task(
    id="stdio/a-plus-b",
    family="StdioProgram",
    prompt="Read two integers a and b; print a + b.",
    tests=(
        TestCase("test_00", "2 3\n", hidden=False, expected="5\n"),
        TestCase("test_01", "-4 10\n", hidden=False, expected="6\n"),
        TestCase("test_02", "1000000000000 1\n", expected="1000000000001\n"),
        TestCase("test_03", "-7 -8\n", expected="-15\n"),
    ),
    reference=PROGRAMS["c"]["ok"],
    language="c",
    metadata={"checker": {"kind": "tokens"}},
)


def make(executor: Executor, **options: Any) -> StdioProgramEnv:
    env = gym.make(ENV, mode="agent", executor=executor, **options).unwrapped
    assert isinstance(env, StdioProgramEnv)
    return env


def call(name: str, **arguments: Any) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def bash(env: StdioProgramEnv, command: str) -> dict[str, Any]:
    _, reward, terminated, truncated, info = env.step(call("bash", command=command))
    assert (reward, terminated, truncated, info["format_errors"]) == (0.0, False, False, 0)
    return info["tool_results"][0]


def test_the_workspace_holds_statement_stub_public_tests_and_runner(executor: Executor) -> None:
    env = make(executor)
    _, info = env.reset(options={"task_id": FENCE})
    task = env.task
    assert task is not None and len(task.public_tests) == 2
    setup = env.agent_setup(task)
    assert set(setup.files) == {"TASK.md", "main.py", "run_tests", "tests/1.in", "tests/1.out", "tests/2.in",
                                "tests/2.out"}  # fmt: skip
    assert (setup.submission, setup.executables) == ("main.py", ("run_tests",))
    assert setup.files["tests/2.in"] == (task.public_tests[1].code or "").encode()
    assert setup.files["tests/2.out"] == (task.public_tests[1].expected or "").encode()
    assert b"in python, in main.py" in setup.files["TASK.md"]
    assert setup.files["run_tests"].startswith(b"#!/usr/bin/env python3\n")
    listing = bash(env, "ls -R . | sort; test -x run_tests && echo executable")["content"]
    assert {"TASK.md", "main.py", "run_tests", "1.in", "2.out", "executable"} <= set(listing.split())
    env.close()
    c = make(executor, language="c")
    observation, _ = c.reset(options={"task_id": FENCE})
    assert c.agent_setup(task).submission == "main.c" and "Write the program in main.c" in observation["prompt"]
    assert b"int main(void)" in c.agent_setup(task).files["main.c"]
    c.close()


@pytest.mark.parametrize(
    ("language", "task_id", "tests"),
    [("python", FENCE, 2), ("python", HEADLINE, 1), ("c", A_PLUS_B.id, 2)],
    ids=["python-float", "python-exact", "c"],
)
def test_the_reference_written_with_tools_passes_run_tests_and_gets_reward_one(
    executor: Executor, language: str, task_id: str, tests: int
) -> None:
    env = make(executor, language=language, tasks="codegym-stdio" if language == "python" else TaskSet([A_PLUS_B]))
    env.reset(options={"task_id": task_id})
    assert env.task is not None and env.task.reference
    file = env.language.file
    _, reward, terminated, _, info = env.step(call("str_replace_editor", command="create", path=file,
                                                   file_text=env.task.reference))  # fmt: skip
    assert (reward, terminated, info["format_errors"]) == (0.0, False, 0) and info["tool_results"][0]["exit_code"] == 0
    result = bash(env, "./run_tests")
    assert result["exit_code"] == 0 and f"{tests} of {tests} tests passed" in result["content"]
    assert [line for line in result["content"].splitlines() if line.startswith(("PASS", "FAIL"))] == [
        f"PASS {i}" for i in range(1, tests + 1)
    ]
    observation, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (1.0, True, False, "OK")
    assert info["code"] == env.task.reference and "all" in observation["feedback"]
    env.close()


@pytest.mark.parametrize("language", ["python", "c"])
def test_the_stub_submitted_unchanged_gets_zero(executor: Executor, language: str) -> None:
    env = make(executor, language=language)
    env.reset(options={"task_id": FENCE})
    _, reward, terminated, truncated, info = env.step(call("submit"))
    assert (reward, terminated, truncated, info["status"]) == (0.0, True, False, "WA")
    assert info["code"] == env.agent_setup(env.task).files[env.language.file].decode()  # type: ignore[arg-type]
    env.close()


def test_run_tests_shows_what_failed_and_runs_chosen_tests(executor: Executor) -> None:
    limits = Limits(cpu_s=1.0, wall_s=1.0, memory_bytes=256 << 20, processes=16)
    env = make(executor, language="c", tasks=TaskSet([A_PLUS_B]), limits=limits)
    env.reset(options={"task_id": A_PLUS_B.id})
    stub = bash(env, "./run_tests")
    assert (
        stub["exit_code"] == 1
        and "FAIL 1: wrong answer\n--- input\n2 3\n--- expected\n5\n--- got\n(nothing)" in (stub["content"])
    )
    assert stub["content"].endswith("0 of 2 tests passed")
    crash = bash(env, f"printf '%s' '{PROGRAMS['c']['re']}' > main.c; ./run_tests 2")
    assert crash["exit_code"] == 1 and "FAIL 2: killed by signal" in crash["content"]
    assert "FAIL 1" not in crash["content"] and crash["content"].endswith("0 of 1 tests passed")
    broken = bash(env, f"printf '%s' '{PROGRAMS['c']['ce']}' > main.c; ./run_tests")
    assert broken["exit_code"] == 1 and "COMPILE ERROR: exit status 1" in broken["content"]
    assert "main.c:2:" in broken["content"]
    endless = bash(env, f"printf '%s' '{PROGRAMS['c']['tle']}' > main.c; ./run_tests 1")
    assert endless["exit_code"] == 1 and "FAIL 1: timed out after 1.0 s" in endless["content"]
    env.step(call("str_replace_editor", command="create", path="main.c", file_text=PROGRAMS["c"]["ok"]))
    mine = bash(env, "printf '40 2\\n' > tests/mine.in; ./run_tests mine 1; ./run_tests nothing")
    assert "RAN mine: not compared (no tests/mine.out)" in mine["content"] and "--- got\n42" in mine["content"]
    assert "PASS 1" in mine["content"] and "FAIL nothing: no tests/nothing.in" in mine["content"]
    env.close()


def test_malformed_calls_get_a_helpful_observation(executor: Executor) -> None:
    env = make(executor)
    env.reset(options={"task_id": FENCE})
    action = '<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>' + call("compile", path="main.py")
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_errors"] == 2 and info["tool_results"] == []
    assert "JSON" in observation["feedback"] and "compile" in observation["feedback"]
    assert "str_replace_editor" in observation["feedback"]  # (the tools there are)
    env.close()


def test_the_workspace_never_holds_a_hidden_test(executor: Executor) -> None:
    env = make(executor)
    env.reset(options={"task_id": PALINDROMES})
    task = env.task
    assert task is not None
    seen = task.prompt + "".join((t.code or "") + (t.expected or "") for t in task.public_tests)
    lines = {line for t in task.hidden_tests for line in (t.code or "").splitlines() if line not in seen}
    needle = max(lines, key=len)
    assert len(needle) >= 12
    files = env.agent_setup(task).files
    for test in task.hidden_tests:
        assert all((test.code or "").encode() not in content for content in files.values())
    assert all(needle.encode() not in content for content in files.values())
    public = (task.public_tests[0].code or "").splitlines()[1]  # (the control: this one is there)
    assert sorted(grep(env, public)) == ["./TASK.md", "./tests/1.in", "grep exit 0"]
    assert grep(env, needle) == ["grep exit 1"]
    env.close()


def grep(env: StdioProgramEnv, text: str) -> list[str]:
    """The files of the work dir and /tmp that hold ``text``, and grep's exit status."""
    # (the text travels encoded: a command line kept in the workspace must not hold it)
    encoded = base64.b64encode(text.encode()).decode()
    return bash(env, f'grep -rlF -e "$(echo {encoded} | base64 -d)" . /tmp; echo "grep exit $?"')[
        "content"
    ].splitlines()


def test_a_program_checker_stays_out_and_its_outputs_are_shown_not_compared(executor: Executor) -> None:
    checker = "import sys\nSECRET_CHECKER_MARK = 1\nsys.exit(0)\n"
    task = Task(
        id="any-split",
        family="StdioProgram",
        prompt="Print two integers summing to n.",
        tests=(
            TestCase("test_00", "5\n", hidden=False, expected="2 3\n"),
            TestCase("test_01", "4\n", expected="2 2\n"),
        ),
        metadata={"checker": {"kind": "program", "source": checker}},
    )
    env = make(executor, tasks=TaskSet([task]))
    env.reset(options={"task_id": task.id})
    assert all(b"SECRET_CHECKER_MARK" not in content for content in env.agent_setup(task).files.values())
    env.step(call("str_replace_editor", command="create", path="main.py", file_text="print(1, int(input()) - 1)\n"))
    result = bash(env, "./run_tests")
    assert result["exit_code"] == 0 and "RAN 1: not compared (any valid answer" in result["content"]
    assert "--- got\n1 4" in result["content"] and result["content"].endswith("0 of 1 tests passed (1 not compared)")
    env.close()


@pytest.mark.parametrize(
    "language",
    sorted(PROGRAMS),
)
def test_every_language_builds_its_stub_and_run_tests_passes_a_correct_program(
    executor: Executor, language: str
) -> None:
    env = make(executor, language=language, tasks=TaskSet([A_PLUS_B]))
    env.reset(options={"task_id": A_PLUS_B.id})
    stub = bash(env, "./run_tests")
    assert stub["exit_code"] == 1 and "FAIL 1: wrong answer" in stub["content"], stub["content"]
    env.step(call("str_replace_editor", command="create", path=env.language.file, file_text=PROGRAMS[language]["ok"]))
    result = bash(env, "./run_tests")
    assert result["exit_code"] == 0 and result["content"].endswith("2 of 2 tests passed"), result["content"]
    env.close()


def test_agent_mode_passes_the_env_checker(executor: Executor) -> None:
    env = make(executor)
    check_env(env, skip_render_check=True)
    env.close()
