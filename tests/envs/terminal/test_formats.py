"""Harbor and Terminal-Bench 1 task folders and rows read by `codegym.envs.terminal.formats`.

Every folder is written by the tests in the public layout (`.fixtures`)."""

from __future__ import annotations

import os

import pytest
from codegym.envs.terminal.formats import (
    HARBOR,
    TERMINAL_BENCH,
    Resources,
    load_task,
    load_tasks,
    task_dirs,
    task_from_row,
)

from codegym.error import TaskFormatError

from . import fixtures as fx

TOML_2 = """\
schema_version = "2.0"
source = "codegym-tests"

[task]
name = "codegym/sum-numbers"
description = "Sum the numbers"
keywords = ["sum"]

[metadata]
difficulty = "medium"

[verifier]
timeout_sec = 90
env = { STRICT = "1" }
user = "root"

[agent]
timeout_sec = 450.5
user = "agent"

[environment]
build_timeout_sec = 1200
cpus = 4
memory_mb = 8192
storage_mb = 20480
gpus = 0
network_mode = "no-network"
workdir = "/app"

[solution]
env = { MODE = "oracle" }
"""

OLD_NAMES_TOML = """\
version = "1.0"

[environment]
memory = "4G"
storage = "512M"
allow_internet = true
"""

STEPS_TOML = """\
schema_version = "1.1"
multi_step_reward_strategy = "final"

[agent]
timeout_sec = 100.0

[verifier]
timeout_sec = 50.0

[environment]
workdir = "/app"

[[steps]]
name = "scaffold"
min_reward = 1.0

[steps.agent]
timeout_sec = 60.0

[[steps]]
name = "extend"

[steps.verifier]
timeout_sec = 30.0
"""


# --- Harbor ----------------------------------------------------------------------------------


def test_a_harbor_1_task_folder(tmp_path):
    folder = fx.write_harbor_task(tmp_path, "sum-numbers")
    task = load_task(folder)
    assert task.id == "sum-numbers"
    assert task.layout == HARBOR
    assert task.version == "1.0"
    assert task.instruction == fx.INSTRUCTION
    assert task.dockerfile == fx.DOCKERFILE
    assert dict(task.context) == {"Dockerfile": fx.DOCKERFILE.encode(), "numbers.txt": b"3\n4\n5\n",
                                  "hidden/expected.txt": b"12\n"}  # fmt: skip
    assert dict(task.tests) == {"test.sh": fx.TEST_SH.encode(), "test_outputs.py": fx.TEST_OUTPUTS.encode()}
    assert task.test_command == ("bash", "/tests/test.sh")
    assert task.tests_dir == "/tests"
    assert dict(task.solution) == {"solve.sh": fx.SOLVE_SH.encode()}
    assert task.solution_command == ("bash", "/solution/solve.sh")
    assert (task.agent_timeout_s, task.verifier_timeout_s, task.build_timeout_s) == (300.0, 120.0, 600.0)
    assert task.resources == Resources(cpus=1, memory_mb=2048, storage_mb=10240, gpus=0, allow_internet=False)
    assert task.metadata["difficulty"] == "easy"
    assert task.metadata["tags"] == ["sum", "files"]
    assert task.workdir is None
    assert task.steps == ()
    assert not task.compose
    assert task.source == str(folder)
    assert task.executables == {"tests/test.sh", "solution/solve.sh"}


def test_a_harbor_2_task_toml_with_every_section(tmp_path):
    task = load_task(fx.write_harbor_task(tmp_path, "t", toml=TOML_2))
    assert task.version == "2.0"
    assert (task.agent_timeout_s, task.verifier_timeout_s, task.build_timeout_s) == (450.5, 90.0, 1200.0)
    assert task.resources == Resources(cpus=4, memory_mb=8192, storage_mb=20480, gpus=0, allow_internet=False)
    assert task.workdir == "/app"
    assert (task.agent_user, task.verifier_user) == ("agent", "root")
    assert dict(task.test_env) == {"STRICT": "1"}
    assert dict(task.solution_env) == {"MODE": "oracle"}
    assert task.metadata["task"]["name"] == "codegym/sum-numbers"
    assert task.metadata["source"] == "codegym-tests"
    assert task.metadata["difficulty"] == "medium"


def test_old_field_names_are_read(tmp_path):
    task = load_task(fx.write_harbor_task(tmp_path, "old", toml=OLD_NAMES_TOML))
    assert task.resources.memory_mb == 4096
    assert task.resources.storage_mb == 512
    assert task.resources.allow_internet is True
    assert (task.agent_timeout_s, task.verifier_timeout_s) == (600.0, 600.0)  # Harbor's defaults


