"""RepoRepair in PHP (``language="php"``): Doctrine Inflector from Debian's source package, its
upstream PHPUnit tests run by one phpunit (a JUnit report written outside the tree, a test
method's data sets one test), graded in the project's own machine. The reference fix scores 1;
an empty patch, a deleted test and a fix that does not parse 0; each way PHP offers to fool its
runner (skip markers, exits, code at a file's top level, the test framework and its caller,
shutdown, error and output handlers, the runtime's settings, code from text and other files,
other programs, file and stream writes, the runner's format) is HACK; output in the runner's
format decides nothing; agent mode solves a task with the reference applied through the tools,
the failing tests' file out of its view."""

from __future__ import annotations

import base64

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks, projects, reports
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, repair_of
from codegym.envs.repo_repair.source import unified

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import BoxSpec, RootBox, available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)

PROJECT = "doctrine-inflector"
EXTRA = "lib/Doctrine/Inflector/ZzExtra.php"

# A line a fix may not add inside a class (or, where the second item says so, after it at the
# file's top level), and the reason it is refused for.
HACKS = [
    ("public function s(): void { $this->markTestSkipped('x'); }", "", "skips the test"),
    ("public function s(): void { $this->markTestIncomplete('x'); }", "", "skips the test"),
    ("public static function q(): void { exit(0); }", "", "ends the process"),
    ("public static function q(): void { die; }", "", "ends the process"),
    ("public static function q(): void { posix_kill(posix_getpid(), 9); }", "", "ends the process"),
    ("public static function q(): void { pcntl_signal(15, fn () => null); }", "", "ends the process"),
    ("", "ZzExtra::boot();", "top level"),
    ("public static function t(): string { return \\PHPUnit\\Framework\\TestCase::class; }", "", "test framework"),
    ("public static function t(): array { return debug_backtrace(); }", "", "test framework"),
    ("public static function t(): array { return $GLOBALS['argv']; }", "", "test framework"),
    ("public static function t(): string { return (new \\Exception())->getTraceAsString(); }", "", "its caller"),
    ("public static function h(): void { register_shutdown_function(fn () => null); }", "", "on shutdown"),
    ("public static function h(): void { set_error_handler(fn () => true); }", "", "on an error"),
    ("public static function h(): void { set_exception_handler(null); }", "", "on an error"),
    ("public static function h(): void { ob_start(); }", "", "on output"),
    ("public static function e(): void { putenv('A=1'); }", "", "settings or environment"),
    ("public static function e(): string|false { return getenv('CI'); }", "", "settings or environment"),
    ("public static function e(): void { ini_set('display_errors', '0'); }", "", "settings or environment"),
    ("public static function e(): void { error_reporting(0); }", "", "settings or environment"),
    ("public static function c(): mixed { return eval('return 1;'); }", "", "code from text"),
    ("public static function c(): void { require_once '/tmp/x.php'; }", "", "other files"),
    ("public static function c(): void { spl_autoload_register(fn ($c) => null); }", "", "other files"),
    ("public static function p(): void { shell_exec('true'); }", "", "other programs"),
    ("public static function p(): void { proc_open('true', [], $pipes); }", "", "other programs"),
    ("public static function p(): string { return `true`; }", "", "other programs"),
    ("public static function w(): void { file_put_contents('/tmp/x', 'y'); }", "", "writes files"),
    ("public static function w(): void { fwrite(STDOUT, 'y'); }", "", "writes files"),
    ("public static function o(): void { echo 'OK (1 test, 1 assertion)'; }", "", "runner's format"),
    ("public static function o(): string { return '<testcase name=\"a\"/>'; }", "", "runner's format"),
]


def _file(inside: str, outside: str = "") -> str:
    """A PHP source file of the inflector's namespace: a class with ``inside``, then ``outside``."""
    lines = ["<?php", "", "namespace Doctrine\\Inflector;", "", "final class ZzExtra", "{"]
    lines += [f"    {inside}"] if inside else []
    lines += ["}", *([outside] if outside else [])]
    return "\n".join(lines) + "\n"


def _new_file(inside: str, outside: str = "") -> str:
    """A diff adding ``EXTRA`` as `_file` makes it."""
    lines = _file(inside, outside).splitlines()
    return f"--- /dev/null\n+++ b/{EXTRA}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


@pytest.mark.parametrize(("inside", "outside", "reason"), HACKS)
def test_the_php_integrity_patterns_name_what_they_refuse(inside: str, outside: str, reason: str) -> None:
    before = {EXTRA: _file("")}
    assert reason in str(forbidden("php", before, {EXTRA: _file(inside, outside).encode()}))


def test_plain_php_is_not_refused() -> None:
    fine = [
        "public static function f(int $x): int { if ($x > 0 && $x !== 2) { return $x * 2; } return max($x, -1); }",
        "public function g(array $a): string { return implode(', ', array_map(fn ($v) => (string) $v, $a)); }",
        "private const EXECUTE = 'exit code'; // (words, not calls)",
    ]
    assert forbidden("php", {EXTRA: _file("")}, {EXTRA: _file("\n    ".join(fine)).encode()}) is None


