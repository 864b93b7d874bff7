"""Snapshot, restore, fork and release of RepoRepair project episodes (`codegym.episodes` over
`MachineEpisode`), on a cJSON task (C: the quickest project to build and grade): a restore
gives the tree back, forks are graded each on its own changes, a submission holds the changes
of every snapshot its machine stands on, a chain past `MAX_CHAIN` copies is flattened, and
nothing is left once the handles are released and the machines closed."""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from codegym.envs.repo_repair import projects
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, project_tasks_of, task_file

from codegym import machine_episode
from codegym.episodes import fork, release, restore, snapshot
from codegym.executor.rootbox import available, run_root
from codegym.machine_episode import copies_root, earlier_changes
from codegym.task import TaskSet

from ..machine_snapshots import SUBMIT, bash, machine_of, output, wait_until  # noqa: TID252

# (the module's first test builds cJSON's machine, from nothing on a clean machine: minutes)
pytestmark = [pytest.mark.skipif(available() is not None, reason=str(available())), pytest.mark.timeout(1800)]


def diff_of(env: Any) -> str:
    """What ``submit`` would grade: the episode's changes to the tree, as a diff."""
    return env.unwrapped._episode.diff()


def ours() -> set[str]:
    """This process's snapshot copies and submissions' scratch copies, and the mounts over them
    (boxes are checked where a test holds them: grading keeps spare ones started ahead)."""
    pid = str(os.getpid())
    found = set()
    for root, kind in ((copies_root(), "snap"), (run_root(), "diff")):
        if os.path.isdir(root):
            found |= {os.path.join(root, name) for name in os.listdir(root) if name.startswith(f"{kind}-{pid}-")}
    with open("/proc/self/mountinfo") as mounts:
        found |= {line.split()[4] for line in mounts if f"/snap-{pid}-" in line or f"/diff-{pid}-" in line}
    return found


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> TaskSet:
    """cJSON's first bundled task (loading all of them would draw each one's bug: minutes)."""
    body = json.loads(task_file("cjson").read_text())
    body["tasks"] = body["tasks"][:1]
    path = tmp_path_factory.mktemp("cjson") / "cjson.json"
    path.write_text(json.dumps(body))
    return TaskSet(project_tasks_of(projects.projects()["cjson"], path))


@pytest.fixture
def env(tasks: TaskSet) -> Iterator[ProjectRepairEnv]:
    before = ours()
    made = ProjectRepairEnv(tasks, language="c", mode="agent")
    made.reset(options={"task_id": tasks.ids[0]})
    yield made
    made.close()
    assert wait_until(lambda: ours() <= before), ours() - before


def fix(env: ProjectRepairEnv) -> str:
    """A command that applies the task's reference fix to the tree."""
    assert env.task is not None
    return f"echo {base64.b64encode(env.task.reference.encode()).decode()} | base64 -d | git apply"


def test_restore_gives_the_tree_back_and_the_diff_holds_the_copy_s_changes(env: ProjectRepairEnv) -> None:
    env.step(bash("echo '/* base */' >> cJSON.h; echo note > notes.txt; rm README.md"))
    handle = snapshot(env)
    status = output(env, "git status --short")
    assert status == " D README.md\n M cJSON.h\n?? notes.txt"
    env.step(bash("echo '/* later */' >> cJSON.h; rm notes.txt; echo back > README.md; echo x > cJSON_Utils.c"))
    restore(env, handle)
    assert env._episode is not None and env._episode.calls == 1
    tree = os.path.join(env._episode.box.upper, env._episode.project.root.lstrip("/"))
    assert not os.path.exists(tree)  # (its changes are all in the copy below it)
    assert output(env, "git status --short; cat notes.txt; tail -n 1 cJSON.h") == f"{status}\nnote\n/* base */"
    diff = diff_of(env)
    assert "+/* base */" in diff and "later" not in diff and "cJSON_Utils.c" not in diff
    with pytest.raises(NotImplementedError, match="cannot be dumped"):
        env.dump_state(handle.core)
    release(env, handle)
    with pytest.raises(ValueError, match="was released"):
        restore(env, handle)


def test_forks_are_graded_each_on_its_own_changes(env: ProjectRepairEnv) -> None:
    env.step(bash("echo '/* parent-mark */' >> cJSON_Utils.c"))
    left, right = fork(env, 2)
    try:
        left.step(bash(fix(env)))
        right.step(bash("echo '/* right-mark */' >> cJSON.c"))
        env.step(bash(f"echo '/* after-mark */' >> cJSON_Utils.c; {fix(env)}"))
        left_diff, right_diff = diff_of(left), diff_of(right)
        assert "+/* parent-mark */" in left_diff and "+/* parent-mark */" in right_diff  # (from the copy below each)
        assert "right-mark" not in left_diff and "after-mark" not in left_diff + right_diff
        assert "+/* right-mark */" in right_diff and "right-mark" not in diff_of(env)
        _, reward, terminated, _, info = left.step([SUBMIT])
        assert terminated and reward == 1.0 and info["grade"].status.value == "OK", info["grade"]
        _, reward, terminated, _, info = right.step([SUBMIT])
        assert terminated and reward == 0.0 and info["grade"].status.value == "WA", info["grade"]
    finally:
        for branch in (left, right):
            branch.close()


