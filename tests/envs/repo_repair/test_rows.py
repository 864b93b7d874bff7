"""Rows in SWE-bench Multilingual's and Multi-SWE-bench's layouts over a local git repository
(a small Go module written here, with a bug, then a fix commit that adds a test): the gold
patch scores 1, an empty or a wrong fix 0, and the agent's tree is the base commit without
history, the fix or the new test."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
from codegym.envs.repo_repair.project_env import ProjectRepairEnv, repair_of
from codegym.envs.repo_repair.rows import load_rows, read_rows

from codegym.error import TaskFormatError
from codegym.executor.rootbox import available

CALC = """package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
\treturn a + b
}

// Clamp keeps x within [lo, hi].
func Clamp(x, lo, hi int) int {
\tif x < lo {
\t\treturn lo
\t}
\tif x > hi {
\t\treturn lo
\t}
\treturn x
}
"""
TESTS = """package calc

import "testing"

func TestAdd(t *testing.T) {
\tif Add(2, 3) != 5 {
\t\tt.Fatal("2 + 3")
\t}
}
"""
NEW_TEST = """
func TestClampHigh(t *testing.T) {
\tif got := Clamp(9, 0, 5); got != 5 {
\t\tt.Fatalf("Clamp(9, 0, 5) = %d", got)
\t}
}
"""


def _git(folder: Path, *args: str) -> str:
    command = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@localhost", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """``repos/acme__calc``: the base commit (the bug), then the fix with its test."""
    repos = tmp_path_factory.mktemp("repos")
    folder = repos / "acme__calc"
    folder.mkdir()
    _git(folder, "init", "-q")
    (folder / "go.mod").write_text("module example.com/calc\n\ngo 1.19\n")
    (folder / "calc.go").write_text(CALC)
    (folder / "calc_test.go").write_text(TESTS)
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "calc")
    base = _git(folder, "rev-parse", "HEAD").strip()
    (folder / "calc.go").write_text(CALC.replace("\t\treturn lo\n\t}\n\treturn x", "\t\treturn hi\n\t}\n\treturn x"))
    (folder / "calc_test.go").write_text(TESTS + NEW_TEST)
    _git(folder, "commit", "-q", "-am", "clamp the high end")
    parts = {
        "base": base,
        "patch": _git(folder, "diff", base, "HEAD", "--", "calc.go"),
        "test_patch": _git(folder, "diff", base, "HEAD", "--", "calc_test.go"),
    }
    return repos, parts


def _swe_bench_row(parts: dict[str, str]) -> dict[str, object]:
    return {
        "repo": "acme/calc", "instance_id": "acme__calc-7", "base_commit": parts["base"], "patch": parts["patch"],
        "test_patch": parts["test_patch"], "problem_statement": "Clamp returns lo for values above hi.",
        "hints_text": "", "created_at": "2026-01-01T00:00:00Z", "version": "0.1", "eval_type": "pass_and_fail",
        "image": "", "log_parser": "", "eval_script": "",
        "FAIL_TO_PASS": ["TestClampHigh"], "PASS_TO_PASS": ["TestAdd"],
    }  # fmt: skip


def _multi_row(parts: dict[str, str]) -> dict[str, object]:
    outcome = {"run": "NONE", "test": "FAIL", "fix": "PASS"}
    return {
        "org": "acme", "repo": "calc", "number": 7, "state": "closed", "title": "Clamp above hi",
        "body": "Clamp returns lo for values above hi.", "base": {"label": "acme:main", "ref": "main", "sha": parts["base"]},
        "resolved_issues": [{"number": 6, "title": "Clamp is wrong", "body": "Clamp(9, 0, 5) gives 0."}],
        "fix_patch": parts["patch"], "test_patch": parts["test_patch"],
        "fixed_tests": {"TestClampHigh": outcome}, "p2p_tests": {"TestAdd": {"run": "PASS", "test": "PASS", "fix": "PASS"}},
        "f2p_tests": {"TestClampHigh": outcome}, "s2p_tests": {}, "n2p_tests": {},
        "instance_id": "acme__calc-7",
    }  # fmt: skip


def _polybench_file(path: Path, parts: dict[str, str]) -> Path:
    """SWE-PolyBench's layout: a CSV file with a header line, the test lists as JSON text."""
    row = {
        "instance_id": "acme__calc-7", "patch": parts["patch"], "repo": "acme/calc", "base_commit": parts["base"],
        "problem_statement": "Clamp returns lo for values above hi.\nSee, \"Clamp(9, 0, 5)\".",
        "test_patch": parts["test_patch"], "language": "Go", "Dockerfile": "FROM golang:1.19\nWORKDIR /testbed\n",
        "test_command": "go test -v ./...", "task_category": "Bug Fix", "is_no_nodes": "False",
        "is_func_only": "True", "is_class_only": "False", "is_mixed": "False", "num_func_changes": "1",
        "num_class_changes": "0", "num_nodes": "1", "is_single_func": "True", "is_single_class": "False",
        "modified_nodes": '["calc.go->function_declaration:Clamp"]',
        "F2P": '["TestClampHigh"]', "P2P": '["TestAdd"]',
    }  # fmt: skip
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    return path


