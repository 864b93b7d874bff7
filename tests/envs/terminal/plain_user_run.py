"""Scores terminal episodes as the plain user this runs as (see ``test_plain_user.py``).

Reads ``{"tasks": DIR, "cases": [[label, task_id, script or null (the oracle)], ...]}`` on
stdin; prints ``{label: {"reward", "status"}, "isolation": ..., "agent": reward}`` as JSON:
each case in single mode, then one episode in agent mode (a tool call, an edit, submit) and a
fork of it, taken before submit, that submits on its own (``"fork"``), and one in harness mode
(Codex CLI answering, its model calls served over the box's loopback: ``"harness"``, None
where Codex is not installed)."""

from __future__ import annotations

import json
import sys

from codegym.envs.terminal.env import TerminalEnv

from codegym.episodes import fork


def main() -> None:
    request = json.load(sys.stdin)
    results: dict[str, object] = {}
    env = TerminalEnv(request["tasks"], mode="single", on_task_error="raise")
    try:
        results["isolation"] = env.isolation
        for label, task_id, script in request["cases"]:
            env.reset(options={"task_id": task_id})
            code = env.tasks.get(task_id).reference if script is None else script
            _, reward, _, _, info = env.step(code)
            results[label] = {"reward": reward, "status": info["grade"].status.value}
    finally:
        env.close()
    agent = TerminalEnv(request["tasks"], mode="agent")
    try:
        agent.reset(options={"task_id": "sum"})
        look = {"name": "bash", "arguments": {"command": "id -u; cat /app/numbers.txt"}}
        observation, *_ = agent.step([look])
        create = {"name": "str_replace_editor",
                  "arguments": {"command": "create", "path": "/app/answer.txt", "file_text": "12\n"}}  # fmt: skip
        agent.step([create])
        (branch,) = fork(agent, 1)  # (judged over the copy its machine stands on)
        _, reward, terminated, _, _ = agent.step([{"name": "submit", "arguments": {}}])
        results["agent"] = {"reward": reward, "terminated": terminated, "seen": observation["feedback"]}
        _, reward, terminated, _, _ = branch.step([{"name": "submit", "arguments": {}}])
        results["fork"] = {"reward": reward, "terminated": terminated}
        branch.close()
    finally:
        agent.close()
    results["harness"] = _harness(request["tasks"])
    print(json.dumps(results))


def _harness(tasks: str) -> dict[str, object] | None:
    from codegym.harness.install import installed
    from codegym.harness.recipe import recipe
    from codegym.harness.wire import ModelReply, ReplyToolCall

    if installed(recipe("codex")) is None:
        return None
    env = TerminalEnv(tasks, mode="harness", harness="codex")
    try:
        _, info = env.reset(options={"task_id": "sum"})
        write = ReplyToolCall("call_1", "exec_command", json.dumps({"cmd": "echo 12 > /app/answer.txt"}))
        replies = [ModelReply("Writing it.", (write,)), ModelReply("done")]
        reward = 0.0
        while "request" in info and replies:
            _, reward, _, _, info = env.step(replies.pop(0))
        return {"reward": reward, "status": info.get("harness_status")}
    finally:
        env.close()


if __name__ == "__main__":
    main()
