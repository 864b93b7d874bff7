"""What the snapshot tests of machine episodes (terminal tasks, RepoRepair projects) share: tool
calls as an agent sends them, the machine behind a snapshot handle, and a wait for copies that
go in the background."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

SUBMIT = {"name": "submit", "arguments": {}}


def bash(command: str) -> list[dict[str, Any]]:
    return [{"name": "bash", "arguments": {"command": command}}]


def output(env: Any, command: str) -> str:
    """What ``command`` prints in ``env``'s machine (the tool's header line left out)."""
    observation, *_ = env.step(bash(command))
    return observation["feedback"].split("\n", 1)[1]


def machine_of(handle: Any) -> Any:
    """The machine snapshot inside an env snapshot handle."""
    return handle.core["agent"][1].workspace


def wait_until(condition: Callable[[], bool], timeout_s: float = 30.0) -> bool:
    """Whether ``condition`` holds within ``timeout_s`` (copies go after boxes' teardowns, in the background)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
