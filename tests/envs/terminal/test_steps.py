"""Multi-step Harbor tasks: one machine, step after step, each step graded by its own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegym.executor.rootbox import available

from . import fixtures

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

TOML = """\
version = "1.0"
multi_step_reward_strategy = "{strategy}"

[agent]
timeout_sec = 60.0

[verifier]
timeout_sec = 60.0

[[steps]]
name = "first"
{min_reward}

[[steps]]
name = "second"
"""
TEST_SH = fixtures.TEST_SH.replace("test_outputs.py", "test_step.py")


def _test(path: str, text: str) -> str:
    return (
        "from pathlib import Path\n\n\n"
        f"def test_written():\n    assert Path({path!r}).read_text().strip() == {text!r}\n"
    )


def _steps() -> dict[str, dict[str, str | bytes | None]]:
    return {
        "first": {
            "instruction.md": "Write one to /app/one.txt.\n",
            "tests/test.sh": TEST_SH,
            "tests/test_step.py": _test("/app/one.txt", "one"),
            "solution/solve.sh": "#!/bin/bash\necho one > /app/one.txt\n",
        },
        "second": {
            "instruction.md": "Write the word in /app/word.txt, twice, to /app/two.txt.\n",
            "workdir/word.txt": "hop\n",
            "workdir/setup.sh": "#!/bin/bash\necho prepared > /app/prepared.txt\n",
            "tests/test.sh": TEST_SH,
            "tests/test_step.py": _test("/app/two.txt", "hophop") + _test("/app/prepared.txt", "prepared").split("\n\n\n")[1].replace("test_written", "test_prepared"),
            "solution/solve.sh": "#!/bin/bash\necho \"$(cat word.txt)$(cat word.txt)\" > /app/two.txt\n",
        },
    }  # fmt: skip


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("steps")
    for name, strategy, gate in (("mean", "mean", ""), ("final", "final", ""), ("gated", "mean", "min_reward = 1.0")):
        fixtures.write_harbor_task(root, name, dockerfile=fixtures.DOCKERFILE_APT_ONLY, instruction=None,
                                   toml=TOML.format(strategy=strategy, min_reward=gate), tests={}, solution={},
                                   steps=_steps())  # fmt: skip
    return root


def _single(root: Path, task_id: str, code: str | None = None) -> tuple[float, object]:
    from codegym.envs.terminal.env import TerminalEnv

    env = TerminalEnv(str(root), mode="single")
    try:
        task = env.tasks.get(task_id)
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(task.reference if code is None else code)
        assert terminated
        return reward, info["grade"]
    finally:
        env.close()


def test_the_oracle_passes_every_step(root: Path) -> None:
    for task_id in ("mean", "final", "gated"):
        reward, grade = _single(root, task_id)
        assert reward == 1.0, grade
        assert grade.metrics["steps_passed"] == 2.0  # type: ignore[attr-defined]


def test_half_the_steps_scores_by_the_strategy(root: Path) -> None:
    half = "echo one > /app/one.txt\n"
    assert _single(root, "mean", half)[0] == 0.5
    assert _single(root, "final", half)[0] == 0.0
    second_only = 'echo "$(cat word.txt)$(cat word.txt)" > /app/two.txt\n'  # (the second step's setup ran first)
    assert _single(root, "mean", second_only)[0] == 0.5
    assert _single(root, "gated", second_only)[0] == 0.0  # (the first step is under its min_reward: it ends there)


def test_agent_mode_goes_step_by_step(root: Path) -> None:
    from codegym.envs.terminal.env import TerminalEnv

    env = TerminalEnv(str(root), mode="agent")
    try:
        observation, _ = env.reset(options={"task_id": "mean"})
        assert "Write one to /app/one.txt" in observation["prompt"]
        bash = {"name": "bash", "arguments": {"command": "echo one > /app/one.txt; ls /app"}}
        submit = {"name": "submit", "arguments": {}}
        observation, reward, terminated, _, _ = env.step([bash, submit])
        assert not terminated and reward == 0.5
        assert "[step 2 of 2: second]" in observation["feedback"] and "twice" in observation["feedback"]
        check = {"name": "bash", "arguments": {"command": "cat /app/word.txt /app/prepared.txt"}}
        observation, reward, terminated, _, _ = env.step([check])
        assert "hop\nprepared" in observation["feedback"] and not terminated
        write = {"name": "bash", "arguments": {"command": "echo hophop > /app/two.txt"}}
        observation, reward, terminated, _, info = env.step([write, submit])
        assert terminated and reward == 0.5 and info["grade"].status.value == "OK"
    finally:
        env.close()