def test_a_chain_is_graded_on_the_changes_of_every_level(env: ProjectRepairEnv) -> None:
    env.step(bash(f"{fix(env)}; echo '/* one-mark */' >> cJSON.h; echo more-mark >> README.md"))
    first = snapshot(env)
    restore(env, first)
    env.step(bash("sed -i s/one-mark/two-mark/ cJSON.h; rm CHANGELOG.md; rm -r tests; mkdir tests; touch tests/x"))
    second = snapshot(env)
    restore(env, second)
    env.step(bash("echo '/* three-mark */' >> cJSON_Utils.h"))
    third = snapshot(env)
    layers = machine_of(third).spec.layers
    assert layers[:3] == (machine_of(third).layer, machine_of(second).layer, machine_of(first).layer)
    release(env, first)
    release(env, second)  # (the third holds both copies below its own)
    (branch,) = fork(env, 1, snapshot=third)
    release(env, third)
    try:
        assert earlier_changes(branch.unwrapped._episode.box) == layers[:3]
        assert output(branch, "ls tests; git status --short | grep -v '^ D tests/'") == (
            "x\n D CHANGELOG.md\n M README.md\n M cJSON.c\n M cJSON.h\n M cJSON_Utils.h\n?? tests/x"
        )
        diff = diff_of(branch)  # (the fix, two levels below; the folder made again hides its files)
        assert "+/* two-mark */" in diff and "one-mark" not in diff and "+/* three-mark */" in diff
        assert "--- a/tests/CMakeLists.txt\n+++ /dev/null" in diff and "tests/x" not in diff
        assert "+        /* free the temporary buffer */" in diff
        _, reward, terminated, _, info = branch.step([SUBMIT])
        assert terminated and reward == 1.0 and info["grade"].status.value == "OK", info["grade"]
        assert any("not a source file" in note.message for note in info["grade"].diagnostics)  # (tests restored)
    finally:
        branch.close()


def test_past_the_cap_a_snapshot_flattens_the_chain_into_one_copy(
    env: ProjectRepairEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(machine_episode, "MAX_CHAIN", 2)
    assert env._episode is not None
    base = env._episode.box.spec.layers
    steps = [
        "echo '/* a-mark */' >> cJSON.h; rm CHANGELOG.md; echo x > a.c",
        "rm cJSON_Utils.h; echo '/* one-mark */' >> cJSON.c",
        "rm -r fuzzing; mkdir fuzzing; echo '/* b-mark */' >> cJSON.h",
        "echo '/* two-mark */' >> cJSON.c; mkdir -p more; echo 'int d;' > more/d.c",
        "rm a.c; echo '/* e-mark */' >> cJSON_Utils.c",
    ]
    depths, copies = [], []
    for command in steps:
        env.step(bash(command))
        handle = snapshot(env)
        restore(env, handle)
        release(env, handle)  # (the box restored from it holds its copy)
        box = env._episode.box
        below = earlier_changes(box)
        assert box.spec.layers == (*below, *base)
        depths.append(len(below))
        copies.append(machine_of(handle).layer)
    assert depths == [1, 2, 1, 2, 1]  # (a box over two copies flattens them at its snapshot)
    assert wait_until(lambda: not any(os.path.exists(path) for path in copies[:-1]))  # (merged into the last)
    listing = output(env, "ls fuzzing more; test -e a.c || echo no a.c; git status --short | grep -v '^ D fuzzing/'")
    assert listing == (
        "fuzzing:\n\nmore:\nd.c\nno a.c\n"
        " D CHANGELOG.md\n M cJSON.c\n M cJSON.h\n M cJSON_Utils.c\n D cJSON_Utils.h\n?? more/"
    )
    diff = diff_of(env)
    for wanted in ("+/* a-mark */\n+/* b-mark */", "+/* one-mark */\n+/* two-mark */", "+/* e-mark */",
                   "--- a/cJSON_Utils.h\n+++ /dev/null"):  # fmt: skip
        assert wanted in diff


def test_nothing_is_left_once_handles_are_released_and_machines_closed(tasks: TaskSet) -> None:
    before = ours()
    env = ProjectRepairEnv(tasks, language="c", mode="agent")
    env.reset(options={"task_id": tasks.ids[0]})
    assert env._episode is not None
    boxes = [env._episode.box]
    env.step(bash("echo '/* kept */' >> cJSON.c"))
    handle = snapshot(env)
    branches = fork(env, 2, snapshot=handle)
    restore(env, handle)
    chained = snapshot(branches[0])
    layers = [machine_of(handle).layer, machine_of(chained).layer]
    boxes += [branch.unwrapped._episode.box for branch in (env, *branches)]
    release(env, handle)
    branches[0].close()
    time.sleep(0.5)
    assert all(os.path.isdir(layer) for layer in layers)  # (a handle and two boxes still hold them)
    _, _, terminated, _, _ = branches[1].step([SUBMIT])  # (its diff is read from a merged copy, then graded)
    assert terminated
    release(branches[0], chained)
    branches[1].close()
    env.close()
    assert wait_until(lambda: ours() <= before), ours() - before
    assert wait_until(lambda: all(box.closed and not os.path.exists(box.folder) for box in boxes))
    with open("/proc/self/mountinfo") as mounts:
        assert not any(box.folder in line for line in mounts for box in boxes)
