"""A task that cannot be graded costs its own submissions only: IE with the reason, everywhere.

The broken tasks are real: a VerilogEval-layout folder whose testbench reports a timeout
and whose reference does not compile (the failures seen with public VerilogEval files), and
a Python task whose reference fails its tests (calibration cannot time it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from codegym.envs.python_function.tasks import load_tasks

import codegym
from codegym import ReferenceTimeLimits, Scorer, Status
from codegym.error import InvalidTask
from codegym.executor.local import LocalExecutor
from codegym.task import TaskSet, read_quarantine

VERILOG = "codegym/Verilog-v1"
EVAL = Path(__file__).parents[1] / "envs" / "verilog" / "verilog_eval"
AND4, COUNT, SEL, UNBOUND = (f"verilog-eval/{name}" for name in ("Prob001_and4", "Prob002_count_en", "Prob003_sel",
                                                                  "Prob004_unbound"))  # fmt: skip
WRONG_AND4 = "module TopModule(input [3:0] x, output y);\n  assign y = |x;\nendmodule\n"


@pytest.fixture(scope="module")
def broken_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three problems, the counter's testbench timing out at once, and a fourth problem
    whose reference names a wire it never declares (iverilog refuses it)."""
    folder = tmp_path_factory.mktemp("verilog_eval")
    for path in EVAL.iterdir():
        shutil.copy(path, folder / path.name)
    bench = folder / "Prob002_count_en_test.sv"
    bench.write_text(bench.read_text().replace("#1000000", "#20"))
    for suffix in ("prompt.txt", "test.sv"):
        shutil.copy(EVAL / f"Prob001_and4_{suffix}", folder / f"Prob004_unbound_{suffix}")
    (folder / "Prob004_unbound_ref.sv").write_text(
        "module RefModule(input [3:0] x, output y);\n  assign y = &x & missing;\nendmodule\n"
    )
    return folder


def references(env_id: str, **kwargs: Any) -> list[tuple[str, str]]:
    core = gym.make(env_id, **kwargs).unwrapped
    return [(task.id, task.reference or "") for task in core.tasks]  # type: ignore[attr-defined]


def test_a_batch_with_broken_tasks_grades_every_submission(broken_eval: Path, executor: LocalExecutor) -> None:
    submissions = [*references(VERILOG, tasks=str(broken_eval), executor=executor), (AND4, WRONG_AND4)]
    grades = codegym.score(VERILOG, submissions * 2, tasks=str(broken_eval), executor=executor, lint="never")
    statuses = [(task_id, grade.status) for (task_id, _), grade in zip(submissions * 2, grades, strict=True)]
    expected = [(AND4, Status.OK), (COUNT, Status.IE), (SEL, Status.OK), (UNBOUND, Status.IE), (AND4, Status.WA)]
    assert statuses == expected * 2
    by_task = dict(zip([t for t, _ in submissions * 2], grades, strict=True))
    assert "TIMEOUT" in by_task[COUNT].message or "timeout" in by_task[COUNT].message
    assert "missing" in by_task[UNBOUND].message and "not the submission's fault" in by_task[UNBOUND].message


def test_score_groups_and_futures_keep_going(broken_eval: Path, executor: LocalExecutor) -> None:
    with Scorer(VERILOG, tasks=str(broken_eval), executor=executor, lint="never") as scorer:
        groups = scorer.score_groups([(COUNT, [WRONG_AND4] * 3), (AND4, [WRONG_AND4, WRONG_AND4])])
        assert [[g.status for g in group] for group in groups] == [[Status.IE] * 3, [Status.WA] * 2]
        assert set(scorer.env.invalid_tasks) == {COUNT, UNBOUND}  # (the loader found UNBOUND out)


def test_env_step_flags_the_broken_task(broken_eval: Path, executor: LocalExecutor) -> None:
    env = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, lint="never")
    env.reset(options={"task_id": UNBOUND})
    observation, reward, terminated, truncated, info = env.step(WRONG_AND4)
    assert (reward, terminated, truncated, info["status"]) == (0.0, True, False, "IE")
    assert "missing" in info["task_error"] and "infra_error" not in info
    assert "cannot be graded" in observation["feedback"]
    env.reset(options={"task_id": AND4})
    assert env.step(WRONG_AND4)[1] == 0.0 and env.unwrapped.last_grade.status is Status.WA  # type: ignore[attr-defined]
    refine = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, lint="never", mode="refine")
    refine.reset(options={"task_id": COUNT})  # (no attempt can pass: the episode ends, truncated)
    assert refine.step(WRONG_AND4)[1:4] == (0.0, False, True)
    strict = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, lint="never", on_task_error="raise")
    strict.reset(options={"task_id": UNBOUND})
    with pytest.raises(InvalidTask, match="missing"):
        strict.step(WRONG_AND4)


