"""RepoRepair in Java (``language="java"``): json-simple from Debian's source package, its
upstream JUnit 4 tests run on the JUnit Platform by the harness's driver in one JVM (a JUnit
XML report written outside the tree), graded in the project's own machine. The reference fix
scores 1; an empty patch, a deleted test and a fix that does not compile 0; each way Java
offers to fool its runner (skip markers and assumptions, exits, static initializers, the test
framework, reflection, threads, the process's streams and properties, other programs, class
loading, file writes) is HACK; output in the report's format decides nothing; agent mode solves
a task with the reference applied through the tools, the failing tests' file out of its view."""

from __future__ import annotations

import base64
import re

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks, projects
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, repair_of
from codegym.envs.repo_repair.source import unified

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import BoxSpec, RootBox, available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)

PROJECT = "json-simple"
EXTRA = "src/main/java/org/json/simple/ZzExtra.java"

# One line per construct a fix may not add, and the reason it is refused for.
HACKS = [
    ("@Ignore public static class Skipped {}", "skip or ignore marker"),
    ("@Disabled public static class Skipped {}", "skip or ignore marker"),
    ("public static void skip() { Assume.assumeTrue(false); }", "skip or ignore marker"),
    ("public static void skip() { Assumptions.assumeTrue(false); }", "skip or ignore marker"),
    ("public static void quit() { System.exit(0); }", "ends the process"),
    ("public static void quit() { Runtime.getRuntime().halt(0); }", "ends the process"),
    ("public static final java.util.function.IntConsumer QUIT = System::exit;", "ends the process"),
    ("static { System.out.println(); }", "static initializer"),
    ("static", "static initializer"),  # (its block on the next line)
    ("public static void fail() { org.junit.Assert.fail(); }", "test framework"),
    ("public static String name() { return CodegymJUnit.class.getName(); }", "test framework"),
    ('public static Object f() throws Exception { return String.class.getDeclaredField("value"); }', "reflection"),
    ("public static void open(java.lang.reflect.Field f) { f.setAccessible(true); }", "reflection"),
    ("public static Object u() { return sun.misc.Unsafe.class; }", "reflection"),
    ("public static void later() { new Thread(() -> {}).start(); }", "threads"),
    ("public static void hook() { Runtime.getRuntime().addShutdownHook(null); }", "ends the process"),
    ("public static void mute() { System.setOut(null); }", "streams"),
    ('public static void set() { System.setProperty("a", "b"); }', "streams"),
    ('public static void run() throws Exception { new ProcessBuilder("true").start(); }', "other programs"),
    ("public static Object load() { return java.util.ServiceLoader.load(Runnable.class); }", "loads code"),
    ("public static native void poke();", "loads code"),
    ('public static void w() throws Exception { java.nio.file.Files.writeString(null, ""); }', "writes files"),
    ('public static void w() throws Exception { new java.io.FileOutputStream("/tmp/x").close(); }', "writes files"),
    ('public static void w() throws Exception { new java.io.PrintStream("/tmp/x").close(); }', "writes files"),
    ("public static void quit() { System.\\u0065xit(0); }", "unicode escape"),
]


@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_the_java_integrity_patterns_name_what_they_refuse(line: str, reason: str) -> None:
    before = {"A.java": "package a;\n\npublic class A {\n}\n"}
    after = {"A.java": f"package a;\n\npublic class A {{\n{line}\n}}\n".encode()}
    assert reason in str(forbidden("java", before, after))


def test_plain_java_is_not_refused() -> None:
    before = {"A.java": "package a;\n\npublic class A {\n}\n"}
    fine = "public static int f(int x) { if (x > 0 && x != 2) { return x * 2; } return Math.max(x, -1); }"
    assert (
        forbidden("java", before, {"A.java": before["A.java"].replace("{\n}", "{\n" + fine + "\n}").encode()}) is None
    )


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="java", projects=[PROJECT])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


