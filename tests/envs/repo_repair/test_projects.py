"""Projects in other languages: their recipes, the bugs tree-sitter makes in their files, and
their trees judged in the project's machine (Debian's go-cmp, built offline after its install)."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.repo_repair import project_tasks, projects, syntax_mutations
from codegym.envs.repo_repair.projects import load_project, toolchains

from codegym.error import TaskFormatError
from codegym.executor.rootbox import available

GO = b"""package clamp

// Clamp keeps x within [lo, hi].
func Clamp(x, lo, hi int) int {
\tif x < lo {
\t\treturn lo
\t}
\tif x > hi {
\t\treturn hi
\t}
\treturn x - 0
}

var Enabled = true
"""


def test_every_bundled_recipe_loads_with_a_known_language() -> None:
    found = projects.projects()
    assert "go-cmp" in found
    for project in found.values():
        assert project.language in toolchains()
        assert project.toolchain.list and project.toolchain.run
        # (no build only where the batch's runner checks the sources itself, and says so)
        assert project.toolchain.build or "--sources" in project.toolchain.batch


def test_a_recipe_that_lacks_a_key_or_names_an_unknown_language_says_what_to_fix(tmp_path: Path) -> None:
    path = tmp_path / "thing.toml"
    path.write_text('language = "go"\npackage = "golang-thing-dev"\n')
    with pytest.raises(TaskFormatError, match="missing version, origin, root"):
        load_project(path)
    path.write_text('language = "cobol"\npackage = "x"\nversion = "1"\norigin = "/o"\nroot = "/r"\n')
    with pytest.raises(TaskFormatError, match=r"language 'cobol' has no recipe; known: .*go"):
        load_project(path)


def test_a_test_command_quotes_what_it_is_given() -> None:
    command = toolchains()["go"].run_command("pkg/sub dir::TestX;rm")
    assert "'pkg/sub dir'" in command and "pkg_sub dir" in command and "'TestX;rm'" in command
    with pytest.raises(ValueError, match="<folder>::<name>"):
        toolchains()["go"].run_command("TestX")


def test_every_kind_makes_go_bugs_that_parse() -> None:
    found = list(syntax_mutations.mutants("clamp.go", GO, "go"))
    assert {mutant.kind for mutant in found} == set(syntax_mutations.KINDS)
    assert all(syntax_mutations.parses("go", mutant.text) and mutant.text != GO for mutant in found)
    texts = {mutant.kind: [m.text.decode() for m in found if m.kind == mutant.kind] for mutant in found}
    assert any("if x >= lo {" in text for text in texts["flip_operator"])
    assert any("var Enabled = false" in text for text in texts["change_constant"])
    assert any("if !(x < lo) {" in text for text in texts["negate_condition"])
    assert any("return 0 - x" in text for text in texts["swap_operands"])


def test_a_bug_is_found_again_by_its_address_and_a_broken_file_offers_none() -> None:
    first = next(syntax_mutations.mutants("clamp.go", GO, "go", ("change_constant",)))
    again = syntax_mutations.mutant("clamp.go", GO, "go", first.kind, first.index)
    assert again == first
    assert syntax_mutations.mutant("clamp.go", GO, "go", "change_constant", 999) is None
    assert list(syntax_mutations.mutants("broken.go", b"package x\nfunc (", "go")) == []


machine = pytest.mark.skipif(available() is not None, reason=str(available()))
# (a module's first test builds its project's machine, from nothing on a clean machine: minutes)
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def go_cmp() -> tuple[projects.Project, tuple[str, ...]]:
    project = projects.projects()["go-cmp"]
    return project, projects.machine_layers(project)


@machine
def test_a_project_s_bug_breaks_its_tests_and_the_pristine_file_mends_them(go_cmp) -> None:
    project, layers = go_cmp
    ref = project_tasks.reference(project, layers, runs=1)
    assert len(ref.tests) >= 15 and ref.failing == ()
    drawn = next(project_tasks.draw_tasks(project, layers, ref, count=1, runs=1, seed=3))
    assert drawn.fail_to_pass and drawn.pass_to_pass
    sources = project_tasks.source_files(project, layers)
    buggy = syntax_mutations.mutant(drawn.path, sources[drawn.path], "go", drawn.kind, drawn.index)
    assert buggy is not None
    broken = project_tasks.judge(project, layers, {drawn.path: buggy.text}, drawn.fail_to_pass)
    assert broken.built and not any(broken.passed.values())
    mended = project_tasks.judge(project, layers, {drawn.path: sources[drawn.path]}, drawn.fail_to_pass)
    assert all(mended.passed.values())


@machine
def test_a_tree_that_does_not_build_fails_every_test(go_cmp) -> None:
    """The machine holds the pristine tree's test binaries: a failed build must not let them judge."""
    project, layers = go_cmp
    path = "cmp/compare.go"
    source = project_tasks.source_files(project, layers)[path]
    run = project_tasks.judge(project, layers, {path: source + b"\nfunc broken( {\n"}, ("cmp::TestDiff",))
    assert not run.built and run.passed == {"cmp::TestDiff": False}
    assert "compare.go" in run.build_output
    # (an error among the imports hides the package from `go list`: its build must still fail)
    package, rest = source.split(b"\n", 1)
    run = project_tasks.judge(project, layers, {path: package + b"\nfunc (\n" + rest}, ("cmp::TestDiff",))
    assert not run.built and run.passed == {"cmp::TestDiff": False}


