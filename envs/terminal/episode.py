"""`TerminalEpisode`: an agent episode whose workspace is a whole machine (see `codegym.envs.terminal.env`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from codegym.envs.terminal.machine import agent_user, shell, workdir
from codegym.envs.terminal.steps import stages
from codegym.envs.terminal.tasks import terminal_of

from codegym.error import InvalidTask
from codegym.machine_episode import MachineEpisode, Place
from codegym.task import Task

if TYPE_CHECKING:
    from codegym.envs.terminal.env import Background, Judged, TerminalEnv


class TerminalEpisode(MachineEpisode):
    """An agent episode whose workspace is a whole machine (a `RootBox`): the bash tool runs
    a command there as the task's user, the editor and search tools act on its files."""

    def __init__(self, env: TerminalEnv, task: Task) -> None:
        self.setup = env.agent_setup(task)
        self.limits = env.agent_limits
        self.start()
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

    def place(self) -> Place:
        return Place(user=agent_user(self.terminal, self.built), cwd=workdir(self.terminal, self.built),
                     env=dict(self.built.env), shell=shell(self.built), background=self.background)  # fmt: skip

    def own_state(self) -> dict[str, Any]:
        """The task (its steps), the current step, the steps judged and the reward given so far."""
        return {"terminal": self.terminal, "built": self.built, "stage": self.stage, "judged": tuple(self.judged),
                "rewarded": self.rewarded}  # fmt: skip

    def restore_own_state(self, state: Mapping[str, Any]) -> None:
        self.terminal, self.built, self.stage = state["terminal"], state["built"], state["stage"]
        self.judged, self.rewarded = list(state["judged"]), state["rewarded"]

    def read_submission(self) -> str:
        return ""
