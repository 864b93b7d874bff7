"""`MachineEpisode`: an agent episode whose workspace is a whole machine (a
`codegym.executor.rootbox.RootBox`), shared by the families that give an agent one (a terminal
task's machine, a project's).

The bash tool runs a command there, as the family's user, in its folder, with its variables;
the editor and search tools act on the machine's files from processes the box's init starts
(codegym's own code, never the machine's programs). The budgets are the episode's calls, its
wall-clock time and the machine's disk quota.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from codegym.agent import AgentEpisode, ToolResult
from codegym.executor.rootbox import Background, RootBox
from codegym.tools.calls import ToolCall

EDITOR, SEARCH = "codegym.tools.editor", "codegym.tools.search"


@dataclass(frozen=True)
class Place:
    """Where and how a machine's tool calls run.

    Attributes:
        user: The machine's user that runs them.
        cwd: The folder they start in.
        env: Their variables.
        shell: The bash tool's shell (its command is appended).
        background: What becomes of the processes a command leaves (see `RootBox.run`).
    """

    user: str = "root"
    cwd: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    shell: tuple[str, ...] = ("/bin/bash", "-c")
    background: Background = "keep"


class MachineEpisode(AgentEpisode):
    """Tool calls in ``self.box`` where `place` says; a family sets ``box``, ``setup`` and
    ``limits`` (and ``family_tools``, ``calls``, ``elapsed_s``: see `start`)."""

    box: RootBox

    def start(self) -> None:
        """The budgets' counters at zero, and no family tool."""
        self.family_tools = {}
        self.calls = 0
        self.elapsed_s = 0.0

    def place(self) -> Place:
        """Where this episode's calls run now (a multi-step task may move them)."""
        return Place()

    def exhausted(self) -> str | None:
        if self.calls >= self.limits.max_calls:
            return "calls"
        if self.elapsed_s >= self.limits.wall_s:
            return "wall"
        if self.box.over_quota:
            return "disk"
        return None

    def call(self, call: ToolCall) -> ToolResult:
        self.calls += 1
        started = time.monotonic()
        arguments = dict(call.arguments)
        where = self.place()
        if call.name == "bash":
            asked = float(arguments.get("timeout_s") or self.limits.timeout_s)
            timeout = max(0.001, min(asked, self.limits.max_timeout_s, self.limits.wall_s - self.elapsed_s))
            command = (*where.shell, str(arguments.get("command", "")))
            result = self.box.run(command, user=where.user, cwd=where.cwd, env=where.env, timeout_s=timeout,
                                  output_bytes=self.limits.output_bytes, background=where.background)  # fmt: skip
            content = result.output
            if result.timed_out:
                content += f"\n[the command timed out after {timeout:g} s and was killed]"
            exit_code = 124 if result.timed_out else result.exit_code
            if result.signal is not None:
                exit_code = 128 + result.signal
        else:
            module = EDITOR if call.name == "str_replace_editor" else SEARCH
            result = self.box.tool(module, arguments, user=where.user, cwd=where.cwd, env=where.env,
                                   output_bytes=self.limits.output_bytes)  # fmt: skip
            content, exit_code = result.output, result.exit_code
        elapsed = time.monotonic() - started
        self.elapsed_s += elapsed
        return ToolResult(
            call.id, call.name, content.strip("\n"), exit_code, result.elided_bytes > 0, round(elapsed, 6)
        )

    def snapshot(self) -> Any:
        raise NotImplementedError(
            "a machine's episode (a terminal task's) cannot be snapshot yet: its processes, not only its files, "
            "are its state; replay the episode's tool calls into a fresh one instead"
        )

    def close(self) -> None:
        self.box.close()
