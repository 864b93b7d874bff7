"""A scripted local model for each harness program: deterministic replies, in the tool calls the
program's API and tools expect, that write one file and then end the program's run. For smoke
checks, tests and benchmarks (a program that a new version broke shows here first)::

    reply = scripted_reply("codex", info["request"], "solution.py", code)

`SCRIPTS` maps a program's name to its script: the request (`codegym.harness.mode.request_record`'s
form), the file's path (relative to the program's folder) and content -> the reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from codegym.harness.wire import ModelReply, ReplyToolCall

Script = Callable[[Mapping[str, Any], str, str], ModelReply]
END = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"  # (mini-swe-agent's end command's output)


def _call(call_id: str, name: str, arguments: Mapping[str, Any]) -> ReplyToolCall:
    return ReplyToolCall(call_id, name, json.dumps(arguments))


def replies_so_far(request: Mapping[str, Any]) -> int:
    """How many times the model has answered in this conversation."""
    return sum(message.get("role") == "assistant" for message in request["messages"])


def _heredoc(path: str, content: str) -> str:
    return f"cat > {path} <<'CODEGYM_EOF'\n{content}CODEGYM_EOF"


def mini_swe_agent(request: Mapping[str, Any], path: str, content: str) -> ModelReply:
    """A ``bash`` call that writes the file, then mini-swe-agent's end command."""
    if replies_so_far(request) == 0:
        return ModelReply("I will write the file.", (_call("call_1", "bash", {"command": _heredoc(path, content)}),))
    return ModelReply("Done.", (_call("call_2", "bash", {"command": f"echo {END}"}),))


def shell_then_done(tool: str) -> Script:
    """A call of the program's shell tool ``tool`` that writes the file (its command argument
    named as the request's schema names it, with any other required string argument filled),
    then a reply without tool calls: how Codex, OpenCode and Claude Code end a run."""

    def script(request: Mapping[str, Any], path: str, content: str) -> ModelReply:
        if replies_so_far(request) > 0:
            return ModelReply("done")
        parameters = _parameters(request, tool)
        names = parameters.get("properties", {})
        command = "cmd" if "cmd" in names and "command" not in names else "command"
        arguments: dict[str, Any] = {command: _heredoc(path, content)}
        for name in parameters.get("required", ()):
            if name not in arguments and names.get(name, {}).get("type") == "string":
                arguments[name] = "Write the file"
        return ModelReply("I will write the file.", (_call("call_1", tool, arguments),))

    return script


def _parameters(request: Mapping[str, Any], tool: str) -> Mapping[str, Any]:
    for schema in request.get("tools", ()):
        function = schema.get("function", schema)
        if function.get("name") == tool:
            return function.get("parameters") or {}
    offered = [schema.get("function", schema).get("name") for schema in request.get("tools", ())]
    raise KeyError(f"the request offers no {tool!r} tool; it offers {offered}")


SCRIPTS: dict[str, Script] = {
    "mini-swe-agent": mini_swe_agent,
    "codex": shell_then_done("exec_command"),
    "opencode": shell_then_done("bash"),
    "claude-code": shell_then_done("Bash"),
}


def scripted_reply(program: str, request: Mapping[str, Any], path: str, content: str) -> ModelReply:
    """The scripted model's reply to ``request`` of ``program`` (a `KeyError` for a program
    without a script)."""
    if program not in SCRIPTS:
        raise KeyError(f"no scripted model for {program!r}; scripted: {sorted(SCRIPTS)}")
    return SCRIPTS[program](request, path, content)
