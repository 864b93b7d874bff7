"""RepoRepair in Rust (``language="rust"``): strsim as Debian's librust-strsim-dev ships it,
built offline with Debian's cargo and rustc against the packaged crate registry, its test
programs run by libtest (its log file written outside the tree, read by the harness), graded in
the project's own machine. The reference fix scores 1; an empty patch, a deleted test and a fix
that does not compile 0; a fix that changes, adds or removes the unit tests inside a source file
is HACK, and so is each way Rust offers to fool its runner (exits, ignore and should_panic
markers, code run at load, foreign symbols and unsafe code, crate attributes, file includes and
macros, the environment, files and other programs, output in libtest's format); output that
evades the patterns decides nothing; agent mode solves a task with the reference applied through
the tools."""

from __future__ import annotations

import base64

import gymnasium as gym
import pytest
from codegym.envs.repo_repair import project_tasks, projects, reports, syntax_mutations
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, forbidden, repair_of
from codegym.envs.repo_repair.source import unified

import codegym  # noqa: F401  (registers the envs)
from codegym.executor.rootbox import BoxSpec, RootBox, available

machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)

PROJECT = "strsim"
EXTRA = "src/zz_extra.rs"

# One line per construct a fix may not add, and the reason it is refused for.
HACKS = [
    ("pub fn quit() { std::process::exit(0); }", "ends the process"),
    ("pub fn quit() { process::abort(); }", "ends the process"),
    ("pub fn quit() { exit(0) }", "ends the process"),
    ("pub fn quit() { (p::exit)(0) }", "ends the process"),
    ("static HOOK: () = std::panic::set_hook(Box::new(|_| {}));", "ends the process"),
    ("#[ignore]", "ignored or expected to fail"),
    ('#[should_panic(expected = "")]', "ignored or expected to fail"),
    ("#[test] fn extra() {}", "ignored or expected to fail"),
    ("#[cfg(test)] fn helper() {}", "ignored or expected to fail"),
    ("pub fn f() -> bool { cfg!(test) }", "ignored or expected to fail"),
    ("#[ctor::ctor] fn early() {}", "at load"),
    ('#[link_section = ".init_array"] static EARLY: fn() = early;', "at load"),
    ("#[used] static KEEP: u8 = 0;", "at load"),
    ("#[no_mangle] pub fn main() {}", "at load"),
    ('#[export_name = "main"] pub fn entry() {}', "at load"),
    ('extern "C" { fn hook(); }', "foreign code"),
    ("extern crate test;", "foreign code"),
    ("pub fn f(p: *const u8) -> u8 { unsafe { *p } }", "foreign code"),
    ("pub fn f() -> i32 { libc::getpid() }", "foreign code"),
    ('pub fn f() { std::arch::asm!("nop") }', "foreign code"),
    ("#![feature(custom_test_frameworks)]", "crate attribute"),
    ('#[path = "../tests/lib.rs"] mod tests_again;', "crate attribute"),
    ('include!("../tests/lib.rs");', "crate attribute"),
    ('const T: &str = include_str!("../tests/lib.rs");', "crate attribute"),
    ('const F: &str = env!("CARGO_MANIFEST_DIR");', "crate attribute"),
    ("macro_rules! assert_eq { ($($t:tt)*) => {} }", "crate attribute"),
    ("pub fn f() { test::black_box(0); }", "test framework"),
    ('pub fn f() { std::env::set_var("RUST_TEST_THREADS", "1") }', "test framework"),
    ('pub fn f() { env::set_var("X", "1") }', "test framework"),
    ('pub fn f() { let _ = std::fs::write("/tmp/x", ""); }', "test framework"),
    ('pub fn f() { let _ = File::create("/tmp/x"); }', "test framework"),
    ('pub fn f() { let _ = Command::new("true").status(); }', "test framework"),
    ('pub fn f() { let _ = std::io::stdout().write_all(b""); }', "test framework"),
    ('pub fn f() { println!("test result: ok. 9 passed"); }', "runner's format"),
    ('pub fn f() { println!("test tests::x ... ok"); }', "runner's format"),
    ('pub fn f() { println!(r#"{"type": "test", "event": "ok"}"#); }', "runner's format"),
]


