"""``codegym terminal import`` (runs here, or why not; a second import builds nothing) and
``codegym validate codegym/Terminal-v0`` over task folders written in Harbor's layout."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from codegym.cli import main
from codegym.executor.rootbox import available

from . import fixtures

needs_boxes = pytest.mark.skipif(available() is not None, reason=str(available()))

DOCKERFILE = fixtures.DOCKERFILE_APT_ONLY
FAILING_RUN = DOCKERFILE + "RUN echo 'compiling the widget' && echo 'widget.c:3: error: expected ;' >&2 && exit 3\n"
WRONG_SOLUTION = {"solve.sh": "#!/bin/bash\necho 13 > /app/answer.txt\n"}


def _stamped(root: Path, name: str) -> Path:
    """The default task with a file no earlier run copied (so its last layer is new to the store)."""
    environment = {**fixtures.ENVIRONMENT, "stamp.txt": uuid.uuid4().hex + "\n"}
    return fixtures.write_harbor_task(
        root, name, dockerfile=DOCKERFILE + "COPY stamp.txt /app/stamp.txt\n", environment=environment
    )


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A folder of tasks: two that run (Harbor, Terminal-Bench 1), one whose base cannot be
    mapped, one whose RUN fails, one whose task.toml cannot be read."""
    root = tmp_path / "tasks"
    fixtures.write_harbor_task(root, "a-sum", dockerfile=DOCKERFILE)
    fixtures.write_tb1_task(root, "b-sum-tb1", dockerfile=DOCKERFILE)
    fixtures.write_harbor_task(root, "c-alpine", dockerfile="FROM alpine:3.19\nRUN apk add python3\n")
    fixtures.write_harbor_task(root, "d-build-fails", dockerfile=FAILING_RUN)
    fixtures.write_harbor_task(root, "e-bad-toml", toml="version = [\n")
    return root


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    status = main(["terminal", "import", *args])
    return status, capsys.readouterr().out.splitlines()


def test_static_import_says_what_runs_and_why_not(mixed: Path, tmp_path: Path, capsys) -> None:
    report = tmp_path / "report.json"
    status, lines = _import(capsys, str(mixed), "--no-build", "--json", str(report))
    assert status == 1
    assert lines[0].startswith("OK  a-sum")
    assert lines[1].startswith("OK  b-sum-tb1")
    assert lines[2].startswith("NO  c-alpine: Dockerfile line 1: the base image 'alpine:3.19' cannot be mapped")
    assert lines[3].startswith("OK  d-build-fails")  # (nothing is built: its RUN is not run)
    assert lines[4].startswith("NO  e-bad-toml: ") and "task.toml" in lines[4]
    assert lines[5] == "5 tasks: 3 run here, 2 do not (static check only: nothing built)"
    document = json.loads(report.read_text())
    assert document["built"] is False and document["counts"] == {"tasks": 5, "run": 3, "do_not_run": 2}
    assert [t["task_id"] for t in document["tasks"]] == [
        "a-sum",
        "b-sum-tb1",
        "c-alpine",
        "d-build-fails",
        "e-bad-toml",
    ]
    assert all(t["built"] is False and t["environment"] is None for t in document["tasks"])


@needs_boxes
def test_import_builds_and_reports_a_failed_build_with_its_log(mixed: Path, tmp_path: Path, capsys) -> None:
    report = tmp_path / "report.json"
    status, lines = _import(capsys, str(mixed), "--json", str(report))
    assert status == 1
    assert lines[0].startswith("OK  a-sum  (")
    assert "hidden from the agent (only the tests use them): /opt/verifier-fixtures" in lines[0]
    assert lines[1].startswith("OK  b-sum-tb1")
    assert lines[2].startswith("NO  c-alpine: ")
    failed = next(i for i, line in enumerate(lines) if line.startswith("NO  d-build-fails: "))
    assert "the environment's build failed" in lines[failed]
    tail = []
    for line in lines[failed + 1 :]:
        if not line.startswith("    | "):
            break
        tail.append(line)
    assert any("widget.c:3: error: expected ;" in line for line in tail), lines
    assert lines[-1].startswith("5 tasks: 2 run here, 3 do not; layers built: ")
    tasks = {t["task_id"]: t for t in json.loads(report.read_text())["tasks"]}
    assert tasks["a-sum"]["built"] and tasks["a-sum"]["environment"]["hidden"] == ["/opt/verifier-fixtures"]
    assert all(os.path.isdir(layer) for layer in tasks["a-sum"]["environment"]["layers"])
    assert not tasks["d-build-fails"]["runs"] and "widget.c:3: error: expected ;" in tasks["d-build-fails"]["build_log"]
    assert not tasks["c-alpine"]["built"] and not tasks["e-bad-toml"]["built"]


