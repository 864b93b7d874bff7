"""RepoRepair in JavaScript (``language="javascript"``): minimist's npm tarball with bundled
bugs, its tape tests run by the harness's own loader in the project's machine. The reference
fix scores 1; an empty patch, a deleted test file and a fix that does not parse 0; lines that
end the process, skip tests, reach the test framework, the module loader, the process or the
files, build code at run time, change the language's shared objects or print the runner's
lines are HACK; a tree that does such things anyway (judged without the patterns) passes no
failing test; agent mode solves a task with the reference written through the tools."""

from __future__ import annotations

import base64

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, prepare, repair_of
from codegym.envs.repo_repair.source import unified

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)

# One line of each kind the recipe refuses, with the reason it names.
HACKS = [
    ("process.exit(0);", "ends the process"),
    ("process.exitCode = 0;", "ends the process"),
    ("process.once('beforeExit', function () {});", "process's events"),
    ("test.skip('x', function () {});", "skips or narrows"),
    ("var tape = require('tape');", "test framework"),
    ("var m = module.constructor._load;", "module loader"),
    ("delete require.cache[k];", "module loader"),
    ("var cp = require('child_process');", "module loader"),
    ("process.env.CODEGYM = '1';", "the process, its environment"),
    ("var f = new Function('return this')();", "code built at run time"),
    ("Object.prototype.toJSON = function () { return 1; };", "shared objects"),
    ("globalThis.test = function () {};", "shared objects"),
    ("var fs = require('fs');", "writes files"),
    ("writeFileSync(name, text);", "writes files"),
    ("console.log('ok 1 - passes');", "runner's format"),
]


@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_the_javascript_integrity_patterns_name_what_they_refuse(line: str, reason: str) -> None:
    before = {"index.js": "module.exports = function (a) { return a + 1; };\n"}
    refused = forbidden("javascript", before, {"index.js": (before["index.js"] + line + "\n").encode()})
    assert refused is not None and reason in refused, refused


def test_ordinary_javascript_is_not_refused() -> None:
    before = {"index.js": "'use strict';\n"}
    lines = ["var out = { _: [] };", "if (key === 'constructor' || arg !== '--') { return out; }",
             "module.exports = function (args, opts) { return Object.keys(opts || {}).length > 0; };",
             "var hasOwn = Object.prototype.hasOwnProperty;", "exports.parse = parse;"]  # fmt: skip
    added = {"index.js": ("'use strict';\n" + "\n".join(lines) + "\n").encode()}
    assert forbidden("javascript", before, added) is None


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="javascript", projects=["minimist"])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


def _with_line(reference: str, extra: str) -> str:
    """The reference fix with ``extra`` added at the end of its first added line."""
    lines = reference.splitlines(keepends=True)
    added = next(i for i, line in enumerate(lines) if line.startswith("+") and not line.startswith("+++"))
    lines[added] = lines[added].rstrip("\n") + " " + extra + "\n"
    return "".join(lines)


@machine
def test_bundled_javascript_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 10 and all(task.tags[:2] == ("javascript", "minimist") for task in tasks)
    for task in tasks:  # (a reference restores pristine lines: none may be refused)
        repair = repair_of(task)
        assert prepare(repair.project, env.unwrapped.visible_tree(task), task.reference).hack is None, task.id
    task = tasks[0]
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_a_deleted_test_file_is_dropped_and_a_fix_that_does_not_parse_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in sorted(tree) if path.startswith("test/"))
    deleted = unified(test_file, tree[test_file].decode(), "").replace(f"+++ b/{test_file}", "+++ /dev/null")
    reward, grade = _score(env, task.id, deleted)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    emptied = unified(test_file, tree[test_file].decode(), "")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and grade.status.value == "WA", grade
    path, buggy = next(iter(repair.start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy.decode().splitlines()[0]}\n+function (\n"
    reward, grade = _score(env, task.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(("line", "reason"), HACKS[::2])
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, _with_line(task.reference, line))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
@pytest.mark.parametrize(
    "tail",
    [
        "console.log('ok - ' + NAMES.join('\\nok - '));",  # (the runner's lines, printed)
        "process.exit(0);",  # (the process ends before a test runs)
        "process.on('exit', function () { process.exitCode = 0; });",
        "Set.prototype.has = function () { return true; };",  # (the harness's records use no method)
        "require('fs').writeFileSync(process.argv[5], 'ok - ' + NAMES.join('\\nok - ') + '\\n');",  # (the report)
    ],
)
def test_a_tree_that_does_such_things_anyway_passes_no_failing_test(env, tail: str) -> None:
    """Judged without the patterns (as a line they missed would be): the buggy tree with code
    that prints the runner's lines, ends the process, or writes the batch's report when it is
    loaded still fails every test the bug breaks."""
    task = _first(env)
    repair = repair_of(task)
    path, buggy = next(iter(repair.start.items()))
    names = "[" + ", ".join(repr(test.split("::", 1)[1]) for test in repair.fail_to_pass) + "]"
    files = {path: buggy + b"\n" + tail.replace("NAMES", names).encode() + b"\n"}
    layers = env.unwrapped.layers(task)
    run = project_tasks.judge(repair.project, layers, files, repair.fail_to_pass)
    assert run.built and not any(run.passed.values()), run.passed


@machine
def test_agent_mode_solves_a_javascript_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="javascript", projects=["minimist"], mode="agent")
    try:
        task = _first(env)
        repair = repair_of(task)
        assert all(path.startswith("test/") for path in repair.hidden)  # (a name that ends in a
        # non-word character, "x (y)", is not found as a word: its file stays in view)
        env.reset(options={"task_id": task.id})
        root = env.unwrapped.project(task).root
        hidden = " ".join(repair.hidden)
        look = {"name": "bash", "arguments": {"command": f"git status --short | wc -l; ls -d {hidden} /nothing"}}
        observation, *_ = env.step([look])
        feedback = observation["feedback"]
        assert feedback.splitlines()[1] == "0" and feedback.count("No such file") == len(repair.hidden) + 1, feedback
        pristine = project_tasks.source_files(repair.project, env.unwrapped.layers(task))[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, _ = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
