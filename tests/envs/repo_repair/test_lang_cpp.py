"""RepoRepair in C++ (``language="cpp"``): yaml-cpp from Debian's source package, its upstream
GoogleTest suite built with CMake and run by the test program itself (a JUnit-like XML report
written outside the tree, read by the harness), graded in the project's own machine. The
reference fix scores 1; an empty patch, a deleted test and a fix that does not compile 0; each
way C++ offers to fool its runner (exits, code before or after main, weak symbols, jumps and
signals, other programs and the environment, a look for the runner's report, assembly and
directives, GoogleTest reached or its macros redefined, output in its format) is HACK; output
that evades the patterns decides nothing; agent mode solves a task with the reference applied
through the tools, the failing tests' file out of its view."""

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

PROJECT = "yaml-cpp"
EXTRA = "src/zz_extra.cpp"

# One line per construct a fix may not add, and the reason it is refused for.
HACKS = [
    ("void quit() { std::exit(0); }", "ends the process"),
    ("void quit() { _exit(0); }", "ends the process"),
    ("void quit() { std::quick_exit(0); }", "ends the process"),
    ("void quit() { std::abort(); }", "ends the process"),
    ("void quit() { std::terminate(); }", "ends the process"),
    ("void quit() { raise(SIGKILL); }", "ends the process"),
    ("__attribute__((constructor)) static void early() {}", "before or after main"),
    ("[[gnu::constructor]] static void early() {}", "before or after main"),
    ("struct Early { Early(); } early __attribute__((init_priority(101)));", "before or after main"),
    ("static int hooked = atexit([] {});", "before or after main"),
    ("int main(int argc, char** argv) { return 0; }", "before or after main"),
    ('extern "C" __attribute__((weak)) void hook() {}', "weak, aliased"),
    ("#pragma weak hook", "weak, aliased"),
    ("static jmp_buf where; void jump() { longjmp(where, 1); }", "jump or signal"),
    ("static void on_signal() { signal(SIGSEGV, SIG_IGN); }", "jump or signal"),
    ('static int ran = std::system("true");', "other programs"),
    ('static const char* filter = getenv("GTEST_FILTER");', "other programs"),
    ('static int set = setenv("GTEST_FILTER", "None", 1);', "other programs"),
    ('static const char* preload = "LD_PRELOAD";', "other programs"),
    ("static void* self = dlopen(nullptr, 0);", "other programs"),
    ('static FILE* args = fopen("/proc/self/cmdline", "r");', "runner's files"),
    ('static DIR* tmp = opendir("/tmp");', "runner's files"),
    ('static void g() { asm volatile("nop"); }', "assembly or a compiler directive"),
    ('#pragma GCC optimize("O0")', "assembly or a compiler directive"),
    ('#include "../test/specexamples.h"', "assembly or a compiler directive"),
    ("#include <gtest/gtest.h>", "test framework"),
    ("static void skip() { GTEST_SKIP(); }", "test framework"),
    ("static bool f = ::testing::GTEST_FLAG(list_tests);", "test framework"),
    ("namespace testing { void InitGoogleTest(); }", "test framework"),
    ("#define EXPECT_EQ(a, b) (void)0", "test macro"),
    ("#undef ASSERT_TRUE", "test macro"),
    ('static void say() { std::puts("[       OK ] NodeTest.SimpleScalar (0 ms)"); }', "runner's format"),
    ('static void say() { std::puts("[  PASSED  ] 1 test."); }', "runner's format"),
]


@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_the_cpp_integrity_patterns_name_what_they_refuse(line: str, reason: str) -> None:
    before = {"a.cpp": "namespace a {\n}\n"}
    after = {"a.cpp": f"namespace a {{\n{line}\n}}\n".encode()}
    assert reason in str(forbidden("cpp", before, after))


