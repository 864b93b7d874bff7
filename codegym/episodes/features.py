"""Trace features: what a critic (a value model, a filter of rollouts, a reward-hacking monitor)
can learn from, computed from a recorded episode alone, with no model call and nothing run.

`episode_features` reads one episode as `codegym.episodes.read_episodes` yields it and returns
an `EpisodeFeatures`; `features_table` does it for every episode of a file, one flat row each
(names to numbers and booleans, with the episode's ids), ready for ``pandas.DataFrame``::

    rows = features_table("episodes.jsonl")
    frame = pandas.DataFrame(rows)                  # one row per episode
    frame.groupby("untested_final_edit")["solved"].mean()

Where a feature reads what the env recorded (an exit status, `codegym.agent.ToolResult`'s
``truncated``, ``timed_out`` and ``background_killed``, the reset's ``workdir``, the grade), it
is exact. Where it reads what a shell command *says* (the files it writes or removes, whether
it runs tests), it parses the command (words, quotes, redirections, ``&&``/``;``/``|``/``&``,
``cd``, heredocs) and recognises a documented list of programs: a program that writes files by
itself (``python -c "open(...)"``) is not seen. Paths with a variable or ``~`` in them are not
judged. A record made before the env recorded a field (an older file) gets the text's reading
instead, as each feature says.

Every episode kind is read (``single``, ``refine`` and ``agent`` modes); the tool features are
0 for those without tools.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from codegym.episodes.record import read_episodes
from codegym.episodes.shell import is_test_path, locate, read_shell

__all__ = ["EpisodeFeatures", "episode_features", "features_table"]

WORKSPACE_ROOT = "/sandbox"  # where a workspace-backed agent episode's calls run (its files' root)
MACHINE_FAMILIES = frozenset({"terminal"})  # families whose agent works on a whole machine, its folder a task's
EDITING_COMMANDS = frozenset({"create", "str_replace", "insert", "undo_edit"})  # str_replace_editor's
TIMEOUT_STATUS = 124  # the bash tool's status for a command past its timeout (codegym.tools.shell)

Row = dict[str, "int | float | bool | str | None"]


@dataclass(frozen=True)
class EpisodeFeatures:
    """Features of one recorded episode (see the module docstring for how commands are read).

    Attributes:
        steps: Steps recorded (model turns).
        tool_calls: Well-formed tool calls, ``submit`` included.
        calls_per_step: ``tool_calls`` / ``steps`` (0.0 without steps).
        format_errors: Malformed calls: the ``{"error": ...}`` entries of the steps'
            ``tool_calls`` (bad JSON, an unknown tool, missing arguments).
        tool_errors: Calls of ``str_replace_editor``, ``search`` or a family's tool whose
            ``exit_code`` is not 0: the tool refused (a bad path, an ``old_str`` not found).
            A bash call's status is its command's, counted in ``failed_commands``.
        failed_commands: bash calls whose ``exit_code`` is not 0 (None, killed, included).
        failing_command_repeats: bash calls that fail with the very command (whitespace
            aside) of an earlier failing call, with no edit (see ``edits``) in between: the
            same failure run again while nothing changed; a loop of N identical failing calls
            counts N - 1.
        edits: Calls that change files: ``str_replace_editor`` create, str_replace, insert
            and undo_edit calls that succeeded (exit 0), and bash commands that write or
            remove a file outside the scratch folders (a ``>``/``>>`` redirection, ``tee``,
            ``sed -i``, ``perl -i``, ``cp``, ``mv``, ``install``, ``ln``, ``touch``,
            ``truncate``, ``rm``, ``unlink``, ``git rm``) or rewrite the tree (``patch``,
            ``git apply``/``am``/``checkout``/``restore``/``reset``/``stash``/``clean``).
        test_runs: bash calls that run tests: ``run_tests``, ``pytest``, ``python -m
            pytest``/``unittest``, ``python`` on a test file, ``tox``, ``nox``, ``go test``,
            ``cargo test``, ``npm``/``yarn``/``pnpm`` ``test``, ``jest``, ``vitest``,
            ``mocha``, ``make test``/``check``, ``ctest``, ``mvn test``/``verify``,
            ``gradle test``, ``rspec``, ``phpunit``, ``dotnet test``, ``mix test``,
            ``cabal``/``stack test``, ``bats``.
        untested_final_edit: There was an edit and no test run after the last one.
        test_edits: Calls that change a test file (one in a ``test``/``tests``/``spec``/
            ``__tests__``/``testing`` folder, ``test_*``, ``*_test.*``, ``*.test.*``,
            ``*.spec.*``, ``*Test.java``, ``*_spec.rb``, ``conftest.py``, ``run_tests``): an
            editor call that succeeded, or a bash command (any status) that writes or
            removes one; plus the test files the final submission changes when it is a diff.
        outside_writes: Writes aimed outside the work folder (``workdir``): editor calls
            that edit a path outside it (refused or not: the intent is the signal), and
            bash writes and removals outside it; the scratch folders (``/tmp``,
            ``/var/tmp``, ``/dev``) are not outside.
        deleted_files: Files that were there before the episode and are gone: distinct
            paths ``rm``/``unlink``/``git rm``/``mv`` (its sources) named that no earlier
            call of the episode had created (an editor ``create`` or a bash write) and no
            later one made again, and the files the final submission deletes when it is a
            diff (``+++ /dev/null``).
        stub_lines: Lines of the final submission that the model added (of a diff: its
            ``+`` lines; of a file: those not already in the prompt, so a stub's docstring
            is not counted) and that are a stub: ``pass`` or ``...`` alone, ``raise
            NotImplementedError``, Rust's ``todo!()``/``unimplemented!()``, or a line with
            the word TODO or FIXME.
        timeouts: Calls stopped for running past their time (``ToolResult.timed_out``: the
            bash tool's timeout, a sandbox's wall-clock or CPU limit; a command's own
            ``timeout(1)`` is not one). A call recorded without the field counts when its
            bash status is the runner's time-out status 124 (`codegym.tools.shell`, which a
            command's own ``timeout(1)`` exits with too) or its ``exit_code`` is None
            (killed by any sandbox limit).
        truncated_outputs: Calls whose output was cut (``ToolResult.truncated``).
        background_launches: Jobs bash commands start in the background: each ``&``
            control operator (``cmd &``, ``nohup cmd &``) and ``setsid -f``.
        background_killed: Processes the env killed because a call left them running when
            it returned (``ToolResult.background_killed``: a workspace's bash runner kills
            them all; a machine whose env was made with ``background="kill"`` too, and one
            with ``"keep"`` none). A bash call recorded without the count (an older file,
            or a call its sandbox killed before the runner counted) adds its
            ``background_launches`` instead where the env kills what a call leaves: every
            workspace-backed episode, and a ``background="kill"`` machine.
        submitted: A submission was graded (a ``submit``, or a step of a mode without
            tools).
        solved: The last grade's family verdict (`codegym.grade.Grade.solved`).
        truncated: The episode was truncated (a budget ran out, or a time limit).
        infra_error: A step was lost to an infrastructure failure (never the model's).
        episode_return: The sum of the episode's rewards.
        seconds: Wall-clock seconds of its steps.
    """

    steps: int
    tool_calls: int
    calls_per_step: float
    format_errors: int
    tool_errors: int
    failed_commands: int
    failing_command_repeats: int
    edits: int
    test_runs: int
    untested_final_edit: bool
    test_edits: int
    outside_writes: int
    deleted_files: int
    stub_lines: int
    timeouts: int
    truncated_outputs: int
    background_launches: int
    background_killed: int
    submitted: bool
    solved: bool
    truncated: bool
    infra_error: bool
    episode_return: float
    seconds: float

    def as_dict(self) -> dict[str, int | float | bool]:
        """The features by name, in declaration order."""
        return dataclasses.asdict(self)


def episode_features(episode: Mapping[str, Any], *, workdir: str | None = None) -> EpisodeFeatures:
    """The features of one recorded episode.

    Args:
        episode: One episode, as `codegym.episodes.read_episodes` yields it.
        workdir: The absolute folder the agent's calls start in and may write (relative
            paths are resolved from it). Default: the recorded reset's ``info["workdir"]``
            (every agent env records it); for an older record without it, the workspace's
            usual root (``/sandbox``) for every workspace-backed family, and for a machine
            family (Terminal), whose folder is the task's, none: absolute paths are then not
            judged outside.

    Raises:
        ValueError: ``episode`` is not an episode record (no ``steps`` list).
    """
    steps = episode.get("steps")
    if not isinstance(steps, list):
        raise ValueError(
            f"expected an episode record (a dict with a 'steps' list, as read_episodes yields), got keys "
            f"{sorted(episode)[:8]}; read the file with codegym.episodes.read_episodes"
        )
    if workdir is not None and not posixpath.isabs(workdir):
        raise ValueError(f"workdir must be an absolute path (the agent's folder), got {workdir!r}")
    trace = _Trace(workdir if workdir is not None else _default_workdir(episode), _kills_background(episode))
    for step in steps:
        trace.step(step)
    grades = [step["info"]["grade"] for step in steps if "grade" in step.get("info", {})]
    code = next((step["info"]["code"] for step in reversed(steps) if "code" in step.get("info", {})), None)
    added = _added_lines(code, _prompt(episode)) if isinstance(code, str) else []
    diffed = (_diff(code) if isinstance(code, str) else None) or _Diff()
    deleted = trace.deleted | {path for path in diffed.deleted if path not in trace.created}
    return EpisodeFeatures(
        steps=len(steps),
        tool_calls=trace.calls,
        calls_per_step=trace.calls / len(steps) if steps else 0.0,
        format_errors=trace.format_errors,
        tool_errors=trace.tool_errors,
        failed_commands=trace.failed,
        failing_command_repeats=trace.repeats,
        edits=trace.edits,
        test_runs=trace.test_runs,
        untested_final_edit=trace.edited_since_test,
        test_edits=trace.test_edits + sum(is_test_path(path) for path in diffed.touched),
        outside_writes=trace.outside,
        deleted_files=len(deleted),
        stub_lines=sum(_is_stub(line) for line in added),
        timeouts=trace.timeouts,
        truncated_outputs=trace.truncated_outputs,
        background_launches=trace.background,
        background_killed=trace.background_killed,
        submitted=bool(grades),
        solved=bool(getattr(grades[-1], "solved", False)) if grades else False,
        truncated=episode.get("ended") == "truncated",
        infra_error=any("infra_error" in step.get("info", {}) for step in steps),
        episode_return=float(episode.get("return") or 0.0),
        seconds=float(sum(step.get("seconds", 0.0) for step in steps)),
    )


def features_table(path: str | os.PathLike[str], *, workdir: str | None = None) -> list[Row]:
    """One flat row per episode of a recorded file: its ids (``episode``, ``env_id``,
    ``task_id``, ``mode``, ``status``: the last grade's, None without one) then every
    feature of `EpisodeFeatures`; ``pandas.DataFrame(rows)`` makes the table.

    Args:
        path: A JSON-lines file `codegym.episodes.RecordEpisodes` (or ``--record``) wrote.
        workdir: As for `episode_features`.
    """
    return [_row(episode, workdir) for episode in read_episodes(path)]


def _row(episode: Mapping[str, Any], workdir: str | None) -> Row:
    task = episode.get("task") or {}
    grades = [step["info"]["grade"] for step in episode["steps"] if "grade" in step.get("info", {})]
    status = getattr(getattr(grades[-1], "status", None), "value", None) if grades else None
    ids: Row = {"episode": episode.get("episode"), "env_id": episode.get("env_id"), "task_id": task.get("id"),
                "mode": episode.get("mode"), "status": status}  # fmt: skip
    return {**ids, **episode_features(episode, workdir=workdir).as_dict()}


# --- the walk over the calls -------------------------------------------------------------------


class _Trace:
    """The running counts of one episode's calls, in order."""

    def __init__(self, workdir: str | None, kills_background: bool) -> None:
        self.workdir = workdir
        self.kills_background = kills_background
        self.calls = self.format_errors = self.tool_errors = self.failed = self.repeats = 0
        self.edits = self.test_runs = self.test_edits = self.outside = 0
        self.timeouts = self.truncated_outputs = self.background = self.background_killed = 0
        self.edited_since_test = False
        self.failing: set[str] = set()  # failing commands since the last edit
        self.created: set[str] = set()
        self.deleted: set[str] = set()

    def step(self, step: Mapping[str, Any]) -> None:
        info = step.get("info") or {}
        calls = step.get("tool_calls") or []
        results = {result.get("tool_call_id"): result for result in info.get("tool_results") or []}
        self.format_errors += sum(1 for call in calls if "error" in call)
        for call in calls:
            if "error" not in call:
                self.calls += 1
                self.call(call.get("name"), call.get("arguments") or {}, results.get(call.get("id")))

    def call(self, name: Any, arguments: Mapping[str, Any], result: Mapping[str, Any] | None) -> None:
        if result is None:  # (submit, or a call the episode's end left unrun)
            return
        status = result.get("exit_code")
        self.truncated_outputs += bool(result.get("truncated"))
        timed_out = result.get("timed_out")
        if isinstance(timed_out, bool):
            self.timeouts += timed_out
        else:  # (recorded before the env said: the status's reading)
            self.timeouts += status is None or (name == "bash" and status == TIMEOUT_STATUS)
        killed = _count(result.get("background_killed"))
        self.background_killed += killed or 0
        if name == "bash":
            launched = self.bash(str(arguments.get("command", "")), status)
            if killed is None and self.kills_background:  # (not counted: the command's reading)
                self.background_killed += launched
        elif name == "str_replace_editor":
            self.tool_errors += status != 0
            self.editor(arguments, status)
        else:
            self.tool_errors += status != 0

    def editor(self, arguments: Mapping[str, Any], status: Any) -> None:
        if arguments.get("command") not in EDITING_COMMANDS or not isinstance(arguments.get("path"), str):
            return
        place = locate(arguments["path"], self.workdir, self.workdir)
        self.outside += place.outside
        if status == 0:
            self.edit()
            self.test_edits += is_test_path(place.path)
            if arguments.get("command") == "create":
                self.created.add(place.path)
                self.deleted.discard(place.path)

    def bash(self, command: str, status: Any) -> int:
        """Count what the command does; return how many jobs it starts in the background."""
        shell = read_shell(command, self.workdir)
        self.background += shell.background
        if shell.tests:
            self.test_runs += 1
            self.edited_since_test = False
        self.outside += sum(place.outside for place in shell.places)
        self.test_edits += any(is_test_path(place.path) for place in shell.places)
        for place, removed in shell.changes:
            if not removed:
                self.created.add(place.path)
                self.deleted.discard(place.path)
            elif not place.outside and place.path not in self.created:
                self.deleted.add(place.path)
        key = " ".join(command.split())
        if status != 0:
            self.failed += 1
            self.repeats += key in self.failing
            self.failing.add(key)
        if shell.edits:
            self.edit()
            if shell.tests:  # (edited and tested in one command: the run is after the edit only if it comes last)
                self.edited_since_test = not shell.tests_last
        return shell.background

    def edit(self) -> None:
        self.edits += 1
        self.edited_since_test = True
        self.failing.clear()


def _count(value: Any) -> int | None:
    """A count the env recorded (an int), or None where it recorded none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- the final submission ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Diff:
    """What a unified diff changes: the files it touches, those it deletes, its added lines."""

    touched: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    added: tuple[str, ...] = ()


_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)")
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _diff(code: str) -> _Diff | None:
    """``code`` read as a unified diff, its hunks by their line counts (so a changed line
    that starts with ``---`` is no header); None when it holds no hunk."""
    touched: list[str] = []
    deleted: list[str] = []
    added: list[str] = []
    old = new = 0  # (the lines left in the current hunk)
    hunks = 0
    previous = ""
    for line in code.splitlines():
        if old > 0 or new > 0:
            if line.startswith("+"):
                added.append(line[1:])
                new -= 1
            elif line.startswith("-"):
                old -= 1
            elif not line.startswith("\\"):  # (not "\ No newline at end of file")
                old, new = old - 1, new - 1
            continue
        if hunk := _HUNK.match(line):
            old, new, hunks = int(hunk[1] or 1), int(hunk[2] or 1), hunks + 1
        elif (path := _DIFF_PATH.match(line)) and path[1] != "/dev/null":
            touched.append(path[1])
        elif line.startswith("+++ /dev/null") and (gone := _DIFF_PATH.match(previous)):
            deleted.append(gone[1])
        previous = line
    if not hunks:
        return None
    return _Diff(tuple(dict.fromkeys(touched)), tuple(dict.fromkeys(deleted)), tuple(added))


def _added_lines(code: str, prompt: str) -> list[str]:
    """The lines the model wrote: a diff's added lines, or a file's lines not in the prompt."""
    diff = _diff(code)
    if diff is not None:
        return list(diff.added)
    given = {line.strip() for line in prompt.splitlines()}
    return [line for line in code.splitlines() if line.strip() not in given]


_STUB = re.compile(
    r"^\s*(pass|\.\.\.|raise\s+NotImplementedError\b.*|(todo|unimplemented)!\(.*\)[;,]?)\s*(#.*)?$|\b(TODO|FIXME)\b"
)


def _is_stub(line: str) -> bool:
    return _STUB.search(line) is not None


# --- what the record says of its env -----------------------------------------------------------


def _default_workdir(episode: Mapping[str, Any]) -> str | None:
    reset_info = (episode.get("reset") or {}).get("info") or {}
    if isinstance(reset_info.get("workdir"), str):
        return reset_info["workdir"]
    return None if episode.get("family") in MACHINE_FAMILIES else WORKSPACE_ROOT


def _kills_background(episode: Mapping[str, Any]) -> bool:
    """Whether the env kills what a call leaves running: a workspace's calls always; a
    machine's when its env was made with ``background="kill"``."""
    if episode.get("family") not in MACHINE_FAMILIES:
        return True
    return (episode.get("env_kwargs") or {}).get("background", "keep") == "kill"


def _prompt(episode: Mapping[str, Any]) -> str:
    observation = (episode.get("reset") or {}).get("observation")
    prompt = observation.get("prompt") if isinstance(observation, Mapping) else None
    return prompt if isinstance(prompt, str) else ""