def test_a_python_task_whose_reference_fails_cannot_be_calibrated(executor: LocalExecutor) -> None:
    tasks = list(load_tasks("humaneval"))[:3]
    broken = replace(tasks[1], reference=f"def {tasks[1].metadata['entry_point']}(*args):\n    return None\n")
    task_set = TaskSet([tasks[0], broken, tasks[2]], name="three")
    answers = [(t.id, t.reference or "") for t in tasks]
    grades = codegym.score(
        "codegym/PythonFunction-v0", answers, tasks=task_set, executor=executor, time_limits=ReferenceTimeLimits()
    )
    assert [g.status for g in grades] == [Status.OK, Status.IE, Status.OK]
    assert "reference scored WA" in grades[1].message


def test_a_grader_error_on_one_submission_is_ie_for_that_submission_only(executor: LocalExecutor) -> None:
    env = gym.make("codegym/PythonFunction-v0", tasks="humaneval", executor=executor).unwrapped
    right = env.tasks.get("HumanEval/2").reference  # type: ignore[attr-defined]
    original = env.grade  # type: ignore[attr-defined]

    def grade(task: Any, code: str, result: Any) -> Any:
        if "odd" in code:
            raise KeyError("a field the grader expected")
        return original(task, code, result)

    env.grade = grade  # type: ignore[attr-defined]
    with Scorer(env, dedupe=False) as scorer:
        grades = scorer.score([("HumanEval/2", right + "\n# odd\n"), ("HumanEval/2", right)])
    assert [g.status for g in grades] == [Status.IE, Status.OK]
    assert "KeyError" in grades[0].message and env.invalid_tasks == {}  # type: ignore[attr-defined]


def test_validate_names_exactly_the_broken_tasks(broken_eval: Path, executor: LocalExecutor, tmp_path: Path) -> None:
    report = codegym.validate(VERILOG, tasks=str(broken_eval), executor=executor, runs=2, lint="never")
    assert report.counts() == {"valid": 2, "invalid": 2, "flaky": 0}
    assert set(report.quarantined) == {COUNT, UNBOUND}
    assert "timeout" in report.quarantined[COUNT].lower() and "missing" in report.quarantined[UNBOUND]
    path = report.write_quarantine(tmp_path / "quarantine.json")
    assert json.loads(path.read_text())["counts"] == {"valid": 2, "invalid": 2, "flaky": 0}
    assert set(read_quarantine(path)) == {COUNT, UNBOUND}
    env = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, quarantine=path).unwrapped
    assert env.tasks.ids == (AND4, SEL)  # type: ignore[attr-defined]
    on_load = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, validate=True, lint="never").unwrapped
    assert on_load.tasks.ids == (AND4, SEL)  # type: ignore[attr-defined]


