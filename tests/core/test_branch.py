"""Snapshot, restore and fork of live episodes (codegym.episodes.branch): a branch's next
observation and final grade equal a fresh replay of the same prefix, branches never see each
other's files, and every wrapper's state travels with them."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from codegym.episodes import RecordEpisodes, fork, read_episodes, release, restore, snapshot
from codegym.episodes.tree import read_tree, rollout_tree
from codegym.executor import Executor

AGENT_TASK = "codegym-py/001-count-vowel-runs"


def make(executor: Executor, tasks: str = "codegym-py", **kwargs: Any) -> gym.Env:
    return gym.make("codegym/PythonFunction-v0", tasks=tasks, executor=executor, **kwargs)


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def bash(command: str) -> str:
    return call("bash", command=command)


def comparable(observation: dict[str, Any]) -> dict[str, Any]:
    return {key: value.tolist() if isinstance(value, np.ndarray) else value for key, value in observation.items()}


def outcome(step: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a replay must reproduce of a step: the observation, reward, flags and verdict."""
    observation, reward, terminated, truncated, info = step
    grade = info.get("grade")
    verdict = None if grade is None else (grade.status, tuple((t.name, t.passed) for t in grade.tests))
    return comparable(observation), reward, terminated, truncated, verdict


def test_restore_rewinds_the_workspace_the_budgets_and_the_step_count(executor: Executor) -> None:
    env = make(executor, mode="agent", max_episode_steps=5)
    env.reset(options={"task_id": AGENT_TASK})
    env.step(bash("echo kept > notes.txt"))
    taken = snapshot(env)
    env.step(bash("echo lost >> notes.txt && rm solution.py"))
    env.step(bash("true"))
    restore(env, taken)
    observation, *_ = env.step(bash("cat notes.txt; ls"))
    assert "kept\n" in observation["feedback"] and "lost" not in observation["feedback"]
    assert "solution.py" in observation["feedback"]
    assert env.get_wrapper_attr("_episode").calls == 2  # (one before the snapshot, this one)
    env.step(bash("true"))
    env.step(bash("true"))
    *_, truncated, _ = env.step(bash("true"))  # (TimeLimit's count came back too: step 5 of 5)
    assert truncated
    release(env, taken)
    env.close()


def test_forks_go_on_independently_and_each_is_graded_on_its_own(executor: Executor) -> None:
    env = make(executor, mode="agent", max_episode_steps=10)
    env.reset(options={"task_id": AGENT_TASK})
    reference = env.get_wrapper_attr("task").reference
    env.step(bash("echo shared > notes.txt"))
    right, wrong, probe = fork(env, 3)
    right.step(call("str_replace_editor", command="create", path="solution.py", file_text=reference))
    wrong.step(bash("echo 'def count_vowel_runs(s): return 0' > solution.py && echo w >> notes.txt"))
    observation, *_ = probe.step(
        bash("cat notes.txt; grep -c return solution.py; cat /proc/*/cwd/notes.txt 2>&1 | sort -u")
    )
    assert observation["feedback"].count("shared") >= 1 and "\nw\n" not in observation["feedback"]
    graded = {name: branch.step(call("submit")) for name, branch in (("right", right), ("wrong", wrong))}
    assert graded["right"][1] == 1.0 and graded["right"][2]
    assert float(graded["wrong"][1]) < 1.0
    observation, *_ = env.step(bash("cat solution.py"))  # (the parent's tree is its own)
    assert "return 0" not in observation["feedback"]
    for branch in (env, right, wrong, probe):
        branch.close()


@pytest.mark.parametrize("mode", ["single", "refine"])
def test_text_modes_snapshot_the_attempt_and_the_rng(executor: Executor, mode: str) -> None:
    env = make(executor, mode=mode, max_episode_steps=3)
    env.reset(seed=5)
    taken = snapshot(env)
    draws = env.unwrapped.np_random.integers(1 << 30, size=4).tolist()
    first = outcome(env.step("def f(:\n"))
    restore(env, taken)
    assert env.unwrapped.np_random.integers(1 << 30, size=4).tolist() == draws
    assert outcome(env.step("def f(:\n")) == first
    [same, reseeded] = fork(env, 1, snapshot=taken) + fork(env, 1, snapshot=taken, seed=11)
    assert same.unwrapped.np_random.integers(1 << 30, size=4).tolist() == draws
    assert reseeded.unwrapped.np_random.integers(1 << 30, size=4).tolist() != draws
    assert same.unwrapped.np_random is not env.unwrapped.np_random


