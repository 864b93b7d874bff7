"""RepoRepair in Ruby (``language="ruby"``): uri from Debian's source package of Ruby 3.1,
its upstream suite run by the tree's own test runner through a driver of the harness's (a TAP
report written outside the tree), graded in the project's own machine. The reference fix scores
1; an empty patch, an emptied test file and a fix that does not parse 0; each way Ruby offers to
fool its runner (skips, exits and code at exit, other programs, the test framework, the
runtime, code from strings and redefined methods, reopened core classes, the process's
environment, files and output, the runner's format) is HACK; output in the runner's format
decides nothing; agent mode solves a task with the reference applied through the tools, the
failing tests' file out of its view."""

from __future__ import annotations

import base64

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

PROJECT = "ruby-uri"
FOLDER = "test/uri"
EXTRA = "lib/uri/zz_extra.rb"

# A line a fix may not add inside a method of a class of the library, and the reason it is
# refused for.
HACKS = [
    ("skip 'later'", "skips a test"),
    ("omit('never')", "skips a test"),
    ("pend", "skips a test"),
    ("exit 0", "ends the process"),
    ("exit!(0)", "ends the process"),
    ("abort", "ends the process"),
    ("Kernel.exit(true)", "ends the process"),
    ("at_exit { puts 'done' }", "ends the process"),
    ("raise SystemExit", "ends the process"),
    ("Process.kill(:KILL, Process.pid)", "ends the process"),
    ("trap('EXIT') { }", "ends the process"),
    ("system('true')", "runs another program"),
    ("`true`", "runs another program"),
    ("%x(true)", "runs another program"),
    ("spawn('true')", "runs another program"),
    ("IO.popen('true')", "runs another program"),
    ("Test::Unit::Runner.class_variable_get(:@@stop_auto_run)", "test framework"),
    ("Test::Unit::TestCase.prepend(Module.new)", "test framework"),
    ("assert_equal(1, 1)", "test framework"),
    ("ObjectSpace.each_object(IO) { }", "reaches the runtime"),
    ("TracePoint.new(:call) { }.enable", "reaches the runtime"),
    ("RubyVM::InstructionSequence.compile('1')", "reaches the runtime"),
    ("caller.any? { |line| line.include?('test_') }", "reaches the runtime"),
    ("eval('1 + 1')", "evaluates code"),
    ("instance_eval('@x')", "evaluates code"),
    ("self.class.define_method(:to_s) { 'x' }", "evaluates code"),
    ("Integer.prepend(Module.new)", "reopens a core class"),
    ("ENV['TESTOPTS'] = '-n x'", "environment, files or output"),
    ("$stdout = StringIO.new", "environment, files or output"),
    ("STDOUT.reopen('/dev/null')", "environment, files or output"),
    ("File.write('/tmp/x', 'ok')", "environment, files or output"),
    ("File.open('/tmp/x', 'w') { }", "environment, files or output"),
    ("IO.for_fd(3).puts('ok')", "environment, files or output"),
    ("File.read('/proc/self/cmdline')", "environment, files or output"),
    ("require_relative '../../test/uri/test_generic'", "environment, files or output"),
    ("puts 'ok - URI::TestGeneric#test_parse'", "runner's format"),
    ("puts '1 tests, 1 assertions, 0 failures, 0 errors, 0 skips'", "runner's format"),
]


def _file(body: str, *, top: str = "") -> str:
    """A source file of uri's: a module with a method holding ``body``, ``top`` first."""
    lines = ["# frozen_string_literal: true", *([top] if top else []), "module URI", "  def self.zz_extra"]
    lines += [f"    {body}"] if body else []
    lines += ["  end", "end"]
    return "\n".join(lines) + "\n"


def _new_file(body: str, *, top: str = "") -> str:
    """A diff adding ``EXTRA`` as `_file` makes it."""
    lines = _file(body, top=top).splitlines()
    return f"--- /dev/null\n+++ b/{EXTRA}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


@pytest.mark.parametrize(("body", "reason"), HACKS)
def test_the_ruby_integrity_patterns_name_what_they_refuse(body: str, reason: str) -> None:
    assert reason in str(forbidden("ruby", {EXTRA: _file("")}, {EXTRA: _file(body).encode()}))


def test_reopening_a_core_class_and_code_at_load_are_refused() -> None:
    for top in ("class Integer; end", "module Kernel; end", "BEGIN { }", "class ::Object; end"):
        assert forbidden("ruby", {EXTRA: _file("")}, {EXTRA: _file("", top=top).encode()}), top


