"""Agent episodes: a task's workspace, the tools a model calls in it, and a grade at submit.

``mode="agent"`` turns any family into a multi-turn tool-use episode. At reset the family's
`AgentSetup` (the statement, public tests, a script that runs them, and the stub of the file
that will be graded) becomes the layer of a fresh workspace (`codegym.executor.workspace`),
and the env offers four tools, declared as OpenAI function schemas (`codegym.tools.schemas`):
``bash``, ``str_replace_editor``, ``search`` and ``submit``, plus any the family runs itself
(`FamilyTool`: a visual task's ``render``, which compares with a target the workspace never
holds). Each ``step`` takes the model's raw
text (or parsed calls; see `codegym.tools.calls`) and runs its calls in order, each as a fresh
confined process tree in the workspace, killed whole when it returns. ``submit`` reads the
submission file from the workspace and grades it exactly as a single-shot step would, in a
fresh sandbox, with hidden tests that were never in the workspace.

Reward is 0 until ``submit``, which terminates the episode with the grade's reward. A budget
(tool calls, seconds spent in tools, the workspace's bytes) that runs out truncates it, as does
the loss of the workspace's worker, which is flagged ``info["infra_error"]`` and never scored.
"""

from __future__ import annotations

import copy
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step
from codegym.executor.base import MiB
from codegym.executor.workspace import Changes, Layer, Workspace
from codegym.tools.calls import ToolCall
from codegym.tools.schemas import tool_schemas

TOOL_MODULES = ("codegym.tools.shell", "codegym.tools.editor", "codegym.tools.search")
PROGRAMS = {
    "bash": "codegym.tools.shell",
    "str_replace_editor": "codegym.tools.editor",
    "search": "codegym.tools.search",
}
MARGIN_S = 2.0  # a bash call's wall limit beyond its own timeout, for the runner to report it


@dataclass(frozen=True)
class AgentSetup:
    """What a family puts in a task's workspace (the family's `CodeEnv.agent_setup`).

    Attributes:
        files: The workspace's files: statement, public tests, a test runner, the stub.
        submission: The file read and graded at ``submit``.
        executables: Paths of ``files`` made executable (the test runner).
        instructions: What the prompt adds about the workspace (how to run the tests).
        sockets: What creating a network socket does in a call: fail with ``"errno"`` for a
            toolchain that probes for one at start-up (a JVM), else ``"kill"`` (see `Step`).
        processes: The fewest processes a call may run (a toolchain's threads), when more
            than `AgentLimits.command` allows.
        memory_slack_bytes: `Step.memory_slack_bytes` of every call (a JVM's mapped heap).
        env: Environment variables of every call (a test environment's ``PYTHONPATH``).
        graded: What ``submit`` grades, in the prompt's words (``submission`` by default);
            a family that grades more than one file reads them in its
            `CodeEnv.agent_submission`.
        listed: How many of ``files`` the prompt lists (the rest are counted).
    """

    files: Mapping[str, bytes]
    submission: str
    executables: tuple[str, ...] = ()
    instructions: str = ""
    sockets: Literal["kill", "errno"] = "kill"
    processes: int = 0
    memory_slack_bytes: int = 0
    env: tuple[tuple[str, str], ...] = ()
    graded: str = ""
    listed: int = 60


@dataclass(frozen=True)
class FamilyTool:
    """A tool a family runs on the harness's side (`CodeEnv.agent_tools`), for what needs
    something the workspace must not hold: a visual task's ``render`` compares the
    workspace's file with a target picture that never enters it.

    Attributes:
        name: The tool's name (not one of the four every agent env offers).
        description: What it does, for the model.
        run: The tool: given the episode (to read the workspace's files) and the call's
            arguments, what the model reads and the call's exit status (0: did its job).
        properties: The JSON schemas of its arguments, by name.
        required: The arguments a call must give.
    """

    name: str
    description: str
    run: Callable[[AgentEpisode, Mapping[str, Any]], tuple[str, int]]
    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The tool's OpenAI function schema."""
        parameters = {"type": "object", "properties": dict(self.properties), "required": list(self.required),
                      "additionalProperties": False}  # fmt: skip
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": parameters}}  # fmt: skip


