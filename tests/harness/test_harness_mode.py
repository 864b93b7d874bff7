"""``mode="harness"`` end to end with a small agent program of the tests' own (`programs/tiny_agent.py`):
the env's observations are its model requests, its actions the replies; the program's faults (a hang,
a flood, no model call, malformed requests, network attempts, a daemon left behind) each end with a
clear status and a graded machine, and the next episode starts clean."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available
from codegym.harness.mode import HarnessSpec
from codegym.harness.recipe import Recipe
from codegym.harness.rollout import rollout
from codegym.harness.run import HarnessLimits
from codegym.harness.wire import ModelReply, ReplyToolCall
from tests.harness.stub_server import StubServer

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no boxes here: {available()}")

PROGRAM = Path(__file__).parent / "programs" / "tiny_agent.py"
TASK = "codegym-py/004-digital-root"


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tool folder holding the tiny agent (readable by the box's users)."""
    folder = tmp_path_factory.mktemp("tiny-tools")
    shutil.copy(PROGRAM, folder / "tiny_agent.py")
    os.chmod(folder, 0o755)
    os.chmod(folder / "tiny_agent.py", 0o644)
    return str(folder)


def tiny(behaviour: str) -> Recipe:
    return Recipe(name=f"tiny-{behaviour}", api="chat", package="pypi:none",
                  argv=("python3", "{tools}/tiny_agent.py", behaviour, "{instruction_file}"),
                  env=(("AGENT_BASE_URL", "{base_url}"), ("AGENT_MODEL", "{model}")))  # fmt: skip


def make(tools: str, behaviour: str, **limits: float) -> gym.Env:
    spec = HarnessSpec(tiny(behaviour), tools=tools, limits=HarnessLimits(**limits))  # type: ignore[arg-type]
    return gym.make("codegym/PythonFunction-v0", mode="harness", harness=spec)


@pytest.fixture
def env_of(tools: str) -> Iterator:
    made: list[gym.Env] = []

    def factory(behaviour: str, **limits: float) -> gym.Env:
        made.append(make(tools, behaviour, **limits))
        return made[-1]

    yield factory
    for env in made:
        env.close()


def write_call(path: str, content: str) -> ModelReply:
    command = f"cat > {path} <<'EOF'\n{content}EOF"
    return ModelReply(
        content="I will write it.", tool_calls=(ReplyToolCall("call_1", "bash", json.dumps({"command": command})),)
    )


def reference(env: gym.Env) -> str:
    task = env.unwrapped.tasks.get(TASK)  # type: ignore[attr-defined]
    assert task.reference
    return task.reference


def test_a_scripted_policy_solves_the_task_through_the_program(env_of) -> None:
    env = env_of("agent")
    observation, info = env.reset(options={"task_id": TASK})
    assert info["harness"] == "tiny-agent" and info["api"] == "chat"
    request = info["request"]
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "solution.py" in request["messages"][1]["content"]
    assert [t["function"]["name"] for t in request["tools"]] == ["bash"]
    observation, reward, terminated, truncated, info = env.step(write_call("solution.py", reference(env)))
    assert not terminated and reward == 0.0
    assert info["request"]["messages"][-1]["role"] == "tool"  # the program ran the call and sent its output
    observation, reward, terminated, truncated, info = env.step("Done: the function is written.")
    assert terminated and not truncated
    assert info["harness_status"] == "exited" and info["status"] == "OK" and reward == 1.0
    calls = info["model_calls"]
    assert len(calls) == 2 and all(call["status"] == 200 for call in calls)
    assert calls[0]["reply"]["tool_calls"][0]["name"] == "bash"
    assert calls[1]["body"]["messages"][-1]["role"] == "tool"


def test_a_wrong_answer_scores_zero_and_text_actions_carry_tool_calls(env_of) -> None:
    env = env_of("agent")
    env.reset(options={"task_id": TASK})
    wrong = "def digital_root(n):\n    return -1\n"
    call = json.dumps({"name": "bash", "arguments": {"command": f"cat > solution.py <<'EOF'\n{wrong}EOF"}})
    _, _, terminated, _, info = env.step(f"Writing it.\n<tool_call>{call}</tool_call>")
    assert not terminated and info["format_errors"] == 0
    _, reward, terminated, _, info = env.step("done")
    assert terminated and info["status"] == "WA" and reward == 0.0