def test_the_cli_validates_and_writes_the_quarantine(broken_eval: Path, tmp_path: Path, capsys) -> None:
    from codegym.cli import main

    out = tmp_path / "q.json"
    assert main(["validate", VERILOG, "--tasks", str(broken_eval), "--runs", "1", "--quarantine", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "4 tasks, 2 valid, 2 invalid, 0 flaky" in printed and COUNT in printed and UNBOUND in printed
    assert set(read_quarantine(out)) == {COUNT, UNBOUND}


def test_a_quarantine_may_be_a_list_of_ids(tmp_path: Path) -> None:
    listing = tmp_path / "ids.txt"
    listing.write_text("# left out by hand\nHumanEval/0\nHumanEval/1  # flaky here\n")
    env = gym.make("codegym/PythonFunction-v0", tasks="humaneval", quarantine=listing).unwrapped
    assert len(env.tasks) == 162 and "HumanEval/0" not in env.tasks  # type: ignore[attr-defined]
    assert (
        len(gym.make("codegym/PythonFunction-v0", tasks="humaneval", quarantine=["HumanEval/5"]).unwrapped.tasks) == 163
    )  # type: ignore[attr-defined]
    (tmp_path / "bad.json").write_text('{"something": 1}')
    with pytest.raises(codegym.error.TaskFormatError, match="not a quarantine file"):
        gym.make("codegym/PythonFunction-v0", tasks="humaneval", quarantine=tmp_path / "bad.json")


def test_trainer_adapters_leave_the_broken_task_out(broken_eval: Path, executor: LocalExecutor) -> None:
    from codegym.integrations.trl import reward_functions
    from codegym.integrations.verl import compute_score_batch

    env = gym.make(VERILOG, tasks=str(broken_eval), executor=executor, lint="never")
    right = dict(references(VERILOG, tasks=str(broken_eval), executor=executor))
    ids = [AND4, COUNT, SEL, UNBOUND, AND4]
    completions = [right[AND4], right[COUNT], right[SEL], right[UNBOUND], WRONG_AND4]
    correct, compile_term = reward_functions(env, components=("correct", "compile"))
    assert correct(completions, task_id=ids) == [1.0, None, 1.0, None, 0.0]  # None: TRL leaves it out of the mean
    assert compile_term(completions, task_id=ids) == [0.0, None, 0.0, None, 0.0]
    extra = {"env_kwargs": json.dumps({"tasks": str(broken_eval), "lint": "never"})}
    scores = compute_score_batch([VERILOG] * 5, completions, ids, [extra] * 5)
    assert scores == [1.0, 0.0, 1.0, 0.0, 0.0]  # verl cannot leave one out: the group gets no advantage


def test_leaving_with_jobs_in_flight_prints_nothing_from_the_workers(broken_eval: Path) -> None:
    """The batch raises (``on_task_error="raise"``) while most of its jobs still run, and the
    interpreter exits: the workers go quietly (no "connection closed", no "Broken pipe")."""
    script = f"""
import gymnasium as gym, codegym
folder = {str(broken_eval)!r}
pairs = [(t.id, t.reference) for t in gym.make("codegym/Verilog-v1", tasks=folder).unwrapped.tasks] * 30
try:
    codegym.score("codegym/Verilog-v1", pairs, tasks=folder, on_task_error="raise", lint="never")
except codegym.error.InvalidTask as e:
    print("raised:", e)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "raised: its testbench reports a timeout" in done.stdout, done.stderr
    markers = ("connection closed", "Broken pipe", "Traceback", "Exception ignored", "died")
    assert not [line for line in done.stderr.splitlines() if any(m in line for m in markers)], done.stderr


def test_a_python_task_whose_test_code_breaks_the_harness_is_ie(executor: LocalExecutor) -> None:
    tasks = list(load_tasks("humaneval"))[:2]
    broken = replace(tasks[0], metadata={**tasks[0].metadata, "test_prelude": "import no_such_module_here"})
    answers = [(t.id, t.reference or "") for t in tasks]
    grades = codegym.score("codegym/PythonFunction-v0", answers, tasks=TaskSet([broken, tasks[1]]), executor=executor)
    assert [g.status for g in grades] == [Status.IE, Status.OK]
    assert "No module named 'no_such_module_here'" in grades[0].message


def test_a_checker_that_fails_on_one_output_costs_that_submission_only(executor: LocalExecutor) -> None:
    from codegym.envs.stdio_program.tasks import task_from

    checker = (
        "import sys\n"
        "got = open(sys.argv[3]).read()\n"
        "if 'boom' in got:\n"
        "    while True:\n"
        "        pass\n"
        "sys.exit(0 if got.split() == open(sys.argv[2]).read().split() else 1)\n"
    )
    record = {"task_id": "echo", "prompt": "Print the input.", "tests": [{"input": "4\n", "output": "4\n"}],
              "checker": {"kind": "program", "source": checker}, "reference": "print(input())"}  # fmt: skip
    answers = [("echo", "print(input())"), ("echo", "print('boom')"), ("echo", "print(5)"), ("echo", "print(input())")]
    with Scorer("codegym/StdioProgram-v0", tasks=TaskSet([task_from(record)]), executor=executor, dedupe=False) as s:
        grades = s.score(answers)
        assert [g.status for g in grades] == [Status.OK, Status.IE, Status.WA, Status.OK]
        assert "checker" in grades[1].message and s.env.invalid_tasks == {}


def test_a_jsonl_string_may_hold_a_raw_line_separator(tmp_path: Path) -> None:
    """JSON lets U+2028 and \\x1c stand unescaped in a string; str.splitlines would break a
    JSONL line there (and name it "not JSON")."""
    from codegym.task import json_lines

    row = {"task_id": "t/1", "prompt": "a\u2028b\x1cc"}
    text = json.dumps(row, ensure_ascii=False) + "\n" + json.dumps(row) + "\r\n"
    lines = json_lines(text)
    assert [(line.number, line.value) for line in lines] == [(1, row), (2, row)]