def test_an_empty_task_toml_takes_the_defaults(tmp_path):
    task = load_task(fx.write_harbor_task(tmp_path, "bare", toml=""))
    assert task.version == "1.0"
    assert task.resources == Resources()


def test_crlf_and_a_bom_in_every_text_file(tmp_path):
    def crlf(text: str) -> bytes:
        return ("\ufeff" + text.replace("\n", "\r\n")).encode()

    folder = fx.write_harbor_task(tmp_path, "windows", toml=crlf(fx.TASK_TOML), instruction=crlf(fx.INSTRUCTION),
                                  dockerfile=crlf(fx.DOCKERFILE))  # fmt: skip
    task = load_task(folder)
    assert task.instruction == fx.INSTRUCTION
    assert task.dockerfile == fx.DOCKERFILE
    assert task.agent_timeout_s == 300.0


def test_an_empty_test_sh_is_still_the_verifier(tmp_path):
    task = load_task(fx.write_harbor_task(tmp_path, "empty-test", tests={"test.sh": ""}))
    assert task.test_command == ("bash", "/tests/test.sh")


def test_the_apt_only_dockerfile_has_no_pip_line():
    assert "pip install" in fx.DOCKERFILE
    assert "pip install" not in fx.DOCKERFILE_APT_ONLY
    assert fx.DOCKERFILE_APT_ONLY.startswith("FROM debian:bookworm-slim\n")


def test_a_prebuilt_docker_image_without_a_dockerfile(tmp_path):
    toml = 'version = "1.0"\n[environment]\ndocker_image = "python:3.11-slim"\n'
    task = load_task(fx.write_harbor_task(tmp_path, "image", toml=toml, dockerfile=None))
    assert task.dockerfile == "FROM python:3.11-slim\n"


def test_compose_services_are_listed(tmp_path):
    compose = "services:\n  main:\n    build: .\n  db:\n    image: postgres:16\n"
    task = load_task(fx.write_harbor_task(tmp_path, "svc", compose=compose))
    assert task.compose
    assert task.compose_services == ("main", "db")
    assert "docker-compose.yaml" in task.context


def test_executable_context_files_are_recorded(tmp_path):
    folder = fx.write_harbor_task(tmp_path, "x", environment={**fx.ENVIRONMENT, "entry.sh": "#!/bin/sh\n"})
    assert "context/entry.sh" in load_task(folder).executables
    os.chmod(folder / "tests" / "test.sh", 0o644)
    assert "tests/test.sh" not in load_task(folder).executables


def test_a_multi_step_task(tmp_path):
    steps = {
        "scaffold": {"instruction.md": "Create /app/main.py.\n", "tests/test.sh": "#!/bin/bash\necho step1\n",
                     "solution/solve.sh": "#!/bin/bash\ntouch /app/main.py\n"},
        "extend": {"instruction.md": "Add a --verbose flag.\n", "tests/test_extend.py": "def test_x(): pass\n",
                   "workdir/seed.json": "{}\n", "workdir/setup.sh": "#!/bin/bash\nrm -- \"$0\"\n"},
    }  # fmt: skip
    folder = fx.write_harbor_task(tmp_path, "multi", toml=STEPS_TOML, instruction=None, steps=steps)
    task = load_task(folder)
    assert [step.name for step in task.steps] == ["scaffold", "extend"]
    assert [step.index for step in task.steps] == [0, 1]
    scaffold, extend = task.steps
    assert task.instruction == "Create /app/main.py.\n"  # no root instruction.md: the first step's
    assert task.reward_strategy == "final"
    assert task.workdir == "/app"
    # The step's tests lie over the task's: its test.sh replaces the task's.
    assert scaffold.tests["test.sh"] == b"#!/bin/bash\necho step1\n"
    assert "test_outputs.py" in scaffold.tests
    assert extend.tests["test.sh"] == fx.TEST_SH.encode()
    assert "test_extend.py" in extend.tests
    assert scaffold.test_command == ("bash", "/tests/test.sh")
    assert scaffold.solution_command == ("bash", "/solution/solve.sh")
    assert extend.solution_command == ()
    assert (scaffold.agent_timeout_s, scaffold.verifier_timeout_s) == (60.0, 50.0)
    assert (extend.agent_timeout_s, extend.verifier_timeout_s) == (100.0, 30.0)
    assert (scaffold.min_reward, extend.min_reward) == (1.0, None)
    assert {"tests/test.sh", "solution/solve.sh"} <= scaffold.executables
    assert scaffold.workdir_files == {} and scaffold.setup_script is None
    assert set(extend.workdir_files) == {"seed.json", "setup.sh"}
    assert extend.setup_script == b'#!/bin/bash\nrm -- "$0"\n'
    assert "workdir/setup.sh" in extend.executables