def test_a_recorded_fork_is_an_episode_of_its_own_that_names_its_origin(executor: Executor, tmp_path: Path) -> None:
    path = tmp_path / "tree.jsonl"
    env = RecordEpisodes(make(executor, mode="agent", max_episode_steps=4), path)
    env.reset(options={"task_id": AGENT_TASK})
    env.step(bash("true"))
    [child] = fork(env, 1)
    child.step(call("submit"))
    env.step(call("submit"))
    parent, branch = sorted(read_episodes(path), key=lambda e: "forked_from" in e)
    assert branch["forked_from"] == {"episode": parent["episode"], "step": 1}
    assert len(branch["steps"]) == len(parent["steps"]) == 2
    raw = sorted((json.loads(line) for line in path.read_text().splitlines()), key=lambda e: "forked_from" in e)
    assert raw[1]["steps"][0] == raw[0]["steps"][0]  # (the shared prefix, as recorded)


def test_a_snapshot_taken_under_other_wrappers_is_refused(executor: Executor) -> None:
    env = make(executor, mode="agent")
    env.reset(options={"task_id": AGENT_TASK})
    taken = snapshot(env)
    with pytest.raises(ValueError, match="wrappers"):
        restore(env.unwrapped, taken)
    release(env, taken)


ACTIONS = [
    "echo {n} >> log.txt",
    "rm -f solution.py",
    "sed -i 's/return/return  /' solution.py 2>&1",
    "mkdir -p d{n} && echo {n} > d{n}/f",
    "ls -R | head -20; cat log.txt 2>&1",
    "python -c 'print({n} * 7)'",
    "printf 'def count_vowel_runs(s):\\n    return {n}\\n' > solution.py",
]


def test_fidelity_of_random_branches_against_a_fresh_replay(executor: Executor) -> None:
    """Random (prefix, action) pairs: the step after restoring a snapshot, and after forking
    one, equals the same step after replaying the prefix in a fresh episode; so does the grade
    at submit. (`benchmarks/fork.py --fidelity` runs a thousand such triples.)"""
    rng = random.Random(7)
    env = make(executor, mode="agent", max_episode_steps=12)
    fresh = make(executor, mode="agent", max_episode_steps=12)
    for trial in range(6):
        prefix = [bash(rng.choice(ACTIONS).format(n=rng.randrange(9))) for _ in range(rng.randrange(1, 5))]
        action = bash(rng.choice(ACTIONS).format(n=trial))
        env.reset(options={"task_id": AGENT_TASK})
        for step in prefix:
            env.step(step)
        taken = snapshot(env)
        env.step(bash("rm -rf * && echo noise > log.txt"))
        restore(env, taken)
        restored = [outcome(env.step(action)), outcome(env.step(call("submit")))]
        [branch] = fork(env, 1, snapshot=taken)
        forked = [outcome(branch.step(action)), outcome(branch.step(call("submit")))]
        fresh.reset(options={"task_id": AGENT_TASK})
        for step in prefix:
            fresh.step(step)
        replayed = [outcome(fresh.step(action)), outcome(fresh.step(call("submit")))]
        assert restored == replayed == forked, (prefix, action)
        release(env, taken)
        branch.close()


def test_an_agent_episode_resumes_from_a_recorded_prefix_and_reports_a_divergence(
    executor: Executor, tmp_path: Path
) -> None:
    path = tmp_path / "episodes.jsonl"
    env = RecordEpisodes(make(executor, mode="agent", max_episode_steps=10), path)
    env.reset(options={"task_id": AGENT_TASK})
    for command in ("echo one > notes.txt", "echo two >> notes.txt", "cat notes.txt", "date +%N"):
        env.step(bash(command))
    env.close()
    [episode] = read_episodes(path)
    resumed = make(executor, mode="agent", max_episode_steps=10)
    observation, info = resumed.reset(options={"trace": episode, "upto": 3})
    assert info["replayed"] == 3 and "divergence" not in info and info["task_id"] == AGENT_TASK
    assert observation["feedback"] == episode["steps"][2]["observation"]["feedback"]
    assert resumed.get_wrapper_attr("_episode").calls == 3  # (resuming at step k cost k tool calls)
    _, info = resumed.reset(options={"trace": episode})  # (nanoseconds differ: the replay stops there)
    assert info["divergence"]["step"] == 3 and info["replayed"] == 4
    observation, *_ = resumed.step(bash("cat notes.txt"))  # (and goes on live)
    assert "one\ntwo" in observation["feedback"]


