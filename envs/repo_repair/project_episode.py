"""`ProjectEpisode`: an agent episode in a project's own machine (see `codegym.envs.repo_repair.project_env`).

The machine is the project's built layers under a layer of the task's own: the file with the
bug, and whiteouts over the test files that hold the failing tests (never in the agent's
view). The tree is made a git repository of one commit when the episode starts (``git diff``
shows the agent its changes). At ``submit`` the machine's processes are stopped and its
changes to the tree are read from its upper layer (merged with the copies below it where the
machine was restored or forked from a snapshot: `codegym.machine_episode`), as a diff against
the tree it started from. An episode can be snapshot, restored and forked (`codegym.episodes`).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from typing import TYPE_CHECKING

from codegym.envs.repo_repair import project_tasks
from codegym.envs.repo_repair.source import unified

from codegym.error import InvalidTask
from codegym.executor.rootbox import BoxSpec, RootBox, as_owner, is_opaque, is_whiteout, remove_tree, run_root
from codegym.machine_episode import MachineEpisode, Place, copy_changes, earlier_changes
from codegym.task import Task

if TYPE_CHECKING:
    from codegym.envs.repo_repair.project_env import ProjectRepairEnv, Repair

GIT_INIT = (
    "git init -q && git add -A && GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z "
    "git -c user.name=codegym -c user.email=codegym@localhost commit -q -m 'the project' && git gc -q --prune=now"
)


class ProjectEpisode(MachineEpisode):
    """Tools in the project's machine: bash as root in its tree, the editor and search on its files."""

    def __init__(self, env: ProjectRepairEnv, task: Task) -> None:
        from codegym.envs.repo_repair.project_env import repair_of

        self.setup = env.agent_setup(task)
        self.limits = env.agent_limits
        self.start()
        self.project = env.project(task)
        self.repair = repair_of(task)
        self.tree = env.visible_tree(task)
        layer = task_layer(self.project.root, self.repair)
        self.box = RootBox(BoxSpec(layers=(layer, *env.layers(task)), memory_bytes=env.limits.memory_bytes,
                                   binds=env.box_binds))  # fmt: skip
        self.env_vars = dict(self.project.toolchain.env)
        started = self.box.run(("/bin/sh", "-c", GIT_INIT), cwd=self.project.root, env=self.env_vars, timeout_s=120)
        if started.exit_code != 0:
            self.box.close()
            raise InvalidTask(f"task {task.id}: the project's tree cannot be made a git repository:\n{started.output}")

    def place(self) -> Place:
        return Place(cwd=self.project.root, env=self.env_vars, background="kill")

    def diff(self) -> str:
        """The agent's changes to the tree, as a unified diff against the tree it started from
        (text files it changed, and new files where sources go; its other files are not read)."""
        files, opaque = self.changes()
        changed: dict[str, bytes | None] = dict(files)
        for folder in opaque:  # (a folder the agent made again: what it held before and lacks now is gone)
            prefix = "" if folder == "." else folder + "/"
            for path in self.tree:
                if path.startswith(prefix) and path not in changed:
                    changed[path] = None
        parts = []
        for path in sorted(changed):
            after = changed[path]
            before = self.tree.get(path)
            if before is None and (after is None or not project_tasks.is_source(self.project, path)):
                continue
            if after == before or not _text(before) or not _text(after):
                continue
            parts.append(_diff(path, before, after))
        return "".join(parts)

    def changes(self) -> tuple[dict[str, bytes | None], list[str]]:
        """What the episode changed in the tree (see `changed_files`), its machine's processes
        stopped meanwhile: read from the box's upper layer, or, where the box was made from a
        snapshot, from a copy of its changes merged with those of the copies it stands on
        (`codegym.machine_episode.copy_changes`)."""
        top = self.project.root.lstrip("/")
        if not earlier_changes(self.box):  # (its changes are all in its upper layer: read them there)
            with self.box.stopped():
                return as_owner(changed_files, os.path.join(self.box.upper, top))
        os.makedirs(run_root(), mode=0o700, exist_ok=True)
        scratch = tempfile.mkdtemp(prefix=f"diff-{os.getpid()}-", dir=run_root())
        try:
            copy_changes(self.box, scratch)
            return as_owner(changed_files, os.path.join(scratch, top))
        finally:
            remove_tree(scratch)

    def read_submission(self) -> str:
        return self.diff()


def _text(data: bytes | None) -> bool:
    if data is None:
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return b"\0" not in data


def _diff(path: str, before: bytes | None, after: bytes | None) -> str:
    if before is None:
        return unified(path, "", (after or b"").decode()).replace(f"--- a/{path}", "--- /dev/null", 1)
    if after is None:
        return unified(path, before.decode(), "").replace(f"+++ b/{path}", "+++ /dev/null", 1)
    return unified(path, before.decode(), after.decode())


def changed_files(top: str) -> tuple[dict[str, bytes | None], list[str]]:
    """What an upper layer holds under ``top`` (the tree's folder in it): each regular file's
    bytes (None: a whiteout, the file deleted) by relative path, and its opaque folders; the
    agent's ``.git`` left out (run it through `as_owner`: the files are the machine's)."""
    files: dict[str, bytes | None] = {}
    opaque: list[str] = []
    if not os.path.isdir(top):
        return files, opaque
    for folder, names, entries in os.walk(top):
        relative = os.path.relpath(folder, top)
        if relative == ".git" or relative.startswith(".git/"):
            names[:] = []
            continue
        if is_opaque(folder):
            opaque.append(relative)
        for name in (*entries, *names):
            path = os.path.join(folder, name)
            key = name if relative == "." else f"{relative}/{name}"
            if is_whiteout(path):
                files[key] = None
            elif name in entries and os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    files[key] = handle.read(4 << 20)
    return files, opaque


def task_layer(root: str, repair: Repair) -> str:
    """The task's own layer, made once (in the user's run folder): its files (the bug), and
    whiteouts over the hidden test files."""
    key = hashlib.sha256(repr((root, sorted(repair.start.items()), repair.hidden)).encode()).hexdigest()
    base = os.path.join(os.path.dirname(run_root()), "bugs")
    folder = os.path.join(base, key)
    if os.path.isdir(folder):
        return folder
    os.makedirs(base, mode=0o755, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".partial-", dir=base)
    os.chmod(partial, 0o755)
    as_owner(project_tasks.write_tree, partial, root, dict(repair.start), tuple(repair.hidden))
    try:
        os.rename(partial, folder)
    except OSError:  # (made meanwhile)
        remove_tree(partial)
    return folder