C = b"""#include <stdbool.h>

/* clamp keeps x within [lo, hi]. */
int clamp(int x, int lo, int hi) {
    if (x < lo)
        return lo;
    while (x > hi)
        x = hi;
    return x - 0;
}

bool enabled = true;
"""


def test_every_kind_makes_c_bugs_that_parse() -> None:
    found = list(syntax_mutations.mutants("clamp.c", C, "c"))
    assert {mutant.kind for mutant in found} == set(syntax_mutations.KINDS)
    assert all(syntax_mutations.parses("c", mutant.text) for mutant in found)
    texts = [mutant.text.decode() for mutant in found]
    assert any("if (x >= lo)" in text for text in texts) and any("if (!(x < lo))" in text for text in texts)
    assert any("while (!(x > hi))" in text for text in texts) and any("bool enabled = false;" in text for text in texts)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("    exit(0);", "ends the process"),
        ("__attribute__((constructor)) static void early(void) {}", "before or after main"),
        ("    atexit(report);", "before or after main"),
        ('    system("true");', "other programs"),
        ('    char *home = getenv("HOME");', "environment"),
        ("    longjmp(env, 1);", "bypasses the test"),
        ('    __asm__("nop");', "assembly"),
    ],
)
def test_c_fixes_that_reach_for_the_process_are_refused(line: str, reason: str) -> None:
    from codegym.envs.repo_repair.project_env import forbidden

    before = {"src/a.c": C.decode()}
    found = forbidden("c", before, {"src/a.c": (C.decode() + line + "\n").encode()})
    assert found is not None and reason in found, found
    assert forbidden("c", before, {"src/a.c": (C.decode() + "int twice(int x) { return 2 * x; }\n").encode()}) is None


FORGER = b"""package cmp

import (
\t"fmt"
\t"os"
\t"strings"
\t"testing"
)

// TestMain lists as usual, and otherwise prints the runner's lines for TestDiff and leaves.
func TestMain(m *testing.M) {
\tfor _, arg := range os.Args {
\t\tif strings.HasPrefix(arg, "-test.list") {
\t\t\tos.Exit(m.Run())
\t\t}
\t}
\tfmt.Println("=== RUN   TestDiff")
\tfmt.Println("--- PASS: TestDiff (0.00s)")
\tfmt.Println("PASS")
\tos.Exit(1)
}
"""


@machine
def test_a_batch_judges_many_tests_and_a_line_a_test_prints_is_no_verdict(go_cmp) -> None:
    """Go's batch report is read from the tests' own output: a binary that prints TestDiff's
    PASS line and exits 1 must not pass it (its passes count only when the binary exits 0;
    the test then runs alone, and fails)."""
    project, layers = go_cmp
    assert project.toolchain.batch and project.toolchain.report_from_output
    run = project_tasks.judge(project, layers, {"cmp/aaa_forge_test.go": FORGER}, ("cmp::TestDiff",))
    assert run.built and run.passed == {"cmp::TestDiff": False}
    ref = project_tasks.judge(project, layers, {})
    assert len(ref.passed) >= 15 and all(ref.passed.values())


@machine
def test_a_tree_whose_tests_cannot_be_listed_fails_them_all(go_cmp) -> None:
    """A bug (or a fix) that breaks the listing (here: a panic as the test program starts)
    fails every test, as a failed build does; it is no error of the harness's."""
    project, layers = go_cmp
    panics = b'package cmp\n\nfunc init() { panic("no tests today") }\n'
    run = project_tasks.judge(project, layers, {"cmp/zz_panic.go": panics}, ("cmp::TestDiff",))
    assert not run.built and run.passed == {"cmp::TestDiff": False} and "no tests today" in run.build_output