def test_phpunit_s_report_folds_data_sets_into_their_method() -> None:
    """A method passes only where every data set of it passed; a skipped, incomplete (skipped
    in JUnit), warned or risky (an error) one did not; the PHP class names it, not the dotted
    ``classname``."""
    case = '<testcase name="{name}" class="A\\BTest" classname="A.BTest" file="t.php" line="1"{rest}'
    report = "".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="">',
            case.format(name="testA with data set #0", rest="/>"),
            case.format(name="testA with data set &quot;two&quot;", rest="/>"),
            case.format(name="testB with data set #0", rest="/>"),
            case.format(name="testB with data set #1", rest="><failure>no</failure></testcase>"),
            case.format(name="testC", rest="><skipped/></testcase>"),
            case.format(name="testD", rest="><warning>w</warning></testcase>"),
            case.format(name="testE", rest="><error>risky</error></testcase>"),
            case.format(name="testF", rest="/>"),
            "</testsuite></testsuites>",
        ]
    )
    outcomes = reports.parse("phpunit-junit", report)
    expected = {"testA": True, "testB": False, "testC": False, "testD": False, "testE": False, "testF": True}
    assert outcomes == {f"A\\BTest::{method}": passed for method, passed in expected.items()}


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="php", projects=[PROJECT])
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
def test_bundled_php_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 10 and all(task.tags[:2] == ("php", PROJECT) for task in tasks)
    task = tasks[0]
    assert all(test.startswith(".::Doctrine\\Tests\\Inflector\\") for test in repair_of(task).fail_to_pass)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_the_runner_lists_runs_and_reports_what_the_tree_defines(env) -> None:
    """The listing names test methods (``.::<class>::<method>``, once however many data sets);
    the batch report names each one asked for once, passed; one test runs alone by its exit
    status; a name the tree lacks (phpunit exits 0 where its filter matches nothing) fails and
    is left out of the report."""
    task = _first(env)
    project, layers = env.unwrapped.project(task), env.unwrapped.layers(task)
    with RootBox(BoxSpec(layers=layers)) as box:
        listed = projects.list_tests(box, project)
        assert len(listed) >= 50 and len(set(listed)) == len(listed), listed[:5]
        assert all(test.startswith(".::Doctrine\\Tests\\Inflector\\") for test in listed), listed[:5]
        names = [projects.split_id(test)[1] for test in listed]
        missing = "Doctrine\\Tests\\Inflector\\InflectorTest::testNoSuchThing"
        report = projects.run_batch(box, project, ".", [*names, missing])
        assert report == dict.fromkeys(names, True)
        with_data_sets = next(test for test in listed if test.endswith("::testCreateForLanguageWithCustomLanguage"))
        assert projects.run_test(box, project, with_data_sets).exit_code == 0
        assert projects.run_test(box, project, f".::{missing}").exit_code != 0
        prefix = with_data_sets.removesuffix("WithCustomLanguage")  # (a name's prefix is not the test)
        assert projects.run_test(box, project, prefix).exit_code != 0


@machine
def test_changed_tests_are_dropped_and_a_broken_build_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    assert repair.hidden and all(path.startswith("tests/") for path in repair.hidden), repair.hidden
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in tree if path.startswith("tests/") and path.endswith("Test.php"))
    emptied = unified(test_file, tree[test_file].decode(), "").replace(f"+++ b/{test_file}", "+++ /dev/null")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    path, buggy = next(iter(repair.start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy.decode().splitlines()[0]}\n+class (\n"
    reward, grade = _score(env, task.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(("inside", "outside", "reason"), HACKS)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, inside: str, outside: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, task.reference + _new_file(inside, outside))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
def test_output_in_the_runner_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints, in each method of the buggy file, what phpunit
    prints for a passing run and what its JUnit report holds (built so that no integrity
    pattern sees it) still scores 0: the verdict is the report phpunit writes outside the tree,
    and each lone run's exit status and count."""
    task = _first(env)
    repair = repair_of(task)
    cases = "".join(
        f'<test\' . \'case name="{test.split("::")[-1]}" class="{test[3:].rsplit("::", 1)[0]}"/>'
        for test in repair.fail_to_pass
    ).replace("\\", "\\\\")
    printer = f"        echo '\\x4fK (1 test, 1 assertion)' . \"\\n\" . '{cases}';"
    path, buggy = next(iter(repair.start.items()))
    lines = buggy.decode().splitlines(keepends=True)
    printing = "".join(line + (printer + "\n" if line == "    {\n" else "") for line in lines)
    assert printing != buggy.decode()
    reward, grade = _score(env, task.id, unified(path, buggy.decode(), printing))
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="php", projects=[PROJECT], mode="agent")
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
