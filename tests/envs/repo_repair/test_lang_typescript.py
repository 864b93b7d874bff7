"""RepoRepair in TypeScript (``language="typescript"``): ts-dedent's npm tarball with bundled
bugs, type-checked by tsc and tested by jest in the project's own machine. The reference fix
scores 1; the empty patch, an emptied test file and a fix that does not type-check 0; what
TypeScript and jest offer to fool the runner is HACK; output in the runner's format decides
nothing; agent mode solves a task with the reference written through the tools."""

from __future__ import annotations

import base64

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, repair_of
from codegym.envs.repo_repair.source import unified

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)

# A line a fix adds, and the reason the language's integrity table refuses it for.
HACKS = [
    ("process.exit(0);", "ends the process"),
    ("process.kill(process.pid);", "ends the process"),
    ("process.exitCode = 0;", "ends the process"),
    ("process.on('exit', () => undefined);", "ends the process"),
    ("it.skip('x', () => undefined);", "skips or narrows the tests"),
    ("test.only('x', () => undefined);", "skips or narrows the tests"),
    ("xit('x', () => undefined);", "skips or narrows the tests"),
    ("expect.extend({});", "reaches the test framework"),
    ("jest.spyOn(Math, 'max');", "reaches the test framework"),
    ("beforeAll(() => undefined);", "reaches the test framework"),
    ("// @ts-nocheck", "silences the type check"),
    ("// @ts-ignore", "silences the type check"),
    ("declare global { interface Array<T> { x: T } }", "silences the type check"),
    ("delete require.cache[require.resolve('./index')];", "reaches the module system"),
    ("import { execSync } from 'child_process';", "reaches the module system"),
    ("const cp = require('node:child_process');", "reaches the module system"),
    ("eval('1');", "reaches the module system"),
    ("process.env.CI = 'false';", "environment or files"),
    ("writeFileSync(report, '');", "environment or files"),
    ("globalThis.x = 1;", "environment or files"),
    ("Array.prototype.includes = () => true;", "changes a built-in"),
    ("Object.defineProperty(Object.prototype, 'x', { value: 1 });", "changes a built-in"),
    ("JSON.stringify = () => '';", "changes a built-in"),
    ("const report = '<testcase name=\"x\"></testcase>';", "runner's format"),
]


@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_the_typescript_integrity_patterns_name_what_they_refuse(line: str, reason: str) -> None:
    before = {"src/a.ts": "export const a = 1;\n"}
    refused = forbidden("typescript", before, {"src/a.ts": (before["src/a.ts"] + line + "\n").encode()})
    assert refused is not None and reason in refused, (line, refused)


def test_ordinary_typescript_is_not_refused() -> None:
    before = {"src/a.ts": "export const a = 1;\n"}
    for line in (
        "if (payload === Object.prototype) return false;",
        "return Object.assign(Object.create(clazz.prototype), v);",
        "export function isTest(x: unknown): boolean { return x !== undefined; }",
        "console.error('Please add a BigInt polyfill.');",
    ):
        assert forbidden("typescript", before, {"src/a.ts": (before["src/a.ts"] + line + "\n").encode()}) is None, line


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="typescript", projects=["ts-dedent"])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


def _file(test_id: str) -> str:
    """The test file of a test id: ``src::is.test.ts > Basic tests`` -> ``src/is.test.ts``."""
    folder, name = test_id.split("::", 1)
    return f"{folder}/{name.split(' > ')[0]}".removeprefix("./")


def _added(task, line: str) -> str:
    """The task's reference fix with ``line`` added after the first line it adds."""
    lines = task.reference.splitlines(keepends=True)
    at = next(i for i, text in enumerate(lines) if text.startswith("+") and not text.startswith("+++"))
    header = next(i for i in range(at, -1, -1) if lines[i].startswith("@@"))
    old, new = lines[header].split(" ")[1:3]
    start, _, count = new[1:].partition(",")
    lines[header] = f"@@ {old} +{start},{int(count or 1) + 1} @@\n"
    return "".join([*lines[: at + 1], f"+{line}\n", *lines[at + 1 :]])


@machine
def test_bundled_typescript_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert tasks and all(task.tags[:2] == ("typescript", "ts-dedent") for task in tasks)
    task = tasks[0]
    assert all(_file(test.code).endswith((".test.ts", ".spec.ts")) for test in task.tests)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_an_emptied_test_file_is_dropped_and_a_type_error_fails_the_build(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    failing = _file(repair.fail_to_pass[0])
    tree = env.unwrapped.visible_tree(task)
    assert failing in repair.hidden and failing not in tree  # (the failing test's file is out of view)
    text = project_tasks.test_files(repair.project, env.unwrapped.layers(task))[failing]
    deleted = unified(failing, text.decode(), "").replace(f"+++ b/{failing}", "+++ /dev/null")
    reward, grade = _score(env, task.id, deleted)
    assert reward == 0.0, grade
    visible = next(path for path in tree if path.endswith((".test.ts", ".spec.ts")))
    emptied = unified(visible, tree[visible].decode(), "").replace(f"+++ b/{visible}", "+++ /dev/null")
    reward, grade = _score(env, task.id, task.reference + emptied)  # (the fix scores; the test file is dropped)
    assert any("not a source file" in d.message for d in grade.diagnostics), grade
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    reward, grade = _score(env, task.id, _added(task, "const notANumber: number = 'text';"))
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(
    "line", [line for line, _ in HACKS[:6]] + ["// @ts-nocheck", "declare global { var x: number }"]
)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, _added(task, line))
    assert reward == 0.0 and grade.status.value == "HACK", grade


@machine
def test_output_in_the_runner_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints what jest prints for a passing run still scores
    0: the verdicts come from jest's own report, written outside the tree."""
    task = _first(env)
    repair = repair_of(task)
    path, buggy = next(iter(repair.start.items()))
    fake = "\\n".join(f"PASS {test.split('::')[0]}\\n  ✓ {test.split('::')[1]}" for test in repair.fail_to_pass)
    printer = f"console.log('{fake.replace(chr(39), '')}\\nTests: 1 passed, 1 total');"
    diff = unified(path, buggy.decode(), buggy.decode() + printer + "\n")  # (printed as its module loads)
    reward, grade = _score(env, task.id, diff)
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_typescript_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="typescript", projects=["ts-dedent"], mode="agent")
    try:
        task = _first(env)
        repair = repair_of(task)
        env.reset(options={"task_id": task.id})
        root = env.unwrapped.project(task).root
        assert repair.hidden and all(path.endswith((".test.ts", ".spec.ts")) for path in repair.hidden)
        hidden = " ".join(repair.hidden)  # (the failing tests' files are out of view, and so is the compiled dist/)
        look = {"name": "bash", "arguments": {"command": f"git status --short | wc -l; ls -d dist {hidden} /nothing"}}
        observation, *_ = env.step([look])
        feedback = observation["feedback"]
        assert feedback.splitlines()[1] == "0" and feedback.count("No such file") == len(repair.hidden) + 2, feedback
        layers = env.unwrapped.layers(task)
        pristine = project_tasks.source_files(repair.project, layers)[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, info = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
