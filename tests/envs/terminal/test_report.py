"""The static import assessment of `codegym.envs.terminal.report`: runs here, or why not."""

from __future__ import annotations

import re

import pytest
from codegym.envs.terminal.formats import load_task
from codegym.envs.terminal.report import Assessment, assess, assess_folder

from . import fixtures as fx

UV_DOCKERFILE = """\
FROM ubuntu:22.04
RUN apt-get update && apt-get install -y curl python3
RUN curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
WORKDIR /app
COPY numbers.txt /app/
"""


def test_the_default_task_runs(tmp_path):
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "sum")))
    assert assessment == Assessment("sum", True, (), (), str(tmp_path / "sum"))
    assert assessment.summary() == "sum: runs"


def test_ubuntu_and_the_uv_preamble_run_with_notes(tmp_path):
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "uv", dockerfile=UV_DOCKERFILE)))
    assert assessment.runs
    assert assessment.reasons == ()
    assert any("ubuntu:22.04 mapped to debian bookworm" in note for note in assessment.notes)
    assert any("uv installer (0.7.13) is served offline" in note for note in assessment.notes)


@pytest.mark.parametrize(
    ("dockerfile", "reason"),
    [
        (
            "FROM alpine:3.19\nRUN apk add python3\n",
            r"Dockerfile line 1: the base image 'alpine:3\.19' cannot be mapped",
        ),
        ("FROM debian:12\nRUN curl -o /x https://example.com/x\n", r"Dockerfile line 2: RUN fetches https://example"),
        ("FROM debian:12\nRUN git clone https://github.com/a/b\n", r"Dockerfile line 2: RUN clones a repository"),
        ("FROM debian:12 AS a\nFROM debian:12\nCOPY --from=a /x /x\n", r"line 3: COPY --from=a copies from another"),
        ("FROM debian:12\nCOPY absent.txt /app/\n", r"line 2: COPY absent\.txt: no such file or folder"),
    ],
)
def test_what_stops_a_task(tmp_path, dockerfile, reason):
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "bad", dockerfile=dockerfile)))
    assert not assessment.runs
    assert any(re.search(reason, text) for text in assessment.reasons), assessment.reasons
    assert assessment.summary().startswith("bad: does not run: Dockerfile line")


def test_a_gpu_stops_a_task(tmp_path):
    toml = fx.TASK_TOML.replace("cpus = 1", "cpus = 1\ngpus = 1")
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "gpu", toml=toml)))
    assert assessment.reasons == ("the task asks for 1 GPU(s) ([environment] gpus); no GPU is given here",)


def test_compose_services_beyond_the_agent_stop_a_task_and_main_alone_is_a_note(tmp_path):
    db = "services:\n  main:\n    build: .\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n"
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "svc", compose=db)))
    assert not assessment.runs
    assert any("services beside the agent's container (db, cache)" in reason for reason in assessment.reasons)
    alone = assess(load_task(fx.write_harbor_task(tmp_path, "alone", compose="services:\n  main:\n    build: .\n")))
    assert alone.runs
    assert any("only the agent's container" in note for note in alone.notes)


def test_a_terminal_bench_task_runs_with_its_client_service(tmp_path):
    assessment = assess(load_task(fx.write_tb1_task(tmp_path, "tb")))
    assert assessment.runs, assessment.reasons
    assert any("only the agent's container" in note for note in assessment.notes)
    assert not any("run_tests_in_same_shell" in note for note in assessment.notes)


def test_terminal_bench_tests_in_the_agents_shell_and_another_parser_are_noted(tmp_path):
    task_yaml = fx.TB1_YAML.replace("run_tests_in_same_shell: false", "run_tests_in_same_shell: true").replace(
        "parser_name: pytest", "parser_name: swebench"
    )
    assessment = assess(load_task(fx.write_tb1_task(tmp_path, "tb", task_yaml=task_yaml)))
    assert assessment.runs
    assert any(
        note.startswith("run_tests_in_same_shell: the tests run in a fresh verifier") for note in assessment.notes
    )
    assert any(note.startswith("parser_name 'swebench'") for note in assessment.notes)


def test_a_terminal_bench_task_without_run_tests_is_noted(tmp_path):
    assessment = assess(load_task(fx.write_tb1_task(tmp_path, "tb", run_tests=None)))
    assert assessment.runs
    assert any(note.startswith("no run-tests.sh") for note in assessment.notes)


def test_several_reasons_are_all_given(tmp_path):
    dockerfile = "FROM node:20\nRUN wget https://example.com/a\nCOPY nothing /x\n"
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "many", dockerfile=dockerfile)))
    assert len(assessment.reasons) == 3
    assert assessment.summary().endswith("(+2 more)")


def test_a_build_failure_adds_a_reason_and_the_log_tail(tmp_path):
    assessment = assess(load_task(fx.write_harbor_task(tmp_path, "sum")))
    log = "\n".join(f"step {n}" for n in range(100)) + "\nE: Unable to locate package python4\n"
    failed = assessment.with_build_failure(log, lines=5)
    assert not failed.runs
    assert failed.reasons == ("the environment's build failed: E: Unable to locate package python4",)
    assert failed.build_log.splitlines() == ["step 96", "step 97", "step 98", "step 99",
                                             "E: Unable to locate package python4"]  # fmt: skip
    assert assessment.runs  # frozen: the original is unchanged


def test_assess_folder_reports_every_task_a_broken_one_too(tmp_path):
    fx.write_harbor_task(tmp_path, "a-good")
    fx.write_harbor_task(tmp_path, "b-broken", instruction=None)
    fx.write_harbor_task(tmp_path, "c-alpine", dockerfile="FROM alpine:3.19\n")
    fx.write_tb1_task(tmp_path, "d-tb")
    assessments = assess_folder(tmp_path)
    assert [(a.task_id, a.runs) for a in assessments] == [("a-good", True), ("b-broken", False),
                                                          ("c-alpine", False), ("d-tb", True)]  # fmt: skip
    assert "instruction.md is missing" in assessments[1].reasons[0]


def test_a_multi_step_task_with_tests_only_in_its_steps_runs(tmp_path):
    toml = '[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n'
    step = {"instruction.md": "Do it.\n", "tests/test.sh": fx.TEST_SH}
    folder = fx.write_harbor_task(tmp_path, "steps", toml=toml, tests={}, steps={"one": step, "two": step})
    assessment = assess(load_task(folder))
    assert assessment.runs, assessment.reasons
    assert "2 steps, graded one by one (mean of their rewards)" in assessment.notes
