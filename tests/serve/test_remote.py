"""`RemoteEnv` and ``codegym.score(..., server=...)``: the in-process env's contract and grades,
played on servers."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import codegym
from codegym import ReferenceTimeLimits, Status
from codegym.error import RemoteError, ResetNeeded, UnknownTask
from codegym.remote import RemoteEnv

pytest.importorskip("websockets")
pytestmark = pytest.mark.timeout(120)

ENV = "codegym/PythonFunction-v0"
DATA = Path(__file__).resolve().parents[2] / "envs" / "python_function" / "data" / "codegym_py.jsonl"


def test_remote_env_passes_check_env(server_url: str) -> None:
    env = RemoteEnv(server_url, ENV)
    try:
        check_env(env, skip_render_check=True)
        assert env.observation_space == gym.make(ENV).observation_space
    finally:
        env.close()
    with pytest.raises(RemoteError, match="closed"):
        env.step("x = 1")


def test_gym_make_with_server_returns_a_remote_env(server_url: str) -> None:
    env = gym.make(ENV, server=server_url, mode="refine")
    local = gym.make(ENV, mode="refine")
    assert isinstance(env.unwrapped, RemoteEnv) and env.spec is not None and env.spec.kwargs["server"] == server_url
    try:
        obs, info = env.reset(seed=3)
        local_obs, local_info = local.reset(seed=3)
        assert info == local_info and obs["prompt"] == local_obs["prompt"]
        step, local_step = env.step("def f():\n    return 1\n"), local.step("def f():\n    return 1\n")
        assert step[1:4] == local_step[1:4] and step[4]["grade"] == local_step[4]["grade"]
        assert np.array_equal(step[0]["tests_passed"], local_step[0]["tests_passed"])
        assert step[0]["pass_rate"].dtype == np.float32
    finally:
        env.close()
        local.close()


def test_remote_errors_are_codegym_errors(server_url: str) -> None:
    env = RemoteEnv(server_url, ENV)
    try:
        with pytest.raises(ResetNeeded, match="reset"):
            env.step("x = 1")
        with pytest.raises(UnknownTask):
            env.reset(options={"task_id": "no-such-task"})
    finally:
        env.close()
    with pytest.raises(RemoteError, match="no env"):
        RemoteEnv(server_url, "codegym/NoSuchFamily-v0")


def test_make_vec_spreads_remote_envs_over_servers(servers: list[str]) -> None:
    envs = gym.make_vec(ENV, num_envs=2, vectorization_mode="sync", server=servers)
    try:
        remotes = [env.unwrapped for env in envs.envs]  # type: ignore[attr-defined]
        assert sorted(r.server for r in remotes) == sorted(servers)  # (round robin)
        obs, info = envs.reset(seed=0)
        assert obs["tests_passed"].shape == (2, 256) and len(info["task_id"]) == 2
        _, rewards, terminated, _, _ = envs.step(["x = 1", "y = 2"])
        assert rewards.tolist() == [0.0, 0.0] and terminated.tolist() == [True, True]
    finally:
        envs.close()


@pytest.fixture
def tasks_file(tmp_path: Path) -> Path:
    """Three tasks of codegym-py, the second with a reference that fails its own tests."""
    rows = [json.loads(line) for line in DATA.read_text().splitlines()[:3]]
    rows[1]["reference"] = f"def {rows[1]['entry_point']}(*args):\n    return None\n"
    path = tmp_path / "three.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_remote_score_equals_in_process_score(servers: list[str], tasks_file: Path) -> None:
    rows = [json.loads(line) for line in tasks_file.read_text().splitlines()]
    ids = [row["task_id"] for row in rows]
    answers = [(ids[0], rows[0]["reference"]), (ids[1], "x = 1"), (ids[2], rows[2]["reference"]),
               (ids[2], "def nope(:"), (ids[0], "x = 1")] * 3  # fmt: skip
    kwargs = {"tasks": str(tasks_file), "time_limits": ReferenceTimeLimits()}
    local = codegym.score(ENV, answers, **kwargs)
    remote = codegym.score(ENV, answers, server=servers, **kwargs)
    assert [g.status for g in local[:5]] == [Status.OK, Status.IE, Status.OK, Status.CE, Status.WA]
    assert remote == local  # (equal verdicts: every test, diagnostic, metric and message)
    assert "reference scored WA" in remote[1].message
    from codegym.remote import score_remote

    chunked = score_remote(ENV, answers, servers, env_kwargs=kwargs, chunk_size=4)  # (4 chunks, both servers)
    assert chunked == local


def test_an_unknown_task_id_raises_as_in_process(servers: list[str]) -> None:
    answers = [("codegym-py/001-count-vowel-runs", "x = 1"), ("no-such-task", "x = 1")]
    with pytest.raises(UnknownTask) as local:
        codegym.score(ENV, answers)
    with pytest.raises(UnknownTask) as remote:
        codegym.score(ENV, answers, server=servers)
    assert str(remote.value) == str(local.value)


def test_a_remote_env_waits_out_a_busy_server() -> None:
    """A server that runs one env operation at a time: three sessions step at once, two are
    told busy (with a time to retry) and wait, and every step gets the in-process reward."""
    from concurrent.futures import ThreadPoolExecutor

    from codegym.serve import ServeConfig

    from .conftest import _free_port, _start

    server, thread = _start(ServeConfig(port=_free_port(), max_concurrency=1, retry_after_s=1))
    url = f"http://127.0.0.1:{server.config.port}"
    local = gym.make(ENV).unwrapped
    task = next(iter(local.tasks))
    envs = [RemoteEnv(url, ENV) for _ in range(3)]
    try:
        for env in envs:
            env.reset(options={"task_id": task.id})

        def step(env: RemoteEnv) -> float:  # (a slow load: the three steps overlap)
            return float(env.step("import time\ntime.sleep(0.5)\n" + (task.reference or ""))[1])

        with ThreadPoolExecutor(3) as pool:
            assert list(pool.map(step, envs)) == [1.0, 1.0, 1.0]
        scraped = server.config.app.state.server.metrics.render()  # type: ignore[attr-defined]
        assert 'codegym_busy_total{what="step"}' in scraped
    finally:
        for env in envs:
            env.close()
        local.close()
        server.should_exit = True
        thread.join(timeout=10)


def test_snapshots_and_forks_of_a_remote_env_stay_on_its_server(server_url: str) -> None:
    """codegym.episodes' snapshot, restore, fork and release over the protocol's extension:
    the server keeps the snapshots, and each fork is a new session adopting a forked env."""
    from codegym.episodes import fork, release, restore, snapshot

    def bash(command: str) -> str:
        return f"<tool_call>{json.dumps({'name': 'bash', 'arguments': {'command': command}})}</tool_call>"

    env = gym.make(ENV, server=server_url, mode="agent", max_episode_steps=8)
    env.reset(options={"task_id": "codegym-py/001-count-vowel-runs"})
    env.step(bash("echo kept > notes.txt"))
    taken = snapshot(env)
    env.step(bash("echo lost >> notes.txt"))
    restore(env, taken)
    observation, *_ = env.step(bash("cat notes.txt"))
    assert observation["feedback"].splitlines()[-1] == "kept"
    [left, right] = fork(env, 2, snapshot=taken)
    try:
        assert isinstance(left.unwrapped, RemoteEnv) and isinstance(env.unwrapped, RemoteEnv)
        assert left.unwrapped.session_id != env.unwrapped.session_id
        left.step(bash("echo left >> notes.txt"))
        observation, *_ = right.step(bash("cat notes.txt"))
        assert observation["feedback"].splitlines()[-1] == "kept"
        release(env, taken)
        with pytest.raises(RemoteError, match="no snapshot"):
            restore(env, taken)
    finally:
        for branch in (env, left, right):
            branch.close()


def test_a_snapshot_moves_between_servers_as_json(servers: list[str]) -> None:
    from codegym.episodes import dump, load, release, snapshot

    def bash(command: str) -> str:
        return f"<tool_call>{json.dumps({'name': 'bash', 'arguments': {'command': command}})}</tool_call>"

    here = gym.make(ENV, server=servers[0], mode="agent")
    there = gym.make(ENV, server=servers[-1], mode="agent")
    try:
        here.reset(options={"task_id": "codegym-py/001-count-vowel-runs"})
        here.step(bash("echo travelled > notes.txt"))
        taken = snapshot(here)
        record = dump(here, taken)
        release(here, taken)
        there.reset()
        load(there, json.loads(json.dumps(record)))
        observation, *_ = there.step(bash("cat notes.txt"))
        assert observation["feedback"].splitlines()[-1] == "travelled"
    finally:
        here.close()
        there.close()


def test_a_harness_episode_over_the_server(server_url: str) -> None:
    """A real program (mini-swe-agent) in the server's machine: its requests come over the wire as
    observations, the replies go back as OpenAI assistant messages."""
    from codegym.harness.install import installed
    from codegym.harness.recipe import recipe
    from codegym.harness.scripted import scripted_reply

    if installed(recipe("mini-swe-agent")) is None:
        pytest.skip("mini-swe-agent is not installed: python -m codegym.harness.install mini-swe-agent")
    task = "codegym-py/004-digital-root"
    code = gym.make(ENV).unwrapped.tasks.get(task).reference  # type: ignore[attr-defined]
    harness = {"program": "mini-swe-agent", "limits": {"turn_s": 120.0}}
    env = gym.make(ENV, server=server_url, mode="harness", harness=harness)
    try:
        _, info = env.reset(options={"task_id": task})
        reply = scripted_reply("mini-swe-agent", info["request"], "solution.py", code)
        message = {"role": "assistant", "content": reply.content,
                   "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                                  for c in reply.tool_calls]}  # fmt: skip
        _, reward, terminated, _, info = env.step(message)  # (an OpenAI assistant message)
        assert not terminated and info["request"]["messages"][-1]["role"] == "tool"
        reply = scripted_reply("mini-swe-agent", info["request"], "solution.py", code)
        _, reward, terminated, _, info = env.step(reply)  # (a ModelReply, as the wire carries it)
        assert terminated and reward == 1.0 and info["harness_status"] == "exited"
        assert len(info["model_calls"]) == 2
    finally:
        env.close()