def test_a_step_without_its_folder_is_named(tmp_path):
    folder = fx.write_harbor_task(tmp_path, "multi", toml=STEPS_TOML, steps={"scaffold": {"instruction.md": "a\n"}})
    with pytest.raises(TaskFormatError, match=r"steps/extend/instruction\.md is missing"):
        load_task(folder)


# --- malformed Harbor tasks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"instruction": None}, r"instruction\.md is missing; write the task's instruction there"),
        ({"toml": "version = \n"}, r"task\.toml is not valid TOML .*; fix the line"),
        ({"toml": 'version = "3.0"\n'}, r"version '3\.0' is not one read here \(1\.x or 2\.x\)"),
        ({"toml": "[agent]\ntimeout_sec = -5\n"}, r"\[agent\] timeout_sec = -5; give a positive number"),
        ({"toml": '[environment]\nmemory = "lots"\n'}, r"memory = 'lots'; give a size like \"4G\""),
        ({"toml": "[environment]\ncpus = 1.5\n"}, r"cpus = 1\.5; give a whole number"),
        ({"toml": 'environment = "big"\n'}, r"environment must be a table"),
        ({"dockerfile": None}, r"environment/Dockerfile is missing"),
        ({"tests": {"test_outputs.py": "x = 1\n"}}, r"tests/test\.sh is missing"),
        ({"toml": "[[steps]]\nagent = {}\n"}, r"\[\[steps\]\] number 1 needs a name"),
    ],
)
def test_malformed_harbor_tasks_name_the_file_and_the_fix(tmp_path, change, message):
    folder = fx.write_harbor_task(tmp_path, "bad", **change)
    with pytest.raises(TaskFormatError, match=message):
        load_task(folder)


def test_a_folder_without_a_task_file(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskFormatError, match=r"no task\.toml \(Harbor\) nor task\.yaml"):
        load_task(tmp_path / "empty")
    with pytest.raises(TaskFormatError, match="is not a folder"):
        load_task(tmp_path / "absent")


# --- Terminal-Bench 1 ------------------------------------------------------------------------


def test_a_terminal_bench_1_folder(tmp_path):
    folder = fx.write_tb1_task(tmp_path, "tb-sum")
    task = load_task(folder)
    assert task.layout == TERMINAL_BENCH
    assert task.version == "tb1"
    assert task.instruction == fx.INSTRUCTION.rstrip("\n")
    assert task.dockerfile == fx.TB1_DOCKERFILE
    assert task.test_command == ("bash", "/tests/run-tests.sh")
    assert set(task.tests) == {"run-tests.sh", "test_outputs.py"}  # both copied to /tests
    assert dict(task.test_env) == {"TEST_DIR": "/tests"}
    assert task.solution_command == ("bash", "/solution/solution.sh")
    assert task.solution["solution.sh"] == fx.TB1_SOLUTION.encode()
    assert (task.agent_timeout_s, task.verifier_timeout_s) == (240.0, 45.0)
    assert task.metadata["difficulty"] == "easy"
    assert task.metadata["author_name"] == "codegym tests"
    assert task.metadata["parser_name"] == "pytest"
    assert task.metadata["run_tests_in_same_shell"] is False
    assert "max_agent_timeout_sec" not in task.metadata
    assert task.compose and task.compose_services == ("client",)
    # The build context is the task folder.
    assert {"Dockerfile", "numbers.txt", "hidden/expected.txt", "run-tests.sh"} <= set(task.context)
    assert {"tests/run-tests.sh", "solution/solution.sh"} <= task.executables


def test_terminal_bench_defaults_and_solution_yaml(tmp_path):
    solution_yaml = "- command: echo 12 > /app/answer.txt\n  min_timeout_sec: 0.1\n- command: cat /app/answer.txt\n"
    folder = fx.write_tb1_task(tmp_path, "tb", task_yaml="instruction: Sum them.\ndifficulty: easy\n",
                               solution=None, extra={"solution.yaml": solution_yaml})  # fmt: skip
    task = load_task(folder)
    assert (task.agent_timeout_s, task.verifier_timeout_s) == (360.0, 60.0)
    script = task.solution["solution.sh"].decode()
    assert script.index("echo 12 > /app/answer.txt") < script.index("cat /app/answer.txt")
    assert task.solution_command == ("bash", "/solution/solution.sh")


def test_terminal_bench_early_descriptions_and_no_run_tests(tmp_path):
    task_yaml = "descriptions:\n  - key: hard\n    description: Harder.\n  - key: base\n    description: Sum them.\n"
    task = load_task(fx.write_tb1_task(tmp_path, "tb", task_yaml=task_yaml, run_tests=None))
    assert task.instruction == "Sum them."
    assert "descriptions" not in task.metadata
    assert task.metadata["run_tests"] == "default"
    assert b"pytest" in task.tests["run-tests.sh"]
    assert task.test_command == ("bash", "/tests/run-tests.sh")