@machine
def test_a_test_the_tree_does_not_define_fails_and_the_listing_is_asked_only_then(go_cmp, monkeypatch) -> None:
    """The batch's report names the tests that ran: only a test it left out sends the harness
    to the tree's listing, where one the tree lacks fails (a runner asked for it may exit 0)."""
    project, layers = go_cmp
    listings: list[str] = []
    real = projects.list_tests
    monkeypatch.setattr(projects, "list_tests", lambda box, p, **kw: listings.append(p.name) or real(box, p, **kw))
    assert project_tasks.judge(project, layers, {}, ("cmp::TestDiff",)).passed == {"cmp::TestDiff": True}
    assert listings == []
    run = project_tasks.judge(project, layers, {}, ("cmp::TestDiff", "cmp::TestNoSuchThing"))
    assert run.built and run.passed == {"cmp::TestDiff": True, "cmp::TestNoSuchThing": False}
    assert listings == ["go-cmp"]


@machine
def test_runs_stop_where_told_and_a_draw_gives_up_a_tree_whose_tests_run_alone(go_cmp) -> None:
    project, layers = go_cmp
    runs = project_tasks.judge_runs(project, layers, {}, ("cmp::TestDiff",), runs=3, go_on=lambda run: False)
    assert len(runs) == 1 and runs[0].passed == {"cmp::TestDiff": True}
    # (the forger's batch exits 1: TestDiff must run alone, past a budget of no time)
    forged = {"cmp/aaa_forge_test.go": FORGER}
    with pytest.raises(project_tasks.GaveUp, match="past their budget"):
        project_tasks.judge_runs(project, layers, forged, ("cmp::TestDiff",), runs=1, budget_s=0.0)
    with pytest.raises(project_tasks.GaveUp, match="left out 1 tests"):
        project_tasks.judge_runs(project, layers, forged, ("cmp::TestDiff",), runs=1, alone_at_most=0)
    (run,) = project_tasks.judge_runs(project, layers, forged, ("cmp::TestDiff",), runs=1, alone_at_most=1)
    assert run.alone == 1 and run.passed == {"cmp::TestDiff": False}


@machine
def test_repo_build_grows_a_task_file_with_its_reference_and_new_bugs(go_cmp, tmp_path: Path, capsys) -> None:
    """``codegym repo build --project`` on an existing task file keeps its reference and its
    tasks and draws only new bugs up to ``--tasks``."""
    import json

    from codegym.cli import main

    out = tmp_path / "go-cmp.json"
    base = ["repo", "build", "--project", "go-cmp", "--runs", "1", "--seed", "3", "--out", str(out)]
    assert main([*base, "--tasks", "1"]) == 0
    first = json.loads(out.read_text())
    first["reference"] = first["reference"][::-1]  # (a mark: the grown file must keep this reference)
    out.write_text(json.dumps(first))
    assert main([*base, "--tasks", "2"]) == 0
    grown = json.loads(out.read_text())
    assert grown["reference"] == first["reference"] and len(grown["tasks"]) == 2
    assert grown["tasks"][0] == first["tasks"][0]
    address = [(task["path"], task["kind"], task["index"]) for task in grown["tasks"]]
    assert address[0] != address[1]
    assert "2 tasks of go-cmp (1 new" in capsys.readouterr().out


def test_one_batch_for_every_folder_is_a_recipe_s_choice_and_needs_a_batch_that_names_no_folder() -> None:
    """C++'s batch fails the tests a twice-hung program has not finished: those must stay in
    their folder. C's, Java's and PHP's runners fail only the test that hangs."""
    assert {name for name, chain in toolchains().items() if chain.batch_all_folders} == {"c", "java", "php"}
    entry = {"build": "true", "list": "true", "run": "true", "batch": "run {folder} {tests} {report}",
             "report": "junit", "batch_all_folders": True}  # fmt: skip
    with pytest.raises(TaskFormatError, match="batch_all_folders needs a batch that names no"):
        projects._toolchain("go", entry)


def test_files_placed_in_a_machine_stay_in_the_tree() -> None:
    project = projects.projects()["go-cmp"]
    assert project_tasks.in_tree(project, {"cmp/a.go": b"x"}) == {f"{project.root}/cmp/a.go": b"x"}
    for escape in ("../../etc/passwd", "/opt/codegym/harness.js", "cmp/../../x.go"):
        with pytest.raises(ValueError, match="outside its tree"):
            project_tasks.in_tree(project, {escape: b"x"})