@pytest.mark.parametrize(
    ("behaviour", "status", "limits"),
    [
        ("hang", "hung", {"turn_s": 2.0}),
        ("hang-later", "hung", {"turn_s": 2.0}),
        ("flood", "hung", {"turn_s": 3.0}),
        ("nocall", "no_model_call", {}),
        ("malformed", "no_model_call", {}),
    ],
)
def test_a_faulty_program_ends_with_a_clear_status(env_of, behaviour: str, status: str, limits: dict) -> None:
    env = env_of(behaviour, **limits)
    _, info = env.reset(options={"task_id": TASK})
    if "request" in info:  # (hang-later asks once, then hangs)
        _, reward, terminated, truncated, info = env.step("carry on")
    else:
        _, reward, terminated, truncated, info = env.step("ignored: no request is waiting")
    assert info["harness_status"] == status, info["harness_detail"]
    assert "grade" in info and reward == 0.0  # (the stub as it stands: graded, wrong)
    assert terminated != truncated
    assert env.unwrapped._harness_run is None and env.unwrapped._episode is None  # type: ignore[attr-defined]  (all closed)
    _, fresh = env.reset(options={"task_id": TASK})  # the next episode starts clean
    assert fresh.get("request") is not None or behaviour in ("hang", "flood", "nocall", "malformed")
    if behaviour == "flood":
        assert info["harness_output_elided"] > 1 << 20
    if behaviour == "malformed":
        assert "refused: 400" in info["harness_output"]


def test_network_other_than_the_proxy_is_refused(env_of) -> None:
    env = env_of("network")
    _, info = env.reset(options={"task_id": TASK})
    _, reward, terminated, _, info = env.step(write_call("solution.py", reference(env)))
    _, reward, terminated, _, info = env.step("done")
    assert reward == 1.0 and "reached" not in info["harness_output"]
    assert info["harness_output"].count("refused") == 3


def sleepers() -> list[int]:
    """Host processes running the daemon's command."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if handle.read() == b"sleep\x0010000\x00":
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_a_daemon_the_program_leaves_is_killed_and_the_next_episode_is_clean(env_of) -> None:
    env = env_of("daemon")
    env.reset(options={"task_id": TASK})
    assert len(sleepers()) == 1  # (it started, and waits for the reply)
    _, _, terminated, _, info = env.step("done")
    assert terminated and info["harness_status"] == "exited"
    deadline = time.monotonic() + 10
    while sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers() == []
    _, info = env.reset(options={"task_id": TASK})
    assert "request" in info and len(sleepers()) == 1  # the new episode's own, nothing of the last one's
    env.step("done")


def answer_with(code: str) -> Callable[[Mapping[str, Any]], ModelReply]:
    """The tiny agent's scripted model: a bash call that writes ``code``, then a final text."""

    def script(body: Mapping[str, Any]) -> ModelReply:
        if any(message["role"] == "assistant" for message in body["messages"]):
            return ModelReply("Done.")
        return write_call("solution.py", code)

    return script


def test_pass_through_records_the_servers_token_ids(tools: str) -> None:
    spec = HarnessSpec(tiny("agent"), tools=tools)
    answer = gym.make("codegym/PythonFunction-v0").unwrapped.tasks.get(TASK).reference  # type: ignore[attr-defined]
    stub = StubServer(answer_with(answer))
    try:
        tasks = [TASK, "codegym-py/no-such-task", TASK]  # (a broken one among them costs only itself)
        results = rollout("codegym/PythonFunction-v0", harness=spec, model=stub.url, tasks=tasks, concurrency=2)
    finally:
        stub.close()
    broken = results.pop(1)
    assert broken.reward == 0.0 and broken.status is None and "no-such-task" in (broken.error or "")
    assert [(r.reward, r.status, r.harness_status, r.error) for r in results] == [(1.0, "OK", "exited", None)] * 2
    calls = results[0].model_calls
    assert len(calls) == 2 and calls[0]["reply"]["token_ids"] == [11, 12, 13]
    assert calls[0]["reply"]["prompt_token_ids"] == [7, 8, 9] and calls[0]["reply"]["logprobs"] == [-0.5] * 3
    assert calls[1]["body"]["messages"][-1]["role"] == "tool"  # the program ran the server's call
    assert all(body.get("logprobs") and body.get("return_token_ids") for body in stub.bodies)


def test_pass_through_with_a_wrong_answer_scores_zero(tools: str) -> None:
    stub = StubServer(answer_with("def digital_root(n):\n    return 5\n"))
    try:
        (result,) = rollout("codegym/PythonFunction-v0", harness=HarnessSpec(tiny("agent"), tools=tools),
                            model=stub.url, tasks=[TASK])  # fmt: skip
    finally:
        stub.close()
    assert (result.reward, result.status, result.harness_status) == (0.0, "WA", "exited")


