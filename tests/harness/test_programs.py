"""The real agent programs in harness mode, driven by a scripted local model: each solves a bundled
task (reward 1) and gives a wrong answer (reward 0), Gymnasium-style (the env's actions answer its
requests) and pass-through (a vLLM-shaped stub server answers, its token ids recorded)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available
from codegym.harness.install import installed
from codegym.harness.mode import HarnessSpec
from codegym.harness.recipe import recipe
from codegym.harness.rollout import rollout
from codegym.harness.run import HarnessLimits
from codegym.harness.scripted import SCRIPTS, scripted_reply
from codegym.harness.wire import ModelReply, ReplyToolCall
from tests.harness.stub_server import StubServer

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no boxes here: {available()}")

TASK = "codegym-py/004-digital-root"
RIGHT = "def digital_root(n):\n    n = abs(n)\n    return 0 if n == 0 else 1 + (n - 1) % 9\n"
WRONG = "def digital_root(n):\n    return 5\n"


def script(name: str) -> Callable[[Mapping[str, Any], str], ModelReply]:
    return lambda request, code: scripted_reply(name, request, "solution.py", code)


def spec_of(name: str) -> HarnessSpec:
    program = recipe(name)
    if installed(program) is None:
        pytest.skip(f"{name} is not installed: python -m codegym.harness.install {name}")
    return HarnessSpec(program, limits=HarnessLimits(turn_s=120.0))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize(("code", "reward", "status"), [(RIGHT, 1.0, "OK"), (WRONG, 0.0, "WA")], ids=["right", "wrong"])
def test_gymnasium_style(name: str, code: str, reward: float, status: str) -> None:
    env = gym.make("codegym/PythonFunction-v0", mode="harness", harness=spec_of(name))
    try:
        _, info = env.reset(options={"task_id": TASK})
        requests = []
        while "request" in info:
            requests.append(info["request"])
            _, got, terminated, truncated, info = env.step(script(name)(info["request"], code))
            assert len(requests) < 10, "the program keeps asking"
        assert (got, info["status"], info["harness_status"], terminated) == (reward, status, "exited", True)
        calls = info["model_calls"]
        assert len(calls) == len(requests) and all(call["status"] == 200 for call in calls)
        assert all(call["reply"] is not None for call in calls)
    finally:
        env.close()


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_pass_through(name: str) -> None:
    stubs = [StubServer(lambda body, code=code: script(name)(body, code)) for code in (RIGHT, WRONG)]
    try:
        results = [rollout("codegym/PythonFunction-v0", harness=spec_of(name), model=stub.url, tasks=[TASK])[0]
                   for stub in stubs]  # fmt: skip
    finally:
        for stub in stubs:
            stub.close()
    assert [(r.reward, r.status, r.harness_status) for r in results] == [(1.0, "OK", "exited"), (0.0, "WA", "exited")]
    for result, stub in zip(results, stubs, strict=True):
        assert len(result.model_calls) == len(stub.bodies) >= 2
        assert all(call["reply"]["token_ids"] == list(StubServer.TOKEN_IDS) for call in result.model_calls)


def test_opencodes_grep_and_glob_find_files_with_the_tool_folders_ripgrep() -> None:
    """OpenCode's grep and glob tools run ripgrep: the tool folder's (Codex's static build, after
    the task's PATH) answers, where they would otherwise try to fetch one from github.com."""
    env = gym.make("codegym/PythonFunction-v0", mode="harness", harness=spec_of("opencode"))
    try:
        _, info = env.reset(options={"task_id": TASK})
        calls = (ReplyToolCall("call_1", "grep", json.dumps({"pattern": "def digital_root"})),
                 ReplyToolCall("call_2", "glob", json.dumps({"pattern": "**/*.py"})))  # fmt: skip
        _, _, _, _, info = env.step(ModelReply("Looking.", calls))
        results = [m["content"] for m in info["request"]["messages"] if m["role"] == "tool"]
        assert len(results) == 2 and "solution.py" in results[0] and "test_public.py" in results[1], results
        assert not any("ripgrep" in text.lower() for text in results), results
        _, _, terminated, _, info = env.step("done")
        assert terminated and info["harness_status"] == "exited"
    finally:
        env.close()