def test_every_layout_reads_the_same_row(tmp_path: Path, repos) -> None:
    _, parts = repos
    (tmp_path / "multilingual.jsonl").write_text(json.dumps(_swe_bench_row(parts)) + "\n")
    (tmp_path / "multi.jsonl").write_text(json.dumps(_multi_row(parts)) + "\n")
    (one,) = read_rows(tmp_path / "multilingual.jsonl")
    (other,) = read_rows(tmp_path / "multi.jsonl")
    (third,) = read_rows(_polybench_file(tmp_path / "test.csv", parts))
    assert (one.repo, one.base_commit, one.fail_to_pass, one.pass_to_pass) == (
        other.repo, other.base_commit, other.fail_to_pass, other.pass_to_pass)  # fmt: skip
    assert (third.repo, third.base_commit, third.fail_to_pass, third.pass_to_pass, third.language) == (
        one.repo, one.base_commit, one.fail_to_pass, one.pass_to_pass, "go")  # fmt: skip
    assert one.gold_patch == other.gold_patch == third.gold_patch and "Clamp(9, 0, 5) gives 0." in other.statement
    assert '"Clamp(9, 0, 5)"' in third.statement
    (tmp_path / "bad.jsonl").write_text('{"repo": "acme/calc"}\n')
    with pytest.raises(TaskFormatError, match="missing instance_id, base_commit, patch"):
        read_rows(tmp_path / "bad.jsonl")


def test_a_row_without_its_checkout_says_where_it_looked(tmp_path: Path, repos) -> None:
    _, parts = repos
    (tmp_path / "rows.jsonl").write_text(json.dumps(_swe_bench_row(parts)) + "\n")
    with pytest.raises(TaskFormatError, match="no checkout of acme/calc"):
        load_rows(tmp_path / "rows.jsonl", tmp_path)


@pytest.mark.skipif(available() is not None, reason=str(available()))
@pytest.mark.parametrize("layout", ["swe-bench-multilingual", "multi-swe-bench", "swe-polybench"])
def test_rows_grade_the_gold_patch_one_and_wrong_fixes_zero(tmp_path: Path, repos, layout: str) -> None:
    folder, parts = repos
    if layout == "swe-polybench":
        rows = _polybench_file(tmp_path / "test.csv", parts)
    else:
        row = _swe_bench_row(parts) if layout == "swe-bench-multilingual" else _multi_row(parts)
        rows = tmp_path / "rows.jsonl"
        rows.write_text(json.dumps(row) + "\n")
    env = ProjectRepairEnv(load_rows(rows, folder), language="go")
    try:
        task = next(iter(env.tasks))
        visible = env.visible_tree(task)
        assert "TestClampHigh" not in visible["calc_test.go"].decode() and "return lo\n\t}\n\treturn x" in visible[
            "calc.go"].decode()  # fmt: skip
        assert not any(path.startswith(".git") for path in visible) and repair_of(task).project.tree is not None
        scores = {}
        wrong = parts["patch"].replace("+\t\treturn hi", "+\t\treturn x")
        for name, diff in (("gold", task.reference), ("empty", ""), ("wrong", wrong)):
            env.reset(options={"task_id": task.id})
            _, reward, _, _, info = env.step(diff)
            scores[name] = (reward, info["grade"].status.value)
        assert scores == {"gold": (1.0, "OK"), "empty": (0.0, "WA"), "wrong": (0.0, "WA")}, scores
    finally:
        env.close()


def test_the_layouts_odd_corners_read(tmp_path: Path, repos) -> None:
    """SWE-bench's test lists as JSON text, a JSON list file instead of lines, a Multi-SWE-bench
    row without its instance_id (made from org, repo and number) and its language's own name."""
    _, parts = repos
    text_lists = {**_swe_bench_row(parts), "FAIL_TO_PASS": '["TestClampHigh"]', "PASS_TO_PASS": "[]"}
    multi = {**_multi_row(parts), "language": "Golang"}
    del multi["instance_id"]
    (tmp_path / "rows.json").write_text(json.dumps([text_lists, multi]))
    first, second = read_rows(tmp_path / "rows.json")
    assert first.fail_to_pass == ("TestClampHigh",) and first.pass_to_pass == ()
    assert second.instance_id == "acme__calc-7" and second.language == "go" and second.repo == "acme/calc"
