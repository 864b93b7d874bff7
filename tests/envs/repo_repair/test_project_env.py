"""RepoRepair in Go (``language="go"``): Debian's go-cmp with bundled bugs, graded in the
project's own machine. The reference fix scores 1; an empty patch, changed tests and a fix
that does not build 0; lines that reach for the process's exit, init functions, the test
framework or the linker are HACK; agent mode solves a task with the reference applied through
the tools, the failing tests' file out of its view."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, repair_of
from codegym.envs.repo_repair.source import unified

import codegym
from codegym.executor.rootbox import available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)


def test_the_go_integrity_patterns_name_what_they_refuse() -> None:
    before = {"a.go": "package a\n\nfunc F() int { return 1 }\n"}

    def refused(line: str) -> str | None:
        return forbidden("go", before, {"a.go": (before["a.go"] + line + "\n").encode()})

    assert refused("func G() { os.Exit(0) }") and "ends the process" in str(refused("func G() { os.Exit(0) }"))
    assert "init function" in str(refused("func init() {}"))
    assert "test framework" in str(refused('import "testing"'))
    assert "linker" in str(refused("//go:linkname runTests runtime.runTests"))
    assert refused("func H() int { return 2 }") is None
    assert forbidden("go", before, {"a.go": before["a.go"].encode()}) is None  # (lines it had are not added)


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="go", projects=["go-cmp"])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


@machine
def test_bundled_go_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 10 and all(task.tags[0] == "go" for task in tasks)
    task = tasks[0]
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_changed_tests_are_dropped_and_a_broken_build_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in tree if path.endswith("_test.go"))
    emptied = unified(test_file, tree[test_file].decode(), "").replace(f"+++ b/{test_file}", "+++ /dev/null")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    path, buggy = next(iter(repair.start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy.decode().splitlines()[0]}\n+func (\n"
    reward, grade = _score(env, task.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(
    "line",
    [
        "func init() { println() }",  # (runs before the tests)
        "func Quit() { os.Exit(0) }",  # (a way out of the test process)
        "var _ = func() int { syscall.Exit(0); return 0 }()",  # (a static initializer that exits)
        "func Quit() { runtime.Goexit() }",
        "//go:linkname x testing.x",  # (reaches into the test framework through the linker)
        "//go:generate sh -c 'true'",  # (build-time code)
        'import "C"',  # (cgo: C code, a preloaded library's way in)
        'import "testing"',  # (t.Skip and the framework's internals)
        'var _ = flag.Set("test.run", "NoSuchTest")',
    ],
)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str) -> None:
    task = _first(env)
    repair = repair_of(task)
    path, buggy = next(iter(repair.start.items()))
    first = next(line for line in buggy.decode().splitlines() if line.startswith("package "))
    folder = path.rsplit("/", 1)[0]
    diff = task.reference + f"--- /dev/null\n+++ b/{folder}/zz_extra.go\n@@ -0,0 +1,2 @@\n+{first}\n+{line}\n"
    reward, grade = _score(env, task.id, diff)
    assert reward == 0.0 and grade.status.value == "HACK", grade


@machine
@pytest.mark.parametrize(("language", "project"), [("go", "go-cmp"), ("c", "jansson")])
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools(language: str, project: str) -> None:
    env = gym.make("codegym/RepoRepair-v1", language=language, projects=[project], mode="agent")
    try:
        task = _first(env)
        repair = repair_of(task)
        _, reset_info = env.reset(options={"task_id": task.id})
        root = env.unwrapped.project(task).root
        assert reset_info["workdir"] == root
        hidden = " ".join(repair.hidden)  # (Go's: the failing tests' files; a data-driven CTest case names none)
        look = {"name": "bash", "arguments": {"command": f"git status --short | wc -l; ls -d {hidden} /nothing"}}
        left = {"name": "bash", "arguments": {"command": "sleep 30 & setsid sleep 31 &"}}
        observation, *_, info = env.step([look, left])
        assert [result["background_killed"] for result in info["tool_results"]] == [0, 2]  # (its machine kills them)
        feedback = observation["feedback"]
        assert feedback.splitlines()[1] == "0" and feedback.count("No such file") == len(repair.hidden) + 1, feedback
        assert language != "go" or repair.hidden
        layers = env.unwrapped.layers(task)
        pristine = project_tasks.source_files(repair.project, layers)[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, info = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()


@machine
def test_output_in_the_runner_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints what a passing run prints still scores 0: the
    verdict is each test process's exit status, read by the machine's init."""
    task = _first(env)
    repair = repair_of(task)
    path, buggy = next(iter(repair.start.items()))
    first = next(line for line in buggy.decode().splitlines() if line.startswith("package "))
    folder = path.rsplit("/", 1)[0]
    fake = "\\n".join(f"--- PASS: {test.split('::')[1]} (0.00s)" for test in repair.fail_to_pass) + "\\nPASS\\nok"
    printer = f'var _ = func() int {{ println("{fake}"); return 0 }}()'
    diff = f"--- /dev/null\n+++ b/{folder}/zz_print.go\n@@ -0,0 +1,2 @@\n+{first}\n+{printer}\n"
    reward, grade = _score(env, task.id, diff)
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_a_c_task_from_a_debian_source_package_grades_its_fix_and_refuses_an_exit() -> None:
    """Jansson, from Debian's source package with its upstream tests: the reference fix scores 1,
    the empty patch 0, and an added exit(0) is HACK before anything runs. Debian's packaging
    (its patches, upstream fixes among them) is not in the tree."""
    env = gym.make("codegym/RepoRepair-v1", language="c", projects=["jansson"])
    try:
        task = _first(env)
        repair = repair_of(task)
        placed = Path(env.unwrapped.layers(task)[1], repair.project.root.lstrip("/"))  # (the layer that placed it)
        assert (placed / "CMakeLists.txt").is_file() and (placed / "src").is_dir()
        assert not (placed / "debian").exists() and not (placed / ".pc").exists()
        assert _score(env, task.id, task.reference)[0] == 1.0
        reward, grade = _score(env, task.id, "")
        assert reward == 0.0 and grade.status.value == "WA", grade
        lines = task.reference.splitlines(keepends=True)
        added = next(i for i, line in enumerate(lines) if line.startswith("+") and not line.startswith("+++"))
        lines[added] = lines[added].rstrip("\n") + " exit(0);\n"
        reward, grade = _score(env, task.id, "".join(lines))
        assert reward == 0.0 and grade.status.value == "HACK" and "ends the process" in grade.message, grade
        assert repair_of(task).where.startswith("src/")
    finally:
        env.close()