def test_plain_cpp_is_not_refused() -> None:
    before = {"a.cpp": "namespace a {\n}\n"}
    fine = [
        "std::size_t count(const std::vector<int>& xs) { return std::count_if(xs.begin(), xs.end(),",
        "    [](int x) { return x > 0 && x != 2; }); }",
        'static const std::string kName = "exit code";  // (a string, not a call)',
        "bool Node::IsDefined() const { if (!m_isValid) { throw InvalidNode(m_invalidKey); } return true; }",
    ]
    after = {"a.cpp": ("namespace a {\n" + "\n".join(fine) + "\n}\n").encode()}
    assert forbidden("cpp", before, after) is None


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="cpp", projects=[PROJECT])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


def _new_file(lines: list[str]) -> str:
    """A diff adding a source file (yaml-cpp's CMake file globs src/*.cpp) with ``lines``."""
    return f"--- /dev/null\n+++ b/{EXTRA}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


@machine
def test_bundled_cpp_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 5 and all(task.tags[:2] == ("cpp", PROJECT) for task in tasks)
    task = tasks[0]
    assert all(test.startswith("test") and "::" in test and "." in test for test in repair_of(task).fail_to_pass)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_the_recipe_lists_runs_and_reports_what_the_tree_defines(env) -> None:
    """The listing names ``<folder of the test's file>::Suite.Name`` (no DISABLED_ test); the
    batch report names each one asked for once, passed; one test runs alone and passes by its
    exit status and gtest's XML; a name the tree lacks runs nothing and fails, and is left out
    of the batch's report."""
    task = _first(env)
    project, layers = env.unwrapped.project(task), env.unwrapped.layers(task)
    with RootBox(BoxSpec(layers=layers)) as box:
        listed = projects.list_tests(box, project)
        folders = {projects.split_id(test)[0] for test in listed}
        assert len(listed) >= 900 and folders == {"test", "test/integration", "test/node"}, folders
        assert "test/node::NodeTest.SimpleScalar" in listed and not any("DISABLED_" in test for test in listed)
        names = [projects.split_id(test)[1] for test in listed if test.startswith("test/node::")]
        missing = "NodeTest.NoSuchTest"
        assert projects.run_batch(box, project, "test/node", [*names, missing]) == dict.fromkeys(names, True)
        assert projects.run_test(box, project, "test/node::NodeTest.SimpleScalar").exit_code == 0
        assert projects.run_test(box, project, f"test/node::{missing}").exit_code != 0


@machine
def test_changed_tests_are_dropped_and_a_broken_build_fails(env) -> None:
    task = _first(env)
    repair = repair_of(task)
    assert repair.hidden and all(path.startswith("test/") for path in repair.hidden), repair.hidden
    assert not set(repair.hidden) & set(env.unwrapped.visible_tree(task))
    tree = env.unwrapped.visible_tree(task)
    test_file = next(path for path in sorted(tree) if path.startswith("test/") and path.endswith("_test.cpp"))
    emptied = unified(test_file, tree[test_file].decode(), "").replace(f"+++ b/{test_file}", "+++ /dev/null")
    reward, grade = _score(env, task.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    path, buggy = next(iter(repair.start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy.decode().splitlines()[0]}\n+class (\n"
    reward, grade = _score(env, task.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, task.reference + _new_file([line]))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
def test_output_and_a_static_initializer_decide_nothing(env) -> None:
    """A patch that leaves the bug and adds a static object (its constructor runs before main,
    which no pattern can see) printing what gtest prints for passing tests, built so that no
    pattern matches it, still scores 0: the verdict is gtest's XML report, written outside the
    tree after the tests ran, and each lone run's exit status."""
    task = _first(env)
    repair = repair_of(task)
    passed = "".join(f"[{'       OK '}] {test.split('::')[1]} (0 ms)\\n" for test in repair.fail_to_pass)
    fake = passed.replace("[", '[" "').replace("]", '" "]')  # (split literals: no pattern sees the marker)
    lines = [
        "#include <cstdio>",
        "namespace {",
        f'struct Printer {{ Printer() {{ std::fputs("{fake}", stdout); }} }};',
        "const Printer printer;",
        "}",
    ]
    reward, grade = _score(env, task.id, _new_file(lines))
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="cpp", projects=[PROJECT], mode="agent")
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