def test_a_refine_prefix_is_graded_again_unless_the_caller_vouches_for_its_feedback(executor: Executor) -> None:
    env = make(executor, tasks="humaneval", mode="refine", max_episode_steps=5)
    wrong = "def truncate_number(number):\n    return 1 / 0\n"
    history = [{"code": wrong, "feedback": "all tests passed (a lie)"}]
    observation, info = env.reset(options={"task_id": "HumanEval/2", "history": history})
    assert info["history"] == "graded" and "a lie" not in observation["feedback"]
    assert "ZeroDivisionError" in observation["feedback"] and observation["attempt"] == 1
    observation, info = env.reset(options={"task_id": "HumanEval/2", "history": history, "trust_feedback": True})
    assert info["history"] == "supplied" and "a lie" in observation["feedback"]
    with pytest.raises(ValueError, match="upto must be"):
        env.reset(options={"trace": [{"action": wrong}], "upto": 2})


def test_a_tree_rollout_exports_each_node_once_with_its_parent(executor: Executor, tmp_path: Path) -> None:
    env = make(executor, mode="agent", max_episode_steps=6)
    reference = env.get_wrapper_attr("tasks").get(AGENT_TASK).reference
    tries = iter(range(1000))

    def policy(observation: Any, info: Mapping[str, Any], n: int) -> list[Any]:
        actions = []
        for _ in range(n):
            k = next(tries)
            if k % 3 == 2:
                actions.append((call("str_replace_editor", command="create", path="solution.py", file_text=reference)
                                + call("submit"), {"token_ids": [k, k + 1]}))  # fmt: skip
            else:
                actions.append((bash(f"echo {k} >> mine.txt && cat mine.txt"), {"token_ids": [k]}))
        return actions

    tree = rollout_tree(env, policy, branching=3, depth=2, options={"task_id": AGENT_TASK})
    assert [node.depth for node in tree.nodes].count(1) == 3
    solved = [node for node in tree.nodes if node.grade is not None]
    assert solved and all(node.terminated and node.reward == 1.0 for node in solved)
    assert len(tree.nodes) == 1 + 3 + 2 * 3  # (the solved child ended: no children)
    for node in tree.nodes[1:]:
        if "echo" in node.action:
            lines = node.observation["feedback"].splitlines()[1:]  # (the file holds its own path's lines only)
            path_numbers = [str(step.generation["token_ids"][0]) for step in tree.path(node)[1:]]
            assert lines == path_numbers
    tree.write(tmp_path / "tree.jsonl")
    again = read_tree(tmp_path / "tree.jsonl")
    assert [(n.id, n.parent, n.reward) for n in again.nodes] == [(n.id, n.parent, n.reward) for n in tree.nodes]
    assert again.nodes[solved[0].id].grade == solved[0].grade
    assert max(tree.value(leaf) for leaf in tree.leaves()) == 1.0
    env.close()


def test_a_dumped_snapshot_moves_to_another_env_as_json(executor: Executor) -> None:
    from codegym.episodes import dump, load
    from codegym.executor.local import LocalExecutor

    env = make(executor, mode="agent", max_episode_steps=6)
    env.reset(seed=3, options={"task_id": AGENT_TASK})
    env.step(bash("echo moved > notes.txt && rm -f solution.py && mkdir -p d && echo x > d/f"))
    taken = snapshot(env)
    record = json.loads(json.dumps(dump(env, taken)))  # (plain JSON: it travels anywhere)
    assert "solution.py" in json.dumps(record) and len(json.dumps(record)) < 20_000  # (the bytes written, not the tree)
    with LocalExecutor(workers=1) as elsewhere:  # (another pool: other workers)
        other = make(elsewhere, mode="agent", max_episode_steps=6)
        other.reset()
        load(other, record)
        here, there = (
            outcome(env.step(bash("cat notes.txt d/f; ls"))),
            outcome(other.step(bash("cat notes.txt d/f; ls"))),
        )
        assert here == there and "moved" in here[0]["feedback"]
        assert other.get_wrapper_attr("_episode").calls == 2
        assert other.get_wrapper_attr("np_random").integers(1 << 30) == env.get_wrapper_attr("np_random").integers(
            1 << 30
        )
        other.close()
    release(env, taken)
    with pytest.raises(ValueError, match="wrappers"):
        load(env.unwrapped, record)
