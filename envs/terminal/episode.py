"""`TerminalEpisode`: an agent episode whose workspace is a whole machine (see `codegym.envs.terminal.env`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from codegym.envs.terminal.machine import agent_user, shell, workdir
from codegym.envs.terminal.steps import stages
from codegym.envs.terminal.tasks import terminal_of

from codegym.agent import AgentEpisode, ToolResult
from codegym.error import InvalidTask
from codegym.task import Task
from codegym.tools.calls import ToolCall

if TYPE_CHECKING:
    from codegym.envs.terminal.env import Background, Judged, TerminalEnv

EDITOR, SEARCH = "codegym.tools.editor", "codegym.tools.search"


class TerminalEpisode(AgentEpisode):
    """An agent episode whose workspace is a whole machine (a `RootBox`): the bash tool runs
    a command there as the task's user, the editor and search tools act on its files."""

    def __init__(self, env: TerminalEnv, task: Task) -> None:
        self.setup = env.agent_setup(task)
        self.limits = env.agent_limits
        self.family_tools = {}
        self.calls = 0
        self.elapsed_s = 0.0
        self.terminal = terminal_of(task)
        self.built = env.environment(task)
        self.background: Background = env.background
        self.env = env
        self.stage = 0  # (a multi-step task's current step)
        self.judged: list[tuple[str, Judged]] = []
        self.rewarded = 0.0  # the reward given so far
        self.box = env.open_box(task)
        if not self.set_up():
            self.box.close()
            raise InvalidTask(f"task {task.id}: its first step's setup.sh fails on the pristine machine")

    def set_up(self) -> bool:
        """Prepare the current step (its workdir files and setup.sh); whether that succeeded."""
        stage = stages(self.terminal)[self.stage]
        folder, user = workdir(self.terminal, self.built), agent_user(self.terminal, self.built)
        return self.env.set_up_stage(self.box, stage, folder, user, dict(self.built.env))

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
        user, cwd = agent_user(self.terminal, self.built), workdir(self.terminal, self.built)
        env = dict(self.built.env)
        if call.name == "bash":
            asked = float(arguments.get("timeout_s") or self.limits.timeout_s)
            timeout = max(0.001, min(asked, self.limits.max_timeout_s, self.limits.wall_s - self.elapsed_s))
            result = self.box.run((*shell(self.built), str(arguments.get("command", ""))), user=user, cwd=cwd,
                                  env=env, timeout_s=timeout, output_bytes=self.limits.output_bytes,
                                  background=self.background)  # fmt: skip
            content = result.output
            if result.timed_out:
                content += f"\n[the command timed out after {timeout:g} s and was killed]"
            exit_code = 124 if result.timed_out else result.exit_code
            if result.signal is not None:
                exit_code = 128 + result.signal
        else:
            module = EDITOR if call.name == "str_replace_editor" else SEARCH
            result = self.box.tool(module, arguments, user=user, cwd=cwd, env=env,
                                   output_bytes=self.limits.output_bytes)  # fmt: skip
            content, exit_code = result.output, result.exit_code
        elapsed = time.monotonic() - started
        self.elapsed_s += elapsed
        return ToolResult(
            call.id, call.name, content.strip("\n"), exit_code, result.elided_bytes > 0, round(elapsed, 6)
        )

    def read_submission(self) -> str:
        return ""

    def close(self) -> None:
        self.box.close()
