"""Task folders written in the public layouts, for the terminal family's tests.

Every file here is written by these functions (no third-party task is copied). Shared by the
format, build, sandbox and cheat-suite tests:

``write_harbor_task(root, name, *, dockerfile=DOCKERFILE, tests=None, solution=None, toml=TASK_TOML,
instruction=INSTRUCTION, environment=None, steps=None, compose=None) -> Path``
    Writes ``root/name/`` in Harbor's layout: ``task.toml`` (``toml``), ``instruction.md``,
    ``environment/Dockerfile`` (``dockerfile``) plus ``environment`` (``{relative path: text or
    bytes}``, e.g. the hidden fixtures the Dockerfile copies), ``tests/`` (``tests``; by default
    `TESTS`: a ``test.sh`` that runs pytest on ``test_outputs.py`` and writes
    ``/logs/verifier/reward.txt``), ``solution/`` (``solution``; by default `SOLUTION`, a
    ``solve.sh``), ``environment/docker-compose.yaml`` (``compose``, if given) and, for a
    multi-step task, ``steps/<name>/...`` (``steps``: ``{step name: {relative path: content}}``).
    A ``None`` value in any files mapping leaves that file out; ``.sh`` files are made executable.
    Returns the task folder.

``write_tb1_task(root, name, *, task_yaml=TB1_YAML, dockerfile=DOCKERFILE, tests=None,
run_tests=TB1_RUN_TESTS, solution=TB1_SOLUTION, compose=TB1_COMPOSE, extra=None) -> Path``
    Writes ``root/name/`` in Terminal-Bench 1's layout: ``task.yaml``, ``Dockerfile``,
    ``docker-compose.yaml``, ``run-tests.sh``, ``solution.sh`` (``solution``; a name ending in
    ``.yaml`` as the key of ``extra`` gives a ``solution.yaml`` instead), ``tests/`` (``tests``,
    by default `TB1_TESTS`) and ``extra`` files at the root. Returns the task folder.

``harbor_row(task_id, files=None) -> dict``: a row (``{"id": ..., "task.toml": ..., ...}``) of the
same default task, with ``files`` (relative path -> text, None to drop) replacing or adding files.

The default task: the agent writes ``/app/answer.txt`` holding the sum of the numbers in
``/app/numbers.txt``; the tests (hidden) compare it with ``/opt/verifier-fixtures/expected.txt``,
which the Dockerfile copies into the image from ``environment/hidden/``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

Files = Mapping[str, "str | bytes | None"]

DOCKERFILE = """\
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \\
        python3 python3-pytest python3-pip \\
    && rm -rf /var/lib/apt/lists/*
RUN pip install --break-system-packages tomli==2.0.1
WORKDIR /app
COPY numbers.txt /app/numbers.txt
COPY hidden/ /opt/verifier-fixtures/
"""

# The same without the pip line, for a build that cannot reach PyPI.
DOCKERFILE_APT_ONLY = "".join(line + "\n" for line in DOCKERFILE.splitlines() if not line.startswith("RUN pip"))

ENVIRONMENT: dict[str, str | bytes | None] = {
    "numbers.txt": "3\n4\n5\n",
    "hidden/expected.txt": "12\n",
}

INSTRUCTION = "Write the sum of the numbers in /app/numbers.txt (one a line) to /app/answer.txt.\n"

TASK_TOML = """\
version = "1.0"

[metadata]
author_name = "codegym tests"
difficulty = "easy"
category = "data-processing"
tags = ["sum", "files"]

[verifier]
timeout_sec = 120.0

[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 2048
storage_mb = 10240
allow_internet = false
"""

TEST_SH = """\
#!/bin/bash
mkdir -p /logs/verifier
cd /tests
if python3 -m pytest -q /tests/test_outputs.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

TEST_OUTPUTS = """\
from pathlib import Path


def test_answer_exists():
    assert Path("/app/answer.txt").exists()


def test_answer_is_the_sum():
    expected = Path("/opt/verifier-fixtures/expected.txt").read_text().strip()
    assert Path("/app/answer.txt").read_text().strip() == expected
"""

TESTS: dict[str, str | bytes | None] = {"test.sh": TEST_SH, "test_outputs.py": TEST_OUTPUTS}

SOLVE_SH = """\
#!/bin/bash
python3 -c "import pathlib; p = pathlib.Path('/app/numbers.txt'); \
print(sum(int(x) for x in p.read_text().split()))" > /app/answer.txt
"""

SOLUTION: dict[str, str | bytes | None] = {"solve.sh": SOLVE_SH}

TB1_YAML = """\
instruction: |-
  Write the sum of the numbers in /app/numbers.txt (one a line) to /app/answer.txt.
author_name: codegym tests
author_email: tests@example.com
difficulty: easy
category: data-processing
tags:
  - sum
parser_name: pytest
max_agent_timeout_sec: 240.0
max_test_timeout_sec: 45.0
run_tests_in_same_shell: false
"""

TB1_COMPOSE = """\
services:
  client:
    build:
      dockerfile: Dockerfile
    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}
    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}
    command: [ "sh", "-c", "sleep infinity" ]
    environment:
      - TEST_DIR=${T_BENCH_TEST_DIR}
    volumes:
      - ${T_BENCH_TASK_LOGS_PATH}:${T_BENCH_CONTAINER_LOGS_PATH}
"""

TB1_RUN_TESTS = """\
#!/bin/bash
python3 -m pytest -q $TEST_DIR/test_outputs.py -rA
"""

TB1_SOLUTION = SOLVE_SH

TB1_DOCKERFILE = """\
FROM python:3.11-slim
RUN pip install pytest==8.4.1
WORKDIR /app
COPY numbers.txt /app/numbers.txt
COPY hidden/ /opt/verifier-fixtures/
"""

TB1_TESTS: dict[str, str | bytes | None] = {"test_outputs.py": TEST_OUTPUTS}


def write_files(folder: Path, files: Files) -> None:
    """Writes ``{relative path: text or bytes}`` under ``folder`` (None: left out); ``.sh`` files
    are made executable."""
    for relative, content in files.items():
        if content is None:
            continue
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode())
        if path.suffix == ".sh":
            os.chmod(path, 0o755)


def write_harbor_task(
    root: Path,
    name: str,
    *,
    dockerfile: str | bytes | None = DOCKERFILE,
    tests: Files | None = None,
    solution: Files | None = None,
    toml: str | bytes | None = TASK_TOML,
    instruction: str | bytes | None = INSTRUCTION,
    environment: Files | None = None,
    steps: Mapping[str, Files] | None = None,
    compose: str | None = None,
) -> Path:
    """Writes a task folder in Harbor's layout (see the module docstring) and returns it."""
    folder = Path(root) / name
    folder.mkdir(parents=True, exist_ok=True)
    write_files(folder, {"task.toml": toml, "instruction.md": instruction})
    write_files(
        folder / "environment", {"Dockerfile": dockerfile, **(ENVIRONMENT if environment is None else environment)}
    )
    if compose is not None:
        write_files(folder / "environment", {"docker-compose.yaml": compose})
    write_files(folder / "tests", TESTS if tests is None else tests)
    write_files(folder / "solution", SOLUTION if solution is None else solution)
    for step, files in (steps or {}).items():
        write_files(folder / "steps" / step, files)
    return folder


def write_tb1_task(
    root: Path,
    name: str,
    *,
    task_yaml: str | bytes | None = TB1_YAML,
    dockerfile: str | bytes | None = TB1_DOCKERFILE,
    tests: Files | None = None,
    run_tests: str | bytes | None = TB1_RUN_TESTS,
    solution: str | bytes | None = TB1_SOLUTION,
    compose: str | bytes | None = TB1_COMPOSE,
    extra: Files | None = None,
) -> Path:
    """Writes a task folder in Terminal-Bench 1's layout (see the module docstring) and returns it."""
    folder = Path(root) / name
    folder.mkdir(parents=True, exist_ok=True)
    write_files(folder, {"task.yaml": task_yaml, "Dockerfile": dockerfile, "docker-compose.yaml": compose,
                         "run-tests.sh": run_tests, "solution.sh": solution, **ENVIRONMENT, **(extra or {})})  # fmt: skip
    write_files(folder / "tests", TB1_TESTS if tests is None else tests)
    return folder


def harbor_row(task_id: str, files: Files | None = None) -> dict[str, str | bytes]:
    """A row of the default Harbor task: ``id`` and its files by relative path, ``files``
    (relative path -> text, or None to drop the file) replacing or adding files."""
    row: dict[str, str | bytes | None] = {
        "id": task_id,
        "task.toml": TASK_TOML,
        "instruction.md": INSTRUCTION,
        "environment/Dockerfile": DOCKERFILE,
        **{f"environment/{path}": text for path, text in ENVIRONMENT.items()},
        **{f"tests/{path}": text for path, text in TESTS.items()},
        **{f"solution/{path}": text for path, text in SOLUTION.items()},
        **(files or {}),
    }
    return {key: value for key, value in row.items() if value is not None}


# A public task's tests/test.sh as they are often written: uv installed by its installer (a
# network fetch the importer serves offline), pytest run by uvx with pinned plugins.
UV_TEST_SH = """\
#!/bin/bash

apt-get update
apt-get install -y curl

curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh

source $HOME/.local/bin/env

uvx \\
  -p 3.13 \\
  -w pytest==8.4.1 \\
  -w pytest-json-ctrf==0.3.5 \\
  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA

if [ $? -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""