@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_the_rust_integrity_patterns_name_what_they_refuse(line: str, reason: str) -> None:
    before = {"src/a.rs": "pub fn a() {}\n"}
    after = {"src/a.rs": f"pub fn a() {{}}\n{line}\n".encode()}
    assert reason in str(forbidden("rust", before, after))


def test_plain_rust_is_not_refused() -> None:
    before = {"src/a.rs": "pub fn a() {}\n"}
    fine = [
        "pub fn count(xs: &[i32]) -> usize { xs.iter().filter(|&&x| x > 0 && x != 2).count() }",
        'pub const NAME: &str = "exit code"; // (a string, not a call)',
        "fn tested(x: usize) -> Result<usize, Error> { if x == 0 { return Err(Error::Empty); } Ok(x - 1) }",
        "#[derive(Debug, Clone, PartialEq)] pub struct Latest { pub contest: u8 }",
    ]
    after = {"src/a.rs": ("pub fn a() {}\n" + "\n".join(fine) + "\n").encode()}
    assert forbidden("rust", before, after) is None


def test_the_batch_report_is_libtest_s_log_file() -> None:
    """A test passes where the log says ``ok`` and nothing else of it; failed, ignored and
    absent (a hang) are not passes, and lines that are not the log's add nothing."""
    assert projects.toolchains()["rust"].report == "libtest-log"
    log = "ok tests::a\nfailed tests::b\nok tests::b\nignored tests::c\ntest tests::d ... ok\n"
    assert reports.parse("libtest-log", log) == {"tests::a": True, "tests::b": False, "tests::c": False}


def test_the_rust_projects_share_one_toolchain_layer() -> None:
    """Each Rust project's pinned crate and extra packages are in the language's packages, so
    that every Rust machine installs the same set (one layer of about 1 GB, not one each)."""
    toolchain = projects.toolchains()["rust"]
    rust = [project for project in projects.projects().values() if project.language == "rust"]
    assert len(rust) >= 2
    for project in rust:
        assert f"{project.package}={project.version}" in toolchain.packages, project.name
        assert set(project.packages) <= set(toolchain.packages), project.name


SOURCE = b"""pub fn f(x: i32) -> bool { x < 3 }

#[cfg(test)]
// a comment between the attribute and the module
mod tests {
    use super::*;
    #[test]
    fn small() { assert!(f(1 + 1)); }
}
"""


def test_unit_tests_inside_a_source_file_get_no_bugs_and_a_fix_may_not_touch_them() -> None:
    """The items ``#[cfg(test)]`` and ``#[test]`` mark are the harness's: no bug is drawn in
    them, and a fix that changes, adds or removes one is refused; a fix of the code is not."""
    regions = syntax_mutations.test_regions(SOURCE, "rust")
    assert regions and SOURCE[regions[0][0] :].startswith(b"#[cfg(test)]") and regions[0][1] == len(SOURCE) - 1
    lines = {mutant.line for mutant in syntax_mutations.mutants("src/lib.rs", SOURCE, "rust")}
    assert lines == {1}, lines  # (the `1 + 1` in the test is no site)
    before = {"src/lib.rs": SOURCE.decode()}

    def changed(new: bytes) -> str | None:
        return syntax_mutations.tests_changed("rust", before, {"src/lib.rs": new})

    assert changed(SOURCE.replace(b"x < 3", b"x <= 3")) is None
    assert "tests inside a source file" in str(changed(SOURCE.replace(b"f(1 + 1)", b"true")))
    assert "tests inside a source file" in str(changed(SOURCE.split(b"#[cfg(test)]")[0]))  # (deleted)
    assert "tests inside a source file" in str(changed(SOURCE.replace(b"#[test]", b"#[test]\n    #[ignore]")))
    whole = b"#![cfg(test)]\nfn g() { assert!(1 < 2) }\n"
    assert syntax_mutations.test_regions(whole, "rust") == [(0, len(whole))]
    for crate_wide in (b"#![doc(test(attr(deny(warnings))))]\n", b"#![cfg_attr(test, deny(warnings))]\n"):
        start = len(crate_wide) + SOURCE.index(b"#[cfg(test)]")  # (the crate-wide attribute marks no test)
        assert syntax_mutations.test_regions(crate_wide + SOURCE, "rust")[0][0] == start
    for marked in (b"#[tokio::test]\nasync fn t() {}\n", b'#[cfg(all(test, feature = "std"))]\nmod m {}\n'):
        assert syntax_mutations.test_regions(marked, "rust") == [(0, len(marked) - 1)]
    assert syntax_mutations.tests_changed("go", {"a.go": "package a\n"}, {"a.go": b"package b\n"}) is None


