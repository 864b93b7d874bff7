"""``mode="harness"``: a family's agent episode driven by a real agent program.

The episode's machine is the family's own where it has one (a terminal task's, a project's:
`MachineEpisode`), else a box over a Debian root with the task's agent files in `WORKDIR`
(`FilesEpisode`: the families whose agent mode uses an executor workspace). The program runs
there (`ProgramRun`); each model request it makes is the env's observation and the action is
the reply (Gymnasium-style), or a model server answers (pass-through, ``model=URL``: the
first step runs the program to its end). When the program ends, the machine is graded as
agent mode's ``submit`` would grade it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from codegym.agent import AgentSetup
from codegym.executor import RunResult, StepResult
from codegym.executor.rootbox import BoxSpec, RootBox
from codegym.harness.install import MOUNT, installed
from codegym.harness.proxy import Exchange
from codegym.harness.recipe import Recipe
from codegym.harness.run import HarnessLimits, ProgramEnd, ProgramRun
from codegym.harness.wire import ModelReply, ModelRequest, ReplyToolCall, content_text
from codegym.machine_episode import MachineEpisode, Place
from codegym.tools.calls import parse_tool_calls

if TYPE_CHECKING:
    from codegym.core import CodeEnv
    from codegym.task import Task

WORKDIR = "/workspace"  # where a FilesEpisode's box holds the task's agent files
BASE_PACKAGES = ("python3", "python3-pip", "python3-venv", "python-is-python3")  # a FilesEpisode's root
_CALL_OPENER = re.compile(r"<tool_call>|<function=|^[ \t]*`{3,}[ \t]*(?:bash|sh)[ \t]*$", re.M | re.I)


@dataclass(frozen=True)
class HarnessSpec:
    """Which program drives a harness episode, and how.

    Attributes:
        program: The program's `Recipe`, or its name (`codegym.harness.programs.RECIPES`).
        model: Pass-through: the root URL of an OpenAI-compatible server (``http://host:8000/v1``)
            that answers every request; None: the env's actions answer them.
        limits: The program's budgets.
        tools: Its tool folder (by default, the one set-up installed).
    """

    program: Recipe | str
    model: str | None = None
    limits: HarnessLimits = field(default_factory=HarnessLimits)
    tools: str | None = None

    @property
    def recipe(self) -> Recipe:
        from codegym.harness.recipe import recipe

        return self.program if isinstance(self.program, Recipe) else recipe(self.program)

    def tools_folder(self) -> str:
        """The tool folder to mount, or a `FileNotFoundError` that says how to install it."""
        recipe = self.recipe
        folder = self.tools or installed(recipe)
        if folder is None:
            raise FileNotFoundError(
                f"{recipe.name} is not installed for harness mode: run `python -m codegym.harness.install "
                f"{recipe.name}` (the README's set-up does)"
            )
        return folder

    def binds(self) -> tuple[tuple[str, str, bool], ...]:
        """The box mounts a harness episode needs: the tool folder, read-only."""
        return ((self.tools_folder(), MOUNT, True),)


def harness_spec(harness: HarnessSpec | Recipe | str | Mapping[str, Any] | None, model: str | None) -> HarnessSpec:
    """``harness=`` and ``model=`` of an env, as one spec (a `ValueError` where they do not fit)."""
    if harness is None:
        raise ValueError("mode='harness' needs harness=: a program's name (mini-swe-agent, opencode, codex, "
                         "claude-code), a Recipe or a HarnessSpec")  # fmt: skip
    if isinstance(harness, Mapping):  # (JSON: over the wire, from a config file)
        fields = dict(harness)
        limits = fields.pop("limits", None) or {}
        try:
            harness = HarnessSpec(**fields, limits=HarnessLimits(**limits))
        except TypeError as e:
            raise ValueError(f"harness= as a mapping takes program, model, limits and tools: {e}") from e
    spec = harness if isinstance(harness, HarnessSpec) else HarnessSpec(harness)
    if model is not None:
        spec = HarnessSpec(spec.program, model, spec.limits, spec.tools)
    spec.recipe  # noqa: B018  (an unknown name fails here, at make)
    return spec


class FilesEpisode(MachineEpisode):
    """A machine for a family whose agent files are a workspace's (a function's statement,
    tests and stub): a Debian root with Python, the files in `WORKDIR`, its user root."""

    def __init__(self, env: CodeEnv, task: Task, binds: tuple[tuple[str, str, bool], ...]) -> None:
        from codegym.executor.layers import LayerStore

        self.setup: AgentSetup = env.agent_setup(task)
        self.limits = env.agent_limits
        self.start()
        root = LayerStore().base("bookworm", BASE_PACKAGES)
        self.box = RootBox(BoxSpec(layers=(root,), binds=binds, disk_bytes=self.limits.disk_bytes))
        self.box.write_files({f"{WORKDIR}/{path}": content for path, content in self.setup.files.items()})
        if self.setup.executables:
            paths = " ".join(shlex.quote(f"{WORKDIR}/{path}") for path in self.setup.executables)
            self.box.run(("/bin/sh", "-c", f"chmod +x {paths}"), timeout_s=30.0)

    def place(self) -> Place:
        return Place(cwd=WORKDIR, env=dict(self.setup.env), background="kill")

    def run(self, argv: tuple[str, ...]) -> RunResult:
        """Run a command of the family's own in `WORKDIR` (not a tool call): its output (stdout
        and stderr together) as its step's stdout, as `AgentEpisode.run` gives a family."""
        result = self.box.run(argv, cwd=WORKDIR, env=dict(self.setup.env), timeout_s=120.0,
                              output_bytes=16 << 20, background="kill")  # fmt: skip
        step = StepResult(argv=argv, exit_code=result.exit_code, signal=result.signal,
                          stdout=result.output.encode(), wall_s=result.elapsed_s)  # fmt: skip
        return RunResult(steps=(step,))

    def read_submission(self) -> str:
        content = self.read_files((self.setup.submission,)).get(self.setup.submission, b"")
        return content.decode(errors="replace")

    def read_files(self, paths: tuple[str, ...]) -> dict[str, bytes]:
        """Those of ``paths`` (in `WORKDIR`) that are regular files, not links."""
        found: dict[str, bytes] = {}
        for path in paths:
            where = shlex.quote(f"{WORKDIR}/{path}")
            command = f"[ -f {where} ] && [ ! -L {where} ] && cat {where} > /tmp/.codegym-read"
            result = self.box.run(("/bin/sh", "-c", command), timeout_s=30.0, background="kill",
                                  collect="/tmp/.codegym-read")  # fmt: skip
            if result.exit_code == 0 and result.collected is not None:
                found[path] = result.collected
        return found