@needs_boxes
def test_a_second_import_builds_nothing(tmp_path: Path, capsys) -> None:
    root = tmp_path / "tasks"
    _stamped(root, "stamped")
    fixtures.write_tb1_task(root, "tb1", dockerfile=DOCKERFILE)
    first_json, second_json = tmp_path / "first.json", tmp_path / "second.json"
    status, first = _import(capsys, str(root), "--json", str(first_json))
    assert status == 0, first
    built = json.loads(first_json.read_text())
    assert built["tasks"][0]["layers_built"] >= 1  # (the stamp's layer, at least, is new)
    layers = [layer for task in built["tasks"] for layer in task["environment"]["layers"]]
    times = {layer: os.stat(layer).st_mtime_ns for layer in layers}
    status, second = _import(capsys, str(root), "--json", str(second_json))
    assert status == 0, second
    again = json.loads(second_json.read_text())
    assert again["layers_built"] == 0 and [t["layers_built"] for t in again["tasks"]] == [0, 0]
    assert second[-1].startswith("2 tasks: 2 run here, 0 do not; layers built: 0, of ")
    assert [t["environment"] for t in again["tasks"]] == [t["environment"] for t in built["tasks"]]
    assert {layer: os.stat(layer).st_mtime_ns for layer in layers} == times


@needs_boxes
def test_a_mapped_base_is_noted_once(tmp_path: Path, capsys) -> None:
    dockerfile = DOCKERFILE.replace("debian:bookworm-slim", "ubuntu:22.04")
    status, lines = _import(capsys, str(fixtures.write_harbor_task(tmp_path, "ubuntu", dockerfile=dockerfile)))
    assert status == 0, lines
    assert lines[0].count("ubuntu:22.04 mapped to debian bookworm") == 1, lines[0]
    assert "Dockerfile line 1: ubuntu:22.04 mapped to debian bookworm" in lines[0]


def test_a_folder_without_tasks_is_reported_not_skipped(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    fixtures.write_harbor_task(tmp_path / "tasks", "sum", dockerfile=DOCKERFILE)
    status, lines = _import(capsys, str(tmp_path / "empty"), str(tmp_path / "tasks" / "sum"), "--no-build")
    assert status == 1
    assert lines[0].startswith("NO  empty: ") and "holds no task folder" in lines[0]
    assert lines[1].startswith("OK  sum")
    assert lines[2] == "2 tasks: 1 run here, 1 do not (static check only: nothing built)"


def test_every_task_running_exits_zero(tmp_path: Path, capsys) -> None:
    task = fixtures.write_harbor_task(tmp_path, "sum", dockerfile=DOCKERFILE)
    status, lines = _import(capsys, str(task), "--no-build")
    assert status == 0
    assert lines == ["OK  sum", "1 task: 1 run here, 0 do not (static check only: nothing built)"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/folder"], "no such file or folder: /no/such/folder"),
        (["TASKS", "--json", "/no/such/folder/report.json"], "--json /no/such/folder/report.json: no folder"),
    ],
)
def test_usage_errors_exit_two(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    fixtures.write_harbor_task(tmp_path, "sum", dockerfile=DOCKERFILE)
    args = [str(tmp_path) if a == "TASKS" else a for a in args]
    assert main(["terminal", "import", *args, "--no-build"]) == 2
    assert message in capsys.readouterr().err


def test_import_needs_a_folder(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["terminal", "import"])
    assert exited.value.code == 2
    assert "DIR" in capsys.readouterr().err


@needs_boxes
def test_validate_grades_each_oracle(tmp_path: Path, capsys) -> None:
    root = tmp_path / "tasks"
    fixtures.write_harbor_task(root, "alpine", dockerfile="FROM alpine:3.19\nRUN apk add python3\n")
    fixtures.write_harbor_task(root, "oracle-fails", dockerfile=DOCKERFILE, solution=WRONG_SOLUTION)
    fixtures.write_harbor_task(root, "valid", dockerfile=DOCKERFILE)
    quarantine = tmp_path / "quarantine.json"
    status = main(["validate", "codegym/Terminal-v0", "--tasks", str(root), "--runs", "2",
                   "--quarantine", str(quarantine)])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 1, out
    assert f"codegym/Terminal-v0 tasks={root}: 3 tasks, 1 valid, 2 invalid, 0 flaky (2 runs each)" in out
    line = next(line for line in out.splitlines() if "oracle-fails" in line)
    assert line.strip().startswith("invalid  oracle-fails: the reference fails its own tests (WA)")
    assert "test_answer_is_the_sum" in line
    line = next(line for line in out.splitlines() if "alpine" in line)
    assert line.strip().startswith("invalid  alpine: task alpine cannot run here: Dockerfile line 1: the base image")
    assert list(json.loads(quarantine.read_text())["quarantined"]) == ["alpine", "oracle-fails"]


@needs_boxes
def test_validate_passes_a_folder_of_valid_tasks(tmp_path: Path, capsys) -> None:
    root = tmp_path / "tasks"
    fixtures.write_harbor_task(root, "valid", dockerfile=DOCKERFILE)
    fixtures.write_tb1_task(root, "valid-tb1", dockerfile=DOCKERFILE)
    status = main(["validate", "codegym/Terminal-v0", "--tasks", str(root), "--runs", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "2 tasks, 2 valid, 0 invalid, 0 flaky (1 run each)" in out