@pytest.fixture(scope="module")
def env():
    made = gym.make("codegym/RepoRepair-v1", language="rust", projects=[PROJECT])
    yield made
    made.close()


def _score(env, task_id: str, diff: str):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    return reward, info["grade"]


def _first(env):
    return next(iter(env.unwrapped.tasks))


def _in_lib(env):
    """The first task whose failing tests include a unit test in src/lib.rs (``lib::``)."""
    return next(
        task for task in env.unwrapped.tasks if any(t.startswith("lib::") for t in repair_of(task).fail_to_pass)
    )


def _new_file(lines: list[str]) -> str:
    """A diff adding a source file with ``lines`` (never compiled: no module names it)."""
    return f"--- /dev/null\n+++ b/{EXTRA}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


@machine
def test_bundled_rust_tasks_load_and_the_reference_fixes_them(env) -> None:
    assert isinstance(env.unwrapped, ProjectRepairEnv)
    tasks = list(env.unwrapped.tasks)
    assert len(tasks) >= 10 and all(task.tags[:2] == ("rust", PROJECT) for task in tasks)
    task = tasks[0]
    assert all(test.split("::")[0] in ("lib", "tests/lib") for test in repair_of(task).fail_to_pass)
    reward, grade = _score(env, task.id, task.reference)
    assert reward == 1.0 and grade.status.value == "OK", grade
    reward, grade = _score(env, task.id, "")
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_the_recipe_lists_runs_and_reports_what_the_tree_defines(env) -> None:
    """The listing names ``<target>::<libtest path>`` for the library's unit tests and the
    integration test file; the batch's report (libtest's log) names each one asked for once, passed; one
    test runs alone and passes by its exit status; a name the tree lacks fails alone and is left
    out of the batch's report."""
    task = _first(env)
    project, layers = env.unwrapped.project(task), env.unwrapped.layers(task)
    with RootBox(BoxSpec(layers=layers)) as box:
        listed = projects.list_tests(box, project)
        folders = {projects.split_id(test)[0] for test in listed}
        assert len(listed) >= 90 and folders == {"lib", "tests/lib"}, folders
        assert "lib::tests::levenshtein_diff_short" in listed
        names = [projects.split_id(test)[1] for test in listed if test.startswith("lib::")]
        missing = "tests::no_such_test"
        assert projects.run_batch(box, project, "lib", [*names, missing]) == dict.fromkeys(names, True)
        assert projects.run_test(box, project, "lib::tests::levenshtein_diff_short").exit_code == 0
        assert projects.run_test(box, project, f"lib::{missing}").exit_code != 0
        assert projects.run_test(box, project, "lib::tests::levenshtein").exit_code != 0  # (a prefix is no name)