def test_a_recorded_harness_episode_holds_every_request_and_reply(tools: str, tmp_path: Path) -> None:
    from codegym.episodes import RecordEpisodes, read_episodes

    env = RecordEpisodes(make(tools, "agent"), tmp_path / "episodes.jsonl")
    try:
        env.reset(options={"task_id": TASK})
        env.step(write_call("solution.py", reference(env)))
        _, reward, terminated, _, _ = env.step({"role": "assistant", "content": "All done."})
    finally:
        env.close()
    assert terminated and reward == 1.0
    (episode,) = read_episodes(tmp_path / "episodes.jsonl")
    assert episode["mode"] == "harness" and episode["reset"]["info"]["request"]["messages"][1]["role"] == "user"
    first, last = episode["steps"]
    assert first["action"] == write_call("solution.py", reference(env))  # (a ModelReply, as it was)
    assert first["info"]["request"]["messages"][-1]["role"] == "tool"
    calls = last["info"]["model_calls"]
    assert [call["reply"]["content"] for call in calls] == ["I will write it.", "All done."]


def test_sixteen_concurrent_episodes_get_their_own_verdicts(tools: str) -> None:
    answer = "def digital_root(n):\n    n = abs(n)\n    return 0 if n == 0 else 1 + (n - 1) % 9\n"
    wrong = "def digital_root(n):\n    return n\n"

    def one(index: int) -> tuple[float, str]:
        env = make(tools, "agent")
        try:
            env.reset(options={"task_id": TASK})
            env.step(write_call("solution.py", answer if index % 2 == 0 else wrong))
            _, reward, _, _, info = env.step("done")
            return float(reward), info["status"]
        finally:
            env.close()

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(one, range(16)))
    assert results == [(1.0, "OK") if i % 2 == 0 else (0.0, "WA") for i in range(16)]


def test_a_malformed_reply_crashes_the_program_not_the_env(env_of) -> None:
    """The policy's tool call carries arguments that are not JSON: the tiny agent dies on them,
    the episode ends ``crashed`` with the machine graded and nothing of the run left."""
    env = env_of("agent")
    env.reset(options={"task_id": TASK})
    broken = ModelReply("Here.", (ReplyToolCall("call_1", "bash", "{not json"),))
    _, reward, terminated, truncated, info = env.step(broken)
    assert info["harness_status"] == "crashed" and info["harness_exit_code"] == 1
    assert "JSONDecodeError" in info["harness_output"]
    assert terminated and not truncated and info["status"] == "WA" and reward == 0.0
    assert env.unwrapped._harness_run is None and env.unwrapped._episode is None  # type: ignore[attr-defined]


def test_a_harness_episode_refuses_a_snapshot_and_goes_on(env_of) -> None:
    from codegym.episodes import snapshot

    env = env_of("agent")
    env.reset(options={"task_id": TASK})
    with pytest.raises(NotImplementedError, match="running process"):
        snapshot(env)
    _, reward, terminated, _, _ = env.step(write_call("solution.py", reference(env)))
    _, reward, terminated, _, _ = env.step("done")
    assert terminated and reward == 1.0


def test_none_while_a_request_waits_stops_the_program_and_grades_the_machine(env_of) -> None:
    env = env_of("agent")
    env.reset(options={"task_id": TASK})
    env.step(write_call("solution.py", reference(env)))
    _, reward, terminated, truncated, info = env.step(None)  # (the policy is done)
    assert info["harness_status"] == "stopped" and truncated and not terminated
    assert info["status"] == "OK" and reward == 1.0 and len(info["model_calls"]) == 2
    assert info["model_calls"][-1]["status"] == 503  # (its last request got no reply)


def test_a_reply_past_the_token_budget_is_not_delivered(env_of) -> None:
    env = env_of("agent", max_tokens=50)
    env.reset(options={"task_id": TASK})
    _, _, _, _, info = env.step("short")  # (about 1 token: delivered, the tiny agent ends)
    assert info["harness_status"] == "exited"
    env.reset(options={"task_id": TASK})
    _, reward, terminated, truncated, info = env.step("x" * 400)  # (about 100 tokens)
    assert info["harness_status"] == "tokens" and truncated and not terminated
    assert "grade" in info and info["model_calls"][-1]["status"] == 503


def test_a_flood_of_connections_holds_few_threads_here(env_of) -> None:
    env = env_of("connections")
    before = threading.active_count()
    _, info = env.reset(options={"task_id": TASK})
    assert threading.active_count() - before <= 40  # (the proxy's cap, 32, and its own few)
    _, _, _, _, info = env.step("ignored")
    assert info["harness_status"] == "no_model_call"
    closed = int(info["harness_output"].split("closed", 1)[1].split()[0])
    assert closed >= 160, info["harness_output"]
