"""The ``codegym`` command on bad input: a few lines naming the file, the line and the field,
exit status 2, and no traceback unless ``--debug``; and the score command's results file,
rerun policy and pass@k notes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegym.cli import main

ROOT = Path(__file__).resolve().parents[2]
CODEGYM = Path(sys.executable).with_name("codegym")  # the installed console script
RIGHT = "    return number % 1.0\n"  # HumanEval/2's body
PROMPT = 'def f(x):\n    """A task."""\n'
BROKEN = "def truncate_number(number: float) -> float:\n    return (\n"  # does not parse: CE


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed ``codegym`` command, as a user runs it."""
    command = [str(CODEGYM)] if CODEGYM.exists() else [sys.executable, "-m", "codegym.cli"]
    environment = {k: v for k, v in os.environ.items() if k != "CODEGYM_DEBUG"} | (env or {})
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=environment,
                          check=False)  # fmt: skip


def write_lines(path: Path, *lines: object) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_a_missing_samples_file_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    done = cli("score", "nope.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        'codegym score: error: nope.jsonl: no such file; expected a JSONL file of samples, one per line: {"task_id": '
        '..., "completion": "<code>"} (or the code under solution, code, answer, response)'
    ]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_line_that_is_not_json_is_named_with_its_text(tmp_path: Path) -> None:
    write_lines(tmp_path / "samples.jsonl", {"task_id": "HumanEval/2", "completion": RIGHT}, "{'task_id': 2}")
    done = cli("score", "samples.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "samples.jsonl: 1 of 2 lines cannot be graded; nothing was graded" in done.stderr
    assert "line 2: not JSON (Expecting property name enclosed in double quotes at column 2): \"{'task_id': 2}\"" in (
        done.stderr
    )
    assert not (tmp_path / "samples_results.jsonl").exists()


def test_a_sample_without_its_code_names_the_fields_a_line_may_use(tmp_path: Path) -> None:
    write_lines(tmp_path / "samples.jsonl", {"task_id": "HumanEval/2", "text": RIGHT})
    done = cli("score", "samples.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "KeyError" not in done.stderr
    assert (
        "line 1: missing the code: a sample holds it in one of the fields completion, solution, code, answer, "
        "response; this line has ['task_id', 'text']" in done.stderr
    )


def test_an_unknown_env_id_names_the_nearest_registered_one(tmp_path: Path) -> None:
    done = cli("validate", "codegym/PythonFuncton-v0", "--tasks", "humaneval", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "NameNotFound" not in done.stderr
    assert "unknown env 'codegym/PythonFuncton-v0': did you mean codegym/PythonFunction-v0?" in done.stderr
    assert "registered: codegym/ChartFromImage-v1, codegym/Dafny-v1, codegym/HTMLFromScreenshot-v0" in done.stderr


def test_a_bad_task_file_through_the_cli_names_its_line_and_field(tmp_path: Path) -> None:
    write_lines(tmp_path / "tasks.jsonl", {"task_id": "Mine/0", "prompt": 5, "test": "def check(c):\n    pass\n"})
    done = cli("validate", "codegym/PythonFunction-v0", "--tasks", "tasks.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        done.stderr.strip() == "codegym validate: error: tasks.jsonl:1: field 'prompt' must be a string, got number 5"
    )


@pytest.mark.parametrize("debug", [["--debug"], ["score", "--debug"], "CODEGYM_DEBUG"])
def test_debug_shows_the_traceback(tmp_path: Path, debug: list[str] | str) -> None:
    if isinstance(debug, str):
        done = cli("score", "nope.jsonl", cwd=tmp_path, env={debug: "1"})
    else:
        done = cli(*debug, *(["score"] if debug == ["--debug"] else []), "nope.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert "codegym.error.UsageError: nope.jsonl: no such file" in done.stderr


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Two good samples around three bad lines: not JSON, an unknown task id, no code."""
    return write_lines(
        tmp_path / "mixed.jsonl",
        {"task_id": "HumanEval/2", "completion": RIGHT},
        "not json",
        {"task_id": "HumanEval/999", "completion": RIGHT},
        {"task_id": "HumanEval/2"},
        "",
        {"task_id": "HumanEval/2", "solution": BROKEN},
    )


def test_score_lists_every_bad_line_and_grades_nothing(mixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(mixed)]) == 2
    err = capsys.readouterr().err
    assert f"{mixed}: 3 of 5 lines cannot be graded; nothing was graded:" in err
    assert "  line 2: not JSON (Expecting value at column 1): 'not json'" in err
    assert "  line 3: task 'HumanEval/999' is not in task set 'humaneval'" in err
    assert "  line 4: missing the code" in err
    assert "pass --skip-bad to grade the others" in err and "Traceback" not in err
    assert not mixed.with_name("mixed_results.jsonl").exists()


def test_skip_bad_grades_the_rest_and_records_the_skipped_lines(mixed: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["score", str(mixed), "--skip-bad", "-k", "1,10"]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in mixed.with_name("mixed_results.jsonl").read_text().splitlines()]
    assert [(r["line"], r["graded"], r["status"]) for r in rows] == [
        (1, True, "OK"),
        (2, False, None),
        (3, False, None),
        (4, False, None),
        (6, True, "CE"),
    ]
    assert rows[1]["text"] == "not json" and rows[1]["error"].startswith("not JSON")
    assert "'HumanEval/999' is not in task set 'humaneval'" in rows[2]["error"]
    assert rows[2]["task_id"] == "HumanEval/999" and "missing the code" in rows[3]["error"]
    assert "skipped 3 line(s) that cannot be graded (graded: false in the results): lines 2-4" in out
    assert "scored 2 samples of 1 tasks" in out and "pass@1: 0.5000" in out


def test_results_hold_the_message_diagnostics_and_failing_tests(mixed: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["score", str(mixed), "--skip-bad"]) == 0
    rows = [json.loads(line) for line in mixed.with_name("mixed_results.jsonl").read_text().splitlines()]
    right, broken = rows[0], rows[-1]
    assert right["message"] == "all 3 tests passed" and right["diagnostics"] == [] and right["failed_tests"] == []
    assert broken["status"] == "CE" and broken["message"]
    first = broken["diagnostics"][0]
    assert first["severity"] == "error" and first["line"] >= 2 and first["message"]
    assert broken["solution"] == BROKEN  # (the sample's own fields are kept)


def test_a_rerun_refuses_to_replace_the_results_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    samples = write_lines(tmp_path / "s.jsonl", {"task_id": "HumanEval/2", "completion": RIGHT})
    results = tmp_path / "s_results.jsonl"
    assert main(["score", str(samples), "-k", "1"]) == 0
    results.write_text("an earlier run's results\n")
    assert main(["score", str(samples), "-k", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{results} exists (an earlier run's results); pass --force to replace it, or --out FILE" in err
    assert results.read_text() == "an earlier run's results\n"
    assert main(["score", str(samples), "-k", "1", "--force"]) == 0
    assert json.loads(results.read_text())["status"] == "OK"
    assert "(replaced the file that was there)" in capsys.readouterr().out
    named = tmp_path / "named.jsonl"
    named.write_text("old\n")
    assert main(["score", str(samples), "-k", "1", "--out", str(named)]) == 0  # a file named with --out is replaced
    assert json.loads(named.read_text())["status"] == "OK"


def test_pass_at_k_says_why_it_is_not_computed(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    samples = write_lines(tmp_path / "s.jsonl", *[{"task_id": "HumanEval/2", "completion": RIGHT}] * 3,
                          {"task_id": "HumanEval/3", "completion": "    return False\n"})  # fmt: skip
    assert main(["score", str(samples), "-k", "1,3,10"]) == 0
    out = capsys.readouterr().out
    assert "pass@1: " in out
    assert "pass@3, pass@10: not computed: each needs k samples of every task; the fewest a task has is 1" in out


@pytest.mark.parametrize("k", ["0", "1,0", "ten", ""])
def test_k_must_be_positive_integers(k: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", str(tmp_path / "s.jsonl"), "-k", k])
    assert exited.value.code == 2
    assert "argument -k: expected comma-separated positive integers such as 1,10,100" in capsys.readouterr().err


def test_score_arguments_have_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert 'a JSONL file, one sample per line: {"task_id": ..., "completion": "<code>"}' in text
    assert "the registered env that grades the samples (default: codegym/PythonFunction-v0" in text
    assert "--skip-bad" in text and "--force" in text


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ([1, 2], "expected a JSON object"),
        ({"completion": RIGHT}, "missing field 'task_id'"),
        (
            {"task_id": ["HumanEval/2"], "completion": RIGHT},
            "field 'task_id' must be a string or an integer, got array",
        ),
        ({"task_id": "HumanEval/2", "completion": 7}, "field 'completion' must be a string (the code), got number 7"),
    ],
)
def test_each_kind_of_bad_sample_is_named(line: object, error: str, tmp_path: Path, capsys) -> None:
    samples = write_lines(tmp_path / "s.jsonl", line)
    assert main(["score", str(samples)]) == 2
    err = capsys.readouterr().err
    assert f"line 1: {error}" in err and "Traceback" not in err


def test_an_empty_samples_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.jsonl").write_text("\n\n")
    assert main(["score", str(tmp_path / "s.jsonl")]) == 2
    assert "s.jsonl: the file is empty; expected a JSONL file of samples" in capsys.readouterr().err


def test_validate_names_the_failing_test_and_labels_its_progress(tmp_path: Path, capsys) -> None:
    rows = [
        {"task_id": "Mine/0", "prompt": PROMPT, "canonical_solution": "    return x + 1\n",
         "test": "def check(candidate):\n    assert candidate(1) == 2\n", "entry_point": "f"},
        {"task_id": "Mine/1", "prompt": PROMPT, "canonical_solution": "    return x * 2\n",
         "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 5\n",
         "entry_point": "f"},
    ]  # fmt: skip
    tasks = write_lines(tmp_path / "tasks.jsonl", *rows)
    assert main(["validate", "codegym/PythonFunction-v0", "--tasks", str(tasks), "--runs", "1"]) == 1
    captured = capsys.readouterr()
    invalid = next(line for line in captured.out.splitlines() if "Mine/1" in line)
    assert "the reference fails its own tests (WA)" in invalid and "failing test_01" in invalid
    assert "validating" in captured.err and "scoring" not in captured.err


def test_validate_passes_options_to_the_env(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundled = ROOT / "envs" / "dafny" / "data" / "codegym-dafny"
    for name in ("sum-array.dfy", "sum-array.spec.json"):
        (tmp_path / name).write_text((bundled / name).read_text())
    argv = ["validate", "codegym/Dafny-v1", "--tasks", str(tmp_path), "--runs", "1", "--option", "task_kind=spec"]
    assert main(argv) == 0
    assert "1 valid" in capsys.readouterr().out


def test_the_docs_table_is_what_the_commands_print() -> None:
    spec = importlib.util.spec_from_file_location("cli_errors", ROOT / "scripts" / "cli_errors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "cli.md").read_text()
    assert module.table() in page, "docs/cli.md's error table is stale: run python scripts/cli_errors.py"


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["doctor", "--isolation", "bogus"], "argument --isolation: invalid choice: 'bogus'"),
        (["validate", "codegym/PythonFunction-v0", "--runs", "0"], "argument --runs: expected a positive integer"),
        (["score", "s.jsonl", "--executor", "bogus"], "argument --executor: invalid choice: 'bogus'"),
        (["score", "s.jsonl", "--env", "no_such_lab:lab/X-v0"], "cannot import 'no_such_lab'"),
        (["score", "s.jsonl", "--env", "json:lab/X-v0"], "importing 'json' registered no env 'lab/X-v0'"),
        (["validate", "codegym/Dafny-v1", "--option", "task_kind"], "argument --option: expected KEY=VALUE"),
    ],
)
def test_bad_arguments_are_usage_errors(argv: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and error in capsys.readouterr().err


def test_repo_commands_report_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repo", "build", "nope"]) == 2
    assert "codegym repo: error: unknown library 'nope': use one of [" in capsys.readouterr().err
    assert main(["repo", "validate", "--tasks", str(tmp_path / "nope.json")]) == 2
    assert f"codegym repo: error: {tmp_path / 'nope.json'}: no such file" in capsys.readouterr().err