@pytest.fixture(scope="module")
def c_env():
    made = gym.make("codegym/RepoRepair-v1", language="c", projects=["jansson"])
    yield made
    made.close()


@machine
@pytest.mark.parametrize(
    "line",
    [
        "void quit(void) { _exit(0); }",  # (a way out of the test process)
        "void quit(void) { quick_exit(0); }",
        "__attribute__((constructor)) static void early(void) {}",  # (runs before main)
        "static void later(void) { atexit(later); }",
        "__attribute__((weak)) int json_object_size;",  # (a symbol the tests' own could override)
        "int strcmp(const char *a, const char *b) { return 0; }",  # (the tests' comparisons would reach it)
        'const char *__asan_default_options(void) { return "exitcode=0"; }',  # (a sanitizer hook)
        'static int hooked(void) { return setenv("LD_PRELOAD", "/tmp/x.so", 1); }',
        "static void jump(void) { longjmp(saved, 1); }",
        'static int peek(void) { return system("ls /proc/1"); }',
        'static void nop(void) { asm("nop"); }',
        '#pragma GCC diagnostic ignored "-Wall"',
        "int main(void) { return 0; }",
    ],
)
def test_a_c_fix_that_reaches_for_the_runner_is_hack(c_env, line: str) -> None:
    """Every C construct that could end a test early, run code before it, reach a test's own
    calls or the process: HACK before anything runs (the reference with the line in a new
    source file; CMake's files are not sources, and an edit of one is dropped)."""
    task = _first(c_env)
    diff = task.reference + f"--- /dev/null\n+++ b/src/zz_extra.c\n@@ -0,0 +1 @@\n+{line}\n"
    reward, grade = _score(c_env, task.id, diff)
    assert reward == 0.0 and grade.status.value == "HACK", grade


@machine
def test_validation_checks_the_reference_and_that_the_bug_breaks_its_tests(env) -> None:
    """`codegym validate --sample` over a language's tasks: the reference passes each run, and
    a task whose bug breaks none of its FAIL_TO_PASS tests is invalid."""
    report = codegym.validate("codegym/RepoRepair-v1", runs=1, language="go", projects=["go-cmp"], sample=1, seed=2)
    assert report.counts()["valid"] == 1, report.render()
    task = _first(env)
    assert env.unwrapped.check_solutions(task) is None
    repair = repair_of(task)
    pristine = project_tasks.source_files(repair.project, env.unwrapped.layers(task))
    no_bug = replace(repair, start={path: pristine[path] for path in repair.start})
    mended = replace(task, metadata={**task.metadata, "repair": no_bug})
    assert "every FAIL_TO_PASS test passes on the bug" in str(env.unwrapped.check_solutions(mended))


@machine
def test_a_real_bug_from_a_fix_debian_carries_is_solved_by_that_fix() -> None:
    """cJSON's fix of CVE-2023-26819 (a Debian patch with the test that caught it), taken back
    out of the tree, is a task: misc_tests fails; the fix's own source lines score 1, the empty
    patch 0."""
    env = gym.make("codegym/RepoRepair-v1", language="c", projects=["cjson"])
    try:
        task = next(task for task in env.unwrapped.tasks if "reversed_fix" in task.tags)
        repair = repair_of(task)
        assert repair.fail_to_pass == (".::misc_tests",) and repair.where == "cJSON.c"
        fix = project_tasks.fix_patch(repair.project, env.unwrapped.layers(task), repair.project.fixes[0])
        added = [line for line in task.reference.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert added and all(line in fix.splitlines() for line in added)
        assert _score(env, task.id, task.reference)[0] == 1.0
        reward, grade = _score(env, task.id, "")
        assert reward == 0.0 and grade.status.value == "WA", grade
    finally:
        env.close()