def instruction_of(env: CodeEnv, task: Task, episode: MachineEpisode) -> str:
    """What the program is told: the task as agent mode poses it, without codegym's tool names
    (the program has tools of its own), and that it should stop when done."""
    setup = episode.setup
    if isinstance(episode, FilesEpisode):
        graded = setup.graded or setup.submission
        lines = [env.render_prompt(task).rstrip(), "",
                 f"The task's files are in {WORKDIR}. Your answer is {graded}: write it there."]  # fmt: skip
        if setup.instructions:
            lines += ["", setup.instructions.strip()]
        lines += ["", "When you are done, stop: the answer is then graded with hidden tests."]
        return "\n".join(lines)
    return (
        env.episode_prompt(task)
        .replace("call submit", "stop")
        .replace("Run commands with the bash tool; view and edit files with str_replace_editor (absolute paths). ", "")
    )


def to_reply(action: object, request: ModelRequest) -> tuple[ModelReply, list[str]]:
    """The policy's action as the reply to ``request``, and the format errors found in it.

    ``action`` is a `ModelReply`; an OpenAI assistant message (``content``, ``tool_calls``); or
    the model's raw text, whose Hermes ``<tool_call>``, ``<function=...>`` or fenced bash
    calls are checked against the request's tools (the text before the first call is the
    reply's content; a malformed call is left out and reported).
    """
    if isinstance(action, ModelReply):
        return action, []
    if isinstance(action, Mapping):
        return ModelReply.from_message(dict(action)), []
    if not isinstance(action, str):
        raise TypeError(
            "a harness step's action is the model's reply: its text, an OpenAI assistant message (a dict with "
            f"content and tool_calls) or a codegym.harness.ModelReply; got {type(action).__name__}"
        )
    opener = _CALL_OPENER.search(action)
    if opener is None:
        return ModelReply(content=action), []
    parsed = parse_tool_calls(action, list(request.tools))
    calls = tuple(
        ReplyToolCall(call.id, call.name, json.dumps(call.arguments, ensure_ascii=False)) for call in parsed.calls
    )
    return ModelReply(content=action[: opener.start()].rstrip(), tool_calls=calls), list(parsed.errors)


def since_last_reply(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The messages after the model's last one (all of them, where it has not spoken yet)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return list(messages[last + 1 :])


def request_feedback(request: ModelRequest) -> str:
    """The observation's ``feedback``: what is new in ``request`` since the model last spoke
    (the messages after its last one: tool results, the program's notes)."""
    return "\n\n".join(_message_text(message) for message in since_last_reply(request.messages))


def _message_text(message: Mapping[str, Any]) -> str:
    return f"[{message.get('role', '?')}]\n{content_text(message.get('content'))}"


def end_info(end: ProgramEnd) -> dict[str, Any]:
    """How the program ended, for ``info``."""
    return {"harness_status": end.status, "harness_detail": end.detail, "harness_exit_code": end.exit_code,
            "harness_turns": end.turns, "harness_program_s": round(end.program_s, 3),
            "harness_output": end.output[-4000:], "harness_output_elided": end.elided_bytes}  # fmt: skip


__all__ = ["FilesEpisode", "HarnessSpec", "ProgramRun", "harness_spec", "instruction_of", "to_reply"]


def request_record(request: ModelRequest) -> dict[str, Any]:
    """A request as plain data (``info["request"]``): its API, model, whether it streams, and
    its chat messages and tools (the Chat Completions form of what the program sent)."""
    return {"api": request.api, "model": request.model, "stream": request.stream,
            "messages": [dict(message) for message in request.messages],
            "tools": [dict(tool) for tool in request.tools]}  # fmt: skip


def calls_record(calls: list[Exchange]) -> list[dict[str, Any]]:
    """The program's model calls as plain data (``info["model_calls"]``, the episode's record):
    each request as sent, the reply given (text, tool calls, token ids and log-probs where a
    server returned them), the HTTP status and the seconds it took."""
    return [{"index": call.index, "path": call.path, "api": call.api, "body": call.body,
             "reply": None if call.reply is None else _plain(asdict(call.reply)), "status": call.status,
             "error": call.error, "seconds": round(call.finished - call.started, 6)}
            for call in calls]  # fmt: skip


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists (what JSON gives back): a record reads as it was made."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
