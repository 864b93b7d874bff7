"""Harness mode in every family that has agent mode: a real program (Codex CLI, the quickest to
start) driven by a scripted model writes the task's reference answer, and the family grades it."""

from __future__ import annotations

import shlex
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.repo_repair.patch import apply

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available
from codegym.harness.install import installed
from codegym.harness.mode import HarnessSpec
from codegym.harness.recipe import recipe
from codegym.harness.run import HarnessLimits
from codegym.harness.wire import ModelReply, ReplyToolCall

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no boxes here: {available()}")
TERMINAL_TASK = Path(__file__).parents[2] / "envs" / "terminal" / "data" / "tasks" / "awk-busiest-hour"


def codex() -> HarnessSpec:
    program = recipe("codex")
    if installed(program) is None:
        pytest.skip("codex is not installed: python -m codegym.harness.install codex")
    return HarnessSpec(program, limits=HarnessLimits(turn_s=120.0))


def episode(env_id: str, task_id: str, command: str, **kwargs: object) -> dict:
    """One episode: the scripted model runs ``command`` with Codex's shell tool, then says done."""
    env = gym.make(env_id, mode="harness", harness=codex(), **kwargs)
    try:
        _, info = env.reset(options={"task_id": task_id})
        replies = [ModelReply("Running it.", (ReplyToolCall("call_1", "exec_command", _json({"cmd": command})),)),
                   ModelReply("done")]  # fmt: skip
        while "request" in info and replies:
            _, reward, terminated, _, info = env.step(replies.pop(0))
        assert terminated and info["harness_status"] == "exited", info.get("harness_output")
        return {**info, "reward": reward}
    finally:
        env.close()


def _json(value: object) -> str:
    import json

    return json.dumps(value)


def heredoc(path: str, content: str) -> str:
    """Shell lines that write ``content`` to ``path`` byte for byte (the here-document's end
    stands alone on its line: join further commands with a newline)."""
    where = shlex.quote(path)
    write = f"mkdir -p {shlex.quote(str(Path(path).parent))} && cat > {where} <<'CODEGYM_EOF'\n{content}"
    if content.endswith("\n"):
        return f"{write}CODEGYM_EOF"
    return f"{write}\nCODEGYM_EOF\ntruncate -s -1 {where}"  # (no newline at its end: the one added goes)


def test_stdio_program() -> None:
    env = gym.make("codegym/StdioProgram-v0")
    task = next(task for task in env.unwrapped.tasks if task.language == "python" and task.reference)  # type: ignore[attr-defined]
    file = env.unwrapped.agent_setup(task).submission  # type: ignore[attr-defined]
    info = episode("codegym/StdioProgram-v0", task.id, heredoc(file, task.reference))
    assert (info["reward"], info["status"]) == (1.0, "OK")


def test_repo_repair() -> None:
    env = gym.make("codegym/RepoRepair-v1")
    task = next(iter(env.unwrapped.tasks))  # type: ignore[attr-defined]
    workspace = {path: content.decode() for path, content in task.metadata["instance"].workspace.items()}
    fixed = apply(task.reference, workspace)
    command = "\n".join(heredoc(path, content) for path, content in fixed.items() if content is not None)
    info = episode("codegym/RepoRepair-v1", task.id, command)
    assert (info["reward"], info["status"]) == (1.0, "OK"), info.get("code")


def test_terminal() -> None:
    solve = (TERMINAL_TASK / "solution" / "solve.sh").read_text()
    env = gym.make("codegym/Terminal-v0")
    task = next(t for t in env.unwrapped.tasks.ids if t.endswith("awk-busiest-hour"))  # type: ignore[attr-defined]
    info = episode("codegym/Terminal-v0", task, heredoc("/tmp/solve.sh", solve) + "\nbash /tmp/solve.sh")
    assert (info["reward"], info["status"]) == (1.0, "OK")