@machine
def test_a_deleted_test_or_a_broken_build_scores_0_and_unit_tests_are_the_harness_s(env) -> None:
    """The integration test file is hidden where it holds a failing test, and deleting it is
    dropped (not a source file); deleting or changing a unit test inside src/lib.rs is HACK; a
    fix that does not compile is CE."""
    tasks = list(env.unwrapped.tasks)
    outside = next(t for t in tasks if any(f.startswith("tests/lib::") for f in repair_of(t).fail_to_pass))
    assert repair_of(outside).hidden == ("tests/lib.rs",)
    assert "tests/lib.rs" not in env.unwrapped.visible_tree(outside)
    unit = next(t for t in tasks if all(f.startswith("lib::") for f in repair_of(t).fail_to_pass))
    tree = env.unwrapped.visible_tree(unit)
    emptied = unified("tests/lib.rs", tree["tests/lib.rs"].decode(), "").replace("+++ b/tests/lib.rs", "+++ /dev/null")
    reward, grade = _score(env, unit.id, emptied)
    assert reward == 0.0 and any("not a source file" in d.message for d in grade.diagnostics), grade
    buggy = repair_of(unit).start["src/lib.rs"].decode()
    failing = projects.split_id(next(t for t in repair_of(unit).fail_to_pass if t.startswith("lib::")))[1]
    head, _, body = buggy.partition(f"fn {failing.rsplit('::', 1)[1]}()")
    assert body, failing
    deleted = head.rstrip().removesuffix("#[test]") + "\nfn removed()" + body  # (no longer a test)
    weakened = head + f"fn {failing.rsplit('::', 1)[1]}()" + body.replace("assert", "debug_assert", 1)
    for changed in (deleted, weakened):
        reward, grade = _score(env, unit.id, unified("src/lib.rs", buggy, changed))
        assert reward == 0.0 and grade.status.value == "HACK" and "tests inside a source file" in grade.message, grade
    path, buggy_text = next(iter(repair_of(unit).start.items()))
    broken = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n {buggy_text.decode().splitlines()[0]}\n+fn (\n"
    reward, grade = _score(env, unit.id, broken)
    assert reward == 0.0 and grade.status.value == "CE", grade


@machine
@pytest.mark.parametrize(("line", "reason"), HACKS)
def test_a_fix_that_reaches_for_the_runner_is_hack(env, line: str, reason: str) -> None:
    task = _first(env)
    reward, grade = _score(env, task.id, task.reference + _new_file([line]))
    assert reward == 0.0 and grade.status.value == "HACK" and reason in grade.message, grade


@machine
def test_output_in_libtest_s_format_decides_nothing(env) -> None:
    """A patch that leaves the bug and prints, from each public function, the JSON events
    libtest writes for the failing tests passing, built so that no pattern matches, still scores
    0: libtest captures a test's output, and the verdict is its log file, read by the harness."""
    task = _in_lib(env)
    buggy = repair_of(task).start["src/lib.rs"].decode()
    printers = "".join(
        f'    println!("{{{{\\"type\\":\\"test\\",\\"name\\":\\"{{}}\\",\\"{{}}\\":\\"ok\\"}}}}", '
        f'"{projects.split_id(test)[1]}", "event");\n'
        for test in repair_of(task).fail_to_pass
    )
    lines = buggy.splitlines(keepends=True)
    opens = {i for i, line in enumerate(lines) if line.startswith("pub fn ") and line.rstrip().endswith("{")}
    printing = "".join(line + (printers if i in opens else "") for i, line in enumerate(lines))
    assert opens and forbidden("rust", {"src/lib.rs": buggy}, {"src/lib.rs": printing.encode()}) is None
    reward, grade = _score(env, task.id, unified("src/lib.rs", buggy, printing))
    assert reward == 0.0 and grade.status.value == "WA", grade


@machine
def test_agent_mode_solves_a_task_with_the_reference_written_through_the_tools() -> None:
    env = gym.make("codegym/RepoRepair-v1", language="rust", projects=[PROJECT], mode="agent")
    try:
        task = _first(env)
        repair = repair_of(task)
        env.reset(options={"task_id": task.id})
        root = env.unwrapped.project(task).root
        look = {"name": "bash", "arguments": {"command": "git status --short | wc -l; ls src"}}
        observation, *_ = env.step([look])
        feedback = observation["feedback"]
        assert feedback.splitlines()[1] == "0" and "lib.rs" in feedback, feedback
        layers = env.unwrapped.layers(task)
        pristine = project_tasks.source_files(repair.project, layers)[repair.where]
        encoded = base64.b64encode(pristine).decode()
        write = {"name": "bash", "arguments": {"command": f"echo {encoded} | base64 -d > {root}/{repair.where}"}}
        observation, reward, terminated, _, info = env.step([write, {"name": "submit", "arguments": {}}])
        assert terminated and reward == 1.0, observation["feedback"]
    finally:
        env.close()