def test_terminal_bench_dockerignore_is_applied_to_the_context(tmp_path):
    folder = fx.write_tb1_task(tmp_path, "tb", extra={".dockerignore": "tests\n*.sh\n!run-tests.sh\n"})
    context = load_task(folder).context
    assert "tests/test_outputs.py" not in context
    assert "solution.sh" not in context
    assert "run-tests.sh" in context
    assert "numbers.txt" in context


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"task_yaml": "difficulty: easy\n"}, r"task\.yaml has no instruction"),
        ({"task_yaml": "instruction: [unclosed\n"}, r"task\.yaml is not valid YAML"),
        ({"task_yaml": "- a list\n"}, r"task\.yaml must be a mapping"),
        ({"dockerfile": None, "compose": None}, r"Dockerfile is missing"),
        ({"task_yaml": "instruction: x\nmax_test_timeout_sec: soon\n"}, r"max_test_timeout_sec = 'soon'"),
    ],
)
def test_malformed_terminal_bench_tasks(tmp_path, change, message):
    folder = fx.write_tb1_task(tmp_path, "bad", **change)
    with pytest.raises(TaskFormatError, match=message):
        load_task(folder)


# --- folders of tasks and rows ---------------------------------------------------------------


def test_a_folder_of_tasks_is_sorted_and_ids_are_folder_names(tmp_path):
    for name in ("zeta", "alpha", "mid"):
        fx.write_harbor_task(tmp_path, name)
    fx.write_tb1_task(tmp_path, "beta-tb")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("not a task\n")
    (tmp_path / ".git").mkdir()
    tasks = load_tasks(tmp_path)
    assert [task.id for task in tasks] == ["alpha", "beta-tb", "mid", "zeta"]
    assert [task.layout for task in tasks] == [HARBOR, TERMINAL_BENCH, HARBOR, HARBOR]
    assert load_tasks(tmp_path / "mid")[0].id == "mid"


def test_a_folder_with_a_broken_task_names_it(tmp_path):
    fx.write_harbor_task(tmp_path, "good")
    fx.write_harbor_task(tmp_path, "no-toml", toml=None)  # instruction.md but no task file: a task, broken
    assert [folder.name for folder in task_dirs(tmp_path)] == ["good", "no-toml"]
    with pytest.raises(TaskFormatError, match=r"no-toml has no task\.toml"):
        load_tasks(tmp_path)


def test_a_folder_without_tasks(tmp_path):
    (tmp_path / "docs").mkdir()
    with pytest.raises(TaskFormatError, match="holds no task folder"):
        load_tasks(tmp_path)


def test_a_harbor_row_matches_the_folder(tmp_path):
    row_task = task_from_row(fx.harbor_row("sum-numbers"))
    folder_task = load_task(fx.write_harbor_task(tmp_path, "sum-numbers"))
    assert row_task.source == "row:sum-numbers"
    for name in ("id", "instruction", "dockerfile", "test_command", "solution_command", "agent_timeout_s",
                 "resources", "executables", "layout", "version"):  # fmt: skip
        assert getattr(row_task, name) == getattr(folder_task, name), name
    for name in ("context", "tests", "solution", "metadata"):
        assert dict(getattr(row_task, name)) == dict(getattr(folder_task, name)), name


def test_a_terminal_bench_row_and_bytes_values():
    row = {"id": "tb-row", "task.yaml": fx.TB1_YAML, "Dockerfile": fx.TB1_DOCKERFILE, "run-tests.sh": fx.TB1_RUN_TESTS,
           "tests/test_outputs.py": fx.TEST_OUTPUTS.encode(), "solution.sh": fx.TB1_SOLUTION,
           "numbers.txt": b"1\n", "hidden/expected.txt": "1\n"}  # fmt: skip
    task = task_from_row(row)
    assert task.layout == TERMINAL_BENCH
    assert task.tests["test_outputs.py"] == fx.TEST_OUTPUTS.encode()
    assert task.test_command == ("bash", "/tests/run-tests.sh")
    assert "tests/run-tests.sh" in task.executables


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"task.toml": ""}, r"a task row needs an 'id'"),
        ({"id": "x", "instruction.md": "hi"}, r"row:x has no task\.toml \(Harbor\) nor task\.yaml"),
        ({"id": "x", "task.toml": "", "instruction.md": 3}, r"'instruction\.md' is int; each file's value"),
    ],
)
def test_malformed_rows(row, message):
    with pytest.raises(TaskFormatError, match=message):
        task_from_row(row)


def test_a_row_missing_a_file_names_it():
    with pytest.raises(TaskFormatError, match=r"tests/test\.sh of row:r is missing"):
        task_from_row(fx.harbor_row("r", {"tests/test.sh": None}))