@dataclass(frozen=True)
class AgentLimits:
    """The budgets of an agent episode.

    Attributes:
        command: Limits of every tool call's process tree (its wall limit is the bash
            call's timeout plus a margin; ``disk_bytes`` sizes its fresh /tmp).
        timeout_s: A bash call's timeout when it names none.
        max_timeout_s: The most a bash call may ask for.
        output_bytes: The most bytes of a call's output shown (head and tail; the rest is
            kept in the workspace).
        max_calls: Tool calls per episode, malformed ones included.
        wall_s: Seconds the episode's tool calls may take in all.
        disk_bytes: The workspace's quota.
        idle_timeout_s: A workspace without a call for this long expires.
    """

    command: Limits = field(
        default_factory=lambda: Limits(cpu_s=60.0, wall_s=60.0, memory_bytes=1024 * MiB, processes=64,
                                       output_bytes=64 * 1024, file_size_bytes=64 * MiB, disk_bytes=256 * MiB)
    )  # fmt: skip
    timeout_s: float = 30.0
    max_timeout_s: float = 120.0
    output_bytes: int = 16_000
    max_calls: int = 64
    wall_s: float = 1800.0
    disk_bytes: int = 256 * MiB
    idle_timeout_s: float = 1800.0

    def __post_init__(self) -> None:
        if not 0 < self.timeout_s <= self.max_timeout_s:
            raise ValueError(f"need 0 < timeout_s <= max_timeout_s, got {self.timeout_s} and {self.max_timeout_s}")
        for name in ("output_bytes", "max_calls", "wall_s", "disk_bytes", "idle_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"AgentLimits.{name} must be positive, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class ToolResult:
    """What one tool call did, in the shape a ``role="tool"`` message needs.

    Attributes:
        tool_call_id: The call's id.
        name: The tool.
        content: What the model reads: the tool's output, or why it failed.
        exit_code: The command's exit status (0 for a tool that did its job, 1 for one that
            refused: a bad path, an old_str not found), None when it was killed.
        truncated: Whether output was cut, as the runner or the sandbox says (bytes elided
            around the bash tool's elision line, whose full output is in the workspace; a
            machine's output cap; a sandbox's output limit), never read from the text.
        elapsed_s: Wall-clock seconds the call took.
        timed_out: Whether it was stopped for running past its time: the bash tool's timeout
            (the runner's, or a machine's), or its sandbox's wall-clock or CPU limit. A
            command's own ``timeout(1)`` exiting 124 is not one.
        background_killed: Processes the call left running when it returned, killed then:
            by the bash tool's runner in a workspace (everything the command started, but
            its process group on a time-out, which the time-out killed); by a machine that
            kills what a command leaves (``background="kill"``; 0 with ``"keep"``, whose
            processes live on); 0 for the editor and search, which start none. None where
            it is not known: a family's own tool, a call its sandbox killed before the
            runner could count, a record made before the field existed.
    """

    tool_call_id: str
    name: str
    content: str
    exit_code: int | None
    truncated: bool
    elapsed_s: float
    timed_out: bool = False
    background_killed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render(self) -> str:
        status = "killed" if self.exit_code is None else f"exit {self.exit_code}"
        return f"[{self.name} {self.tool_call_id}: {status}]\n{self.content or '(no output)'}"


class AgentEpisode:
    """One episode's workspace and budgets: runs tool calls, reads the submission."""

    def __init__(
        self,
        executor: Executor,
        setup: AgentSetup,
        limits: AgentLimits,
        tools: Sequence[FamilyTool] = (),
        changes: Changes | None = None,
    ) -> None:
        """Open the episode's workspace over the setup's files (with ``changes`` applied: a
        snapshot carried from elsewhere, see `codegym.episodes.branch.load`)."""
        self.setup = setup
        self.limits = limits
        self.family_tools = {tool.name: tool for tool in tools}
        layer = Layer(setup.files, setup.executables)
        if changes is not None:
            layer = layer.with_changes(changes)
        self.workspace: Workspace = executor.open_workspace(
            layer, disk_bytes=limits.disk_bytes, idle_timeout_s=limits.idle_timeout_s, preload=TOOL_MODULES
        )
        self.calls = 0
        self.elapsed_s = 0.0

    def exhausted(self) -> str | None:
        """The budget that has run out, if one has: "calls", "wall" or "disk"."""
        if self.calls >= self.limits.max_calls:
            return "calls"
        if self.elapsed_s >= self.limits.wall_s:
            return "wall"
        if self.workspace.over_quota:
            return "disk"
        return None

    def call(self, call: ToolCall) -> ToolResult:
        """Run a bash, str_replace_editor, search or family call (raises `SandboxError` when
        the sandbox fails, `WorkspaceLost` when the workspace is gone)."""
        self.calls += 1
        started = time.monotonic()
        arguments = dict(call.arguments)
        if call.name in self.family_tools:
            content, exit_code = self.family_tools[call.name].run(self, arguments)
            elapsed = time.monotonic() - started
            self.elapsed_s += elapsed
            return ToolResult(call.id, call.name, content.strip("\n"), exit_code, False, round(elapsed, 6))
        limits = self.limits.command
        nonce = None
        if call.name == "bash":
            timeout = min(float(arguments.get("timeout_s") or self.limits.timeout_s), self.limits.max_timeout_s)
            timeout = min(timeout, self.limits.wall_s - self.elapsed_s)
            nonce = secrets.token_hex(8)
            arguments = {
                "command": arguments["command"],
                "timeout_s": timeout,
                "output_bytes": self.limits.output_bytes,
                "report": nonce,  # (the runner's report line: see codegym.tools.shell)
            }
            limits = replace(limits, wall_s=timeout + MARGIN_S, cpu_s=max(limits.cpu_s, timeout + MARGIN_S))
        setup = self.setup
        limits = replace(
            limits,
            output_bytes=max(limits.output_bytes, 2 * self.limits.output_bytes + 4096),
            processes=max(limits.processes, setup.processes),
        )
        step = Step(
            argv=("python", "-m", PROGRAMS[call.name]),
            stdin=json.dumps(arguments).encode(),
            sockets=setup.sockets,
            memory_slack_bytes=setup.memory_slack_bytes,
            env=setup.env,
        )
        result = self.workspace.run(Job(steps=(step,), limits=limits, preload=TOOL_MODULES))
        elapsed = time.monotonic() - started
        self.elapsed_s += elapsed
        return _tool_result(call, result, elapsed, nonce)

    def workdir(self) -> str:
        """The folder the tools start in, as they see it: the workspace's path in the sandbox
        (``/sandbox``, or the worker's own folder in the `container` tier)."""
        return self.workspace.workdir

    def read_submission(self) -> str:
        """The submission file's text ("" when it is missing, a link, or not a file)."""
        content = self.read_files((self.setup.submission,)).get(self.setup.submission, b"")
        return content.decode(errors="replace")

    def read_files(self, paths: tuple[str, ...]) -> dict[str, bytes]:
        """The contents of those of ``paths`` that are regular files of the workspace."""
        job = Job(steps=(Step(argv=("true",)),), limits=self.limits.command, collect=paths)
        return dict(self.workspace.run(job).files)

    def run(self, argv: tuple[str, ...]) -> RunResult:
        """Run a command of the family's own in the workspace (not counted as a tool call)."""
        step = Step(argv=argv, env=self.setup.env)
        return self.workspace.run(Job(steps=(step,), limits=self.limits.command, preload=TOOL_MODULES))

    def snapshot(self) -> EpisodeSnapshot:
        """The workspace's tree and the budgets spent, frozen (see `Workspace.snapshot`)."""
        return EpisodeSnapshot(self.workspace.snapshot(), self.calls, self.elapsed_s)

    def restore(self, snapshot: EpisodeSnapshot) -> None:
        """Back to ``snapshot``: its tree, its budgets spent."""
        self.workspace.restore(snapshot.workspace)
        self.calls, self.elapsed_s = snapshot.calls, snapshot.elapsed_s

    def fork(self, snapshot: EpisodeSnapshot) -> AgentEpisode:
        """A new episode of the same task, setup and tools, going on from ``snapshot``."""
        child = copy.copy(self)
        child.workspace = self.workspace.fork(snapshot.workspace)
        child.calls, child.elapsed_s = snapshot.calls, snapshot.elapsed_s
        return child

    def release(self, snapshot: EpisodeSnapshot) -> None:
        self.workspace.release(snapshot.workspace)

    def close(self) -> None:
        self.workspace.close()


@dataclass(frozen=True)
class EpisodeSnapshot:
    """An agent episode frozen between two steps: no process runs then, so its workspace's
    files and its budgets are its whole state.

    Attributes:
        workspace: The tree's snapshot (a `Snapshot`), or a machine episode's
            (`codegym.machine_episode.MachineSnapshot`: its box's files and its own values).
        calls: Tool calls made.
        elapsed_s: Wall-clock seconds its calls took.
    """

    workspace: Any  # (Snapshot | MachineSnapshot: Any, so that the workspace episodes' readers need no narrowing)
    calls: int
    elapsed_s: float


def _tool_result(call: ToolCall, result: RunResult, elapsed: float, nonce: str | None) -> ToolResult:
    """The result of a workspace's tool program: its output, and what its runner (``nonce``: the
    bash tool's, whose report line ends its stderr) and the sandbox say happened."""
    step = result.steps[0]
    report, stderr = _split_report(step.stderr, nonce) if nonce is not None else ({}, step.stderr)
    content = step.stdout.decode(errors="replace")
    if stderr:  # (the tool program itself failed: its traceback)
        content += stderr.decode(errors="replace")
    if step.limit is not None:
        content += f"\n[the call was killed: it exceeded its {_LIMIT_WORDS.get(step.limit, step.limit)} limit]"
    elided = report.get("elided_bytes")
    truncated = step.limit == "output" or (isinstance(elided, int) and elided > 0)
    timed_out = step.limit in ("wall", "cpu") or report.get("timed_out") is True
    left = report.get("background_killed")
    if nonce is None:  # (the editor and search start no process)
        left = 0
    return ToolResult(call.id, call.name, content.strip("\n"), step.exit_code, truncated, round(elapsed, 6),
                      timed_out, left if isinstance(left, int) else None)  # fmt: skip


def _split_report(stderr: bytes, nonce: str) -> tuple[dict[str, Any], bytes]:
    """The bash tool's report (the last line of ``stderr``, after ``nonce`` and a space: see
    `codegym.tools.shell`) and the rest of ``stderr``; an empty report where it has none (the
    runner was killed, or failed)."""
    head, _, line = stderr.rstrip(b"\n").rpartition(b"\n")
    marker = nonce.encode() + b" "
    if not line.startswith(marker):
        return {}, stderr
    try:
        report = json.loads(line[len(marker) :])
    except ValueError:
        return {}, stderr
    return (report, head) if isinstance(report, dict) else ({}, stderr)


_LIMIT_WORDS = {"cpu": "CPU time", "wall": "time", "memory": "memory", "output": "output", "processes": "process"}


def tools_for(limits: AgentLimits, family: Sequence[FamilyTool] = ()) -> list[dict[str, Any]]:
    """The tool schemas of an agent env with ``limits`` and the ``family``'s own tools
    (listed before ``submit``)."""
    *common, submit = tool_schemas(max_timeout_s=limits.max_timeout_s)
    taken = [schema["function"]["name"] for schema in (*common, submit)]
    clashing = [tool.name for tool in family if tool.name in taken]
    if clashing:
        raise ValueError(f"a family tool may not take the name of a common tool ({', '.join(taken)}): {clashing}")
    return [*common, *(tool.schema() for tool in family), submit]


def agent_prompt(statement: str, setup: AgentSetup) -> str:
    """The prompt of an agent episode: the task, then the workspace and how to finish."""
    paths = sorted(path for path in setup.files if not path.startswith(".git/"))
    listing = "\n".join(f"- {path}" for path in paths[: setup.listed])
    if len(paths) > setup.listed:
        listing += f"\n- ... and {len(paths) - setup.listed} more"
    return (
        f"{statement.rstrip()}\n\n"
        "You work in a workspace (the current directory) with these files:\n"
        f"{listing}\n\n"
        f"{setup.instructions.strip()}\n\n"
        "Use the tools to explore, edit and test. When you are done, call submit, and "
        f"{setup.graded or setup.submission} will be graded against hidden tests, in a fresh sandbox."
    ).replace("\n\n\n", "\n\n")


def infra_message(error: SandboxError) -> str:
    return f"the episode ended: the sandbox failed (not your fault): {error}"