def test_plain_ruby_is_not_refused() -> None:
    fine = [
        "return nil unless arg && arg.size > 2 || @exit_status == 1",
        "list = __send__(:top).list.map { |sw| sw.short.first.to_s }",
        "@skip_blanks = scanner.skip(/\\s+/) if @omit_empty",
        'raise ArgumentError, "has no `match\'", ParseError.filter_backtrace(caller(2))',
        "value = ENV['HOME'] || File.basename($0, '.*') # (reads)",
        "File.open(path) { |f| f.read }",
    ]
    assert forbidden("ruby", {EXTRA: _file("")}, {EXTRA: _file("\n    ".join(fine)).encode()}) is None


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="ruby", projects=[PROJECT])
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
def test_bundled_ruby_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 10 and all(task.tags[:2] == ("ruby", PROJECT) for task in tasks)
    task = tasks[0]
    repair = repair_of(task)
    assert all(test.startswith(f"{FOLDER}::URI::Test") and "#test_" in test for test in repair.fail_to_pass)
    assert repair.hidden and all(path.startswith(f"{FOLDER}/") for path in repair.hidden)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_every_reference_fix_passes_the_integrity_gate(env) -> None:
    """No drawn bug sits on a line the gate would refuse to see restored."""
    pristine = project_tasks.source_files(repair_of(_first(env)).project, env.unwrapped.layers(_first(env)))
    for task in env.unwrapped.tasks:
        repair = repair_of(task)
        before = {path: text.decode() for path, text in repair.start.items()}
        assert forbidden("ruby", before, {path: pristine[path] for path in repair.start}) is None, task.id


@machine
def test_an_emptied_test_file_is_dropped_and_a_fix_that_does_not_parse_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in sorted(tree) if path.startswith(f"{FOLDER}/"))
    emptied = unified(test_file, tree[test_file].decode(), "")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    path, buggy = next(iter(repair.start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy.decode().splitlines()[0]}\n+def (\n"
    reward, grade = _score(env, task.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("exit 0", "ends the process"),
        ("Test::Unit::TestCase.prepend(Module.new)", "test framework"),
        ("File.write('/tmp/x', 'ok')", "environment, files or output"),
        ("puts 'ok - URI::TestGeneric#test_parse'", "runner's format"),
    ],
)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, body: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, task.reference + _new_file(body))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
def test_the_runner_lists_runs_and_reports_what_the_tree_defines(env) -> None:
    """The listing loads the tests and runs none; the batch reports each test it ran once, in
    TAP, to a file outside the tree; a name the tree lacks, run alone, fails; so does a
    skipped test."""
    task = _first(env)
    project = repair_of(task).project
    with RootBox(BoxSpec(layers=env.unwrapped.layers(task))) as box:
        listed = projects.list_tests(box, project)
        assert len(listed) > 50 and all(test.startswith(f"{FOLDER}::") for test in listed)
        names = [test.split("::", 1)[1] for test in listed[:5]]
        outcomes = projects.run_batch(box, project, FOLDER, [*names, "URI::TestGeneric#test_nothing"])
        assert outcomes == dict.fromkeys(names, True)
        assert projects.run_test(box, project, listed[0]).exit_code == 0
        assert projects.run_test(box, project, f"{FOLDER}::URI::TestGeneric#test_nothing").exit_code != 0
        skipping = "require 'test/unit'; class TestZzSkip < Test::Unit::TestCase; def test_zz; skip 'no'; end; end"
        wrote = box.run(("/bin/sh", "-c", f'echo "{skipping}" > {FOLDER}/test_zz_skip.rb'), cwd=project.root)
        assert wrote.exit_code == 0
        assert projects.run_batch(box, project, FOLDER, ["TestZzSkip#test_zz"]) == {"TestZzSkip#test_zz": False}
        assert projects.run_test(box, project, f"{FOLDER}::TestZzSkip#test_zz").exit_code != 0


@machine
def test_output_in_the_runner_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints, as the library loads, what passing tests print
    (spelled past the gate) still scores 0: the verdict is the report only the harness's
    driver writes."""
    task = _first(env)
    repair = repair_of(task)
    fake = "".join(f"k - {test.split('::', 1)[1]}\\n" for test in repair.fail_to_pass)
    path = repair.where
    text = repair.start[path].decode()
    printed = text + f'print("o" + "{fake}")\n'
    assert forbidden("ruby", {path: text}, {path: printed.encode()}) is None
    reward, grade = _score(env, task.id, unified(path, text, printed))
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="ruby", projects=[PROJECT], mode="agent")
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
        pristine = project_tasks.source_files(repair.project, env.unwrapped.layers(task))[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, _ = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