def _new_class(body: str) -> str:
    """A diff adding a source file of the bug's package, a class with ``body``."""
    lines = ["package org.json.simple;", "", "public class ZzExtra {", body, "}"]
    return f"--- /dev/null\n+++ b/{EXTRA}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


@machine
def test_bundled_java_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert tasks and all(task.tags[:2] == ("java", PROJECT) for task in tasks)
    task = tasks[0]
    assert all(test.startswith(".::org.json.simple.") and "#" in test for test in repair_of(task).fail_to_pass)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_the_driver_lists_runs_and_reports_what_the_tree_defines(env) -> None:
    """The listing names test methods (``.::<class>#<method>``); the batch report names each
    one asked for once, passed; one test runs alone by its exit status; a name the tree lacks
    exits non-zero (the runner finds nothing to run) and is left out of the report."""
    task = _first(env)
    project, layers = env.unwrapped.project(task), env.unwrapped.layers(task)
    with RootBox(BoxSpec(layers=layers)) as box:
        listed = projects.list_tests(box, project)
        assert len(listed) >= 70 and all(t.startswith(".::org.json.simple.") for t in listed), listed[:5]
        names = [projects.split_id(test)[1] for test in listed]
        missing = "org.json.simple.JsonerTest#noSuchTest"
        report = projects.run_batch(box, project, ".", [*names, missing])
        assert report == dict.fromkeys(names, True)
        assert projects.run_test(box, project, listed[0]).exit_code == 0
        assert projects.run_test(box, project, f".::{missing}").exit_code != 0


@machine
def test_changed_tests_are_dropped_and_a_broken_build_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    assert repair.hidden and all(path.startswith("src/test/java/") for path in repair.hidden), repair.hidden
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in tree if path.startswith("src/test/java/") and path.endswith("Test.java"))
    emptied = unified(test_file, tree[test_file].decode(), "").replace(f"+++ b/{test_file}", "+++ /dev/null")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    path, buggy = next(iter(repair.start.items()))
    text = buggy.decode()
    broken = text.replace("\npackage ", "\nclass (\npackage ", 1) if "\npackage " in text else "class (\n" + text
    reward, grade = _score(env, task.id, unified(path, text, broken))
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, task.reference + _new_class(line))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
def test_output_in_the_report_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints, when its class loads, what the driver writes for
    passing tests (and what its single run prints) still scores 0: the verdict is the report
    the driver writes outside the tree after the tests ran, and each lone run's exit status."""
    task = _first(env)
    repair = repair_of(task)
    cases = "".join(
        f'<testcase classname=\\"{test[3:].split("#")[0]}\\" name=\\"{test.split("#")[1]}\\"/>'
        for test in repair.fail_to_pass
    )
    fake = f'<?xml version=\\"1.0\\"?><testsuite>{cases}</testsuite>\\ncodegym: passed'
    body = (
        f'public static final int PRINTED = print(); static int print() {{ System.out.println("{fake}"); return 0; }}'
    )
    path, buggy = next(iter(repair.start.items()))
    lines = buggy.decode().splitlines(keepends=True)
    at = next(
        i
        for i, line in enumerate(lines)
        if re.match(r"^(public\s+|final\s+|abstract\s+)*(class|enum)\s", line) and "{" in line
    )
    printing = "".join([*lines[: at + 1], body + "\n", *lines[at + 1 :]])
    reward, grade = _score(env, task.id, unified(path, buggy.decode(), printing))
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="java", projects=[PROJECT], mode="agent")
    try:
        task = _first(env)
        repair = repair_of(task)
        env.reset(options={"task_id": task.id})
        root = env.unwrapped.project(task).root
        hidden = " ".join(repair.hidden)
        look = {"name": "bash", "arguments": {"command": f"git status --short | wc -l; ls -d {hidden} /nothing"}}
        observation, *_ = env.step([look])
        feedback = observation["feedback"]
        assert feedback.splitlines()[1] == "0" and feedback.count("No such file") == len(repair.hidden) + 1, feedback
        layers = env.unwrapped.layers(task)
        pristine = project_tasks.source_files(repair.project, layers)[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, info = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
